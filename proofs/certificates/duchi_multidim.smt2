; ldpaudit 0.1.0 certificate: Duchi multidimensional mean: PROVED epsilon-LDP for all 0 < epsilon, 1 <= d <= 6 (integer)
; re-check: z3 duchi_multidim.smt2   (every line of output must be unsat)
; query 1: d = 1: no obligation can fail (expected: unsat)
; Duchi multidimensional mean on the vertices of [-1, 1]^1: epsilon-LDP: some obligation fails (denominators cleared)
; obligation: exp(epsilon)/(exp(epsilon) + 1) <= e^claim * 1 - exp(epsilon)/(exp(epsilon) + 1)
; obligation: 1 - exp(epsilon)/(exp(epsilon) + 1) <= e^claim * exp(epsilon)/(exp(epsilon) + 1)
; e^claim = exp(epsilon)
; u_epsilon = exp(epsilon)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (let (($t0 (> (* 1.0 (+ 1.0 u_epsilon) 1.0) (* u_epsilon u_epsilon (+ 1.0 u_epsilon)))))
(let (($t1 (> (* u_epsilon (+ 1.0 u_epsilon) 1.0) (* u_epsilon 1.0 (+ 1.0 u_epsilon)))))
(or $t1 $t0))))
(check-sat)
(reset)
; query 2: d = 2: no obligation can fail (expected: unsat)
; Duchi multidimensional mean on the vertices of [-1, 1]^2: epsilon-LDP: some obligation fails (denominators cleared)
; obligation: exp(epsilon)/(2*(exp(epsilon) + 1)) <= e^claim * 1/4
; obligation: exp(epsilon)/(2*(exp(epsilon) + 1)) <= e^claim * 1/2 - exp(epsilon)/(2*(exp(epsilon) + 1))
; obligation: 1/4 <= e^claim * exp(epsilon)/(2*(exp(epsilon) + 1))
; obligation: 1/4 <= e^claim * 1/2 - exp(epsilon)/(2*(exp(epsilon) + 1))
; obligation: 1/2 - exp(epsilon)/(2*(exp(epsilon) + 1)) <= e^claim * exp(epsilon)/(2*(exp(epsilon) + 1))
; obligation: 1/2 - exp(epsilon)/(2*(exp(epsilon) + 1)) <= e^claim * 1/4
; e^claim = exp(epsilon)
; u_epsilon = exp(epsilon)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (let ((?t0 (* 2.0 u_epsilon)))
(let ((?t1 (+ 2.0 ?t0)))
(let ((?t2 (* u_epsilon 1.0 ?t1)))
(or (> (* u_epsilon 4.0 1.0) ?t2) (> (* u_epsilon ?t1 1.0) ?t2) (> (* 1.0 ?t1 1.0) (* u_epsilon u_epsilon 4.0)) (> (* 1.0 ?t1 1.0) (* u_epsilon 1.0 4.0)) (> (* 1.0 ?t1 1.0) (* u_epsilon u_epsilon ?t1)) (> (* 1.0 4.0 1.0) ?t2))))))
(check-sat)
(reset)
; query 3: d = 3: no obligation can fail (expected: unsat)
; Duchi multidimensional mean on the vertices of [-1, 1]^3: epsilon-LDP: some obligation fails (denominators cleared)
; obligation: exp(epsilon)/(4*(exp(epsilon) + 1)) <= e^claim * 1/4 - exp(epsilon)/(4*(exp(epsilon) + 1))
; obligation: 1/4 - exp(epsilon)/(4*(exp(epsilon) + 1)) <= e^claim * exp(epsilon)/(4*(exp(epsilon) + 1))
; e^claim = exp(epsilon)
; u_epsilon = exp(epsilon)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (let (($t0 (> (* 1.0 (+ 4.0 (* 4.0 u_epsilon)) 1.0) (* u_epsilon u_epsilon (+ 4.0 (* 4.0 u_epsilon))))))
(let (($t1 (> (* u_epsilon (+ 4.0 (* 4.0 u_epsilon)) 1.0) (* u_epsilon 1.0 (+ 4.0 (* 4.0 u_epsilon))))))
(or $t1 $t0))))
(check-sat)
(reset)
; query 4: d = 4: no obligation can fail (expected: unsat)
; Duchi multidimensional mean on the vertices of [-1, 1]^4: epsilon-LDP: some obligation fails (denominators cleared)
; obligation: exp(epsilon)/(8*(exp(epsilon) + 1)) <= e^claim * 1/16
; obligation: exp(epsilon)/(8*(exp(epsilon) + 1)) <= e^claim * 1/8 - exp(epsilon)/(8*(exp(epsilon) + 1))
; obligation: 1/16 <= e^claim * exp(epsilon)/(8*(exp(epsilon) + 1))
; obligation: 1/16 <= e^claim * 1/8 - exp(epsilon)/(8*(exp(epsilon) + 1))
; obligation: 1/8 - exp(epsilon)/(8*(exp(epsilon) + 1)) <= e^claim * exp(epsilon)/(8*(exp(epsilon) + 1))
; obligation: 1/8 - exp(epsilon)/(8*(exp(epsilon) + 1)) <= e^claim * 1/16
; e^claim = exp(epsilon)
; u_epsilon = exp(epsilon)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (let ((?t0 (* 8.0 u_epsilon)))
(let ((?t1 (+ 8.0 ?t0)))
(let ((?t2 (* u_epsilon 1.0 ?t1)))
(or (> (* u_epsilon 16.0 1.0) ?t2) (> (* u_epsilon ?t1 1.0) ?t2) (> (* 1.0 ?t1 1.0) (* u_epsilon u_epsilon 16.0)) (> (* 1.0 ?t1 1.0) (* u_epsilon 1.0 16.0)) (> (* 1.0 ?t1 1.0) (* u_epsilon u_epsilon ?t1)) (> (* 1.0 16.0 1.0) ?t2))))))
(check-sat)
(reset)
; query 5: d = 5: no obligation can fail (expected: unsat)
; Duchi multidimensional mean on the vertices of [-1, 1]^5: epsilon-LDP: some obligation fails (denominators cleared)
; obligation: exp(epsilon)/(16*(exp(epsilon) + 1)) <= e^claim * 1/16 - exp(epsilon)/(16*(exp(epsilon) + 1))
; obligation: 1/16 - exp(epsilon)/(16*(exp(epsilon) + 1)) <= e^claim * exp(epsilon)/(16*(exp(epsilon) + 1))
; e^claim = exp(epsilon)
; u_epsilon = exp(epsilon)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (let (($t0 (> (* 1.0 (+ 16.0 (* 16.0 u_epsilon)) 1.0) (* u_epsilon u_epsilon (+ 16.0 (* 16.0 u_epsilon))))))
(let (($t1 (> (* u_epsilon (+ 16.0 (* 16.0 u_epsilon)) 1.0) (* u_epsilon 1.0 (+ 16.0 (* 16.0 u_epsilon))))))
(or $t1 $t0))))
(check-sat)
(reset)
; query 6: d = 6: no obligation can fail (expected: unsat)
; Duchi multidimensional mean on the vertices of [-1, 1]^6: epsilon-LDP: some obligation fails (denominators cleared)
; obligation: exp(epsilon)/(32*(exp(epsilon) + 1)) <= e^claim * 1/64
; obligation: exp(epsilon)/(32*(exp(epsilon) + 1)) <= e^claim * 1/32 - exp(epsilon)/(32*(exp(epsilon) + 1))
; obligation: 1/64 <= e^claim * exp(epsilon)/(32*(exp(epsilon) + 1))
; obligation: 1/64 <= e^claim * 1/32 - exp(epsilon)/(32*(exp(epsilon) + 1))
; obligation: 1/32 - exp(epsilon)/(32*(exp(epsilon) + 1)) <= e^claim * exp(epsilon)/(32*(exp(epsilon) + 1))
; obligation: 1/32 - exp(epsilon)/(32*(exp(epsilon) + 1)) <= e^claim * 1/64
; e^claim = exp(epsilon)
; u_epsilon = exp(epsilon)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (let ((?t0 (* 32.0 u_epsilon)))
(let ((?t1 (+ 32.0 ?t0)))
(let ((?t2 (* u_epsilon 1.0 ?t1)))
(or (> (* u_epsilon 64.0 1.0) ?t2) (> (* u_epsilon ?t1 1.0) ?t2) (> (* 1.0 ?t1 1.0) (* u_epsilon u_epsilon 64.0)) (> (* 1.0 ?t1 1.0) (* u_epsilon 1.0 64.0)) (> (* 1.0 ?t1 1.0) (* u_epsilon u_epsilon ?t1)) (> (* 1.0 64.0 1.0) ?t2))))))
(check-sat)
