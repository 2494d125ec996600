; ldpaudit 0.1.0 certificate: O-RR (hash family): PROVED epsilon-LDP for all 2 <= d (integer), 1 <= C (integer), 2 <= k (integer), 0 < epsilon
; re-check: z3 orr_open.smt2   (every line of output must be unsat)
; query 1: no denominator can vanish (expected: unsat)
; O-RR (hash family): epsilon-LDP: no denominator vanishes
; obligation: exp(epsilon)/(k + exp(epsilon) - 1) <= e^claim * exp(epsilon)/(k + exp(epsilon) - 1)
; obligation: exp(epsilon)/(k + exp(epsilon) - 1) <= e^claim * 1/(k + exp(epsilon) - 1)
; obligation: 1/(k + exp(epsilon) - 1) <= e^claim * exp(epsilon)/(k + exp(epsilon) - 1)
; obligation: 1/(k + exp(epsilon) - 1) <= e^claim * 1/(k + exp(epsilon) - 1)
; e^claim = exp(epsilon)
; u_epsilon = exp(epsilon)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(declare-fun k () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= 2.0 k))
(assert
 (or (= (+ (- 1.0) u_epsilon k) 0.0)))
(check-sat)
(reset)
; query 2: no obligation can fail (expected: unsat)
; O-RR (hash family): epsilon-LDP: some obligation fails (denominators cleared)
; obligation: exp(epsilon)/(k + exp(epsilon) - 1) <= e^claim * exp(epsilon)/(k + exp(epsilon) - 1)
; obligation: exp(epsilon)/(k + exp(epsilon) - 1) <= e^claim * 1/(k + exp(epsilon) - 1)
; obligation: 1/(k + exp(epsilon) - 1) <= e^claim * exp(epsilon)/(k + exp(epsilon) - 1)
; obligation: 1/(k + exp(epsilon) - 1) <= e^claim * 1/(k + exp(epsilon) - 1)
; e^claim = exp(epsilon)
; u_epsilon = exp(epsilon)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(declare-fun k () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= 2.0 k))
(assert
 (let ((?t0 (+ (- 1.0) u_epsilon k)))
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
