; ldpaudit 0.1.0 certificate: k-RR: PROVED epsilon-LDP for all 2 <= d (integer), 0 < epsilon
; re-check: z3 krr.smt2   (every line of output must be unsat)
; query 1: no denominator can vanish (expected: unsat)
; k-RR: epsilon-LDP: no denominator vanishes
; obligation: exp(epsilon)/(d + exp(epsilon) - 1) <= e^claim * 1/(d + exp(epsilon) - 1)
; obligation: 1/(d + exp(epsilon) - 1) <= e^claim * exp(epsilon)/(d + exp(epsilon) - 1)
; e^claim = exp(epsilon)
; u_epsilon = exp(epsilon)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(declare-fun d () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= 2.0 d))
(assert
 (or (= (+ (- 1.0) u_epsilon d) 0.0)))
(check-sat)
(reset)
; query 2: no obligation can fail (expected: unsat)
; k-RR: epsilon-LDP: some obligation fails (denominators cleared)
; obligation: exp(epsilon)/(d + exp(epsilon) - 1) <= e^claim * 1/(d + exp(epsilon) - 1)
; obligation: 1/(d + exp(epsilon) - 1) <= e^claim * exp(epsilon)/(d + exp(epsilon) - 1)
; e^claim = exp(epsilon)
; u_epsilon = exp(epsilon)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(declare-fun d () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= 2.0 d))
(assert
 (let ((?t0 (+ (- 1.0) u_epsilon d)))
(let ((?t1 (* u_epsilon u_epsilon ?t0)))
(let ((?t2 (* 1.0 ?t0 1.0)))
(let ((?t3 (* ?t0 ?t0)))
(let (($t4 (< ?t3 0.0)))
(let (($t5 (and $t4 (< (* u_epsilon ?t0 1.0) (* u_epsilon 1.0 ?t0)))))
(let (($t6 (> ?t3 0.0)))
(let (($t7 (and $t6 (> (* u_epsilon ?t0 1.0) (* u_epsilon 1.0 ?t0)))))
(or (or $t7 $t5) (or (and $t6 (> ?t2 ?t1)) (and $t4 (< ?t2 ?t1)))))))))))))
(check-sat)
