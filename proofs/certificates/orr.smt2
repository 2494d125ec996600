; ldpaudit 0.1.0 certificate: O-RR: PROVED epsilon-LDP for all 0 < epsilon
; re-check: z3 orr.smt2   (every line of output must be unsat)
; query 1: no obligation can fail (expected: unsat)
; O-RR: epsilon-LDP: some obligation fails (denominators cleared)
; obligation: exp(epsilon)/(3*exp(epsilon) + 6) <= e^claim * exp(epsilon)/(3*exp(epsilon) + 6)
; obligation: exp(epsilon)/(3*exp(epsilon) + 6) <= e^claim * 1/(3*exp(epsilon) + 6)
; obligation: 1/(3*exp(epsilon) + 6) <= e^claim * exp(epsilon)/(3*exp(epsilon) + 6)
; obligation: 1/(3*exp(epsilon) + 6) <= e^claim * 1/(3*exp(epsilon) + 6)
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
 (let ((?t0 (* 3.0 u_epsilon)))
(let ((?t1 (+ 6.0 ?t0)))
(let ((?t2 (* u_epsilon 1.0 ?t1)))
(let ((?t3 (* 1.0 ?t1 1.0)))
(or (> (* u_epsilon ?t1 1.0) (* u_epsilon u_epsilon ?t1)) (> (* u_epsilon ?t1 1.0) ?t2) (> ?t3 (* u_epsilon u_epsilon ?t1)) (> ?t3 ?t2)))))))
(check-sat)
