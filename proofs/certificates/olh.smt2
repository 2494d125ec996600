; ldpaudit 0.1.0 certificate: OLH: PROVED epsilon-LDP for all 2 <= d (integer), 2 <= g (integer), 0 < epsilon
; re-check: z3 olh.smt2   (every line of output must be unsat)
; query 1: no denominator can vanish (expected: unsat)
; OLH: epsilon-LDP: no denominator vanishes
; obligation: exp(epsilon)/(g + exp(epsilon) - 1) <= e^claim * exp(epsilon)/(g + exp(epsilon) - 1)
; obligation: exp(epsilon)/(g + exp(epsilon) - 1) <= e^claim * 1/(g + exp(epsilon) - 1)
; obligation: 1/(g + exp(epsilon) - 1) <= e^claim * exp(epsilon)/(g + exp(epsilon) - 1)
; obligation: 1/(g + exp(epsilon) - 1) <= e^claim * 1/(g + exp(epsilon) - 1)
; e^claim = exp(epsilon)
; u_epsilon = exp(epsilon)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(declare-fun g () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= 2.0 g))
(assert
 (or (= (+ (- 1.0) u_epsilon g) 0.0)))
(check-sat)
(reset)
; query 2: no obligation can fail (expected: unsat)
; OLH: epsilon-LDP: some obligation fails (denominators cleared)
; obligation: exp(epsilon)/(g + exp(epsilon) - 1) <= e^claim * exp(epsilon)/(g + exp(epsilon) - 1)
; obligation: exp(epsilon)/(g + exp(epsilon) - 1) <= e^claim * 1/(g + exp(epsilon) - 1)
; obligation: 1/(g + exp(epsilon) - 1) <= e^claim * exp(epsilon)/(g + exp(epsilon) - 1)
; obligation: 1/(g + exp(epsilon) - 1) <= e^claim * 1/(g + exp(epsilon) - 1)
; e^claim = exp(epsilon)
; u_epsilon = exp(epsilon)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(declare-fun g () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= 2.0 g))
(assert
 (let ((?t0 (+ (- 1.0) u_epsilon g)))
(let ((?t1 (* u_epsilon 1.0 ?t0)))
(let ((?t2 (* 1.0 ?t0 1.0)))
(let ((?t3 (* ?t0 ?t0)))
(let (($t4 (< ?t3 0.0)))
(let (($t5 (or (and (> ?t3 0.0) (> ?t2 (* u_epsilon u_epsilon ?t0))) (and $t4 (< ?t2 (* u_epsilon u_epsilon ?t0))))))
(let (($t6 (or (and (> ?t3 0.0) (> (* u_epsilon ?t0 1.0) ?t1)) (and $t4 (< (* u_epsilon ?t0 1.0) ?t1)))))
(let (($t7 (and $t4 (< (* u_epsilon ?t0 1.0) (* u_epsilon u_epsilon ?t0)))))
(let (($t8 (> ?t3 0.0)))
(let (($t9 (and $t8 (> (* u_epsilon ?t0 1.0) (* u_epsilon u_epsilon ?t0)))))
(or (or $t9 $t7) $t6 $t5 (or (and $t8 (> ?t2 ?t1)) (and $t4 (< ?t2 ?t1)))))))))))))))
(check-sat)
