; ldpaudit 0.1.0 certificate: k-RAPPOR: PROVED epsilon-LDP for all 2 <= d (integer), 0 < epsilon
; re-check: z3 krappor.smt2   (every line of output must be unsat)
; query 1: no obligation can fail (expected: unsat)
; k-RAPPOR: epsilon-LDP: some obligation fails (denominators cleared)
; obligation: exp(epsilon/2)/(exp(epsilon/2) + 1)**2 <= e^claim * exp(epsilon/2)/(exp(epsilon/2) + 1)**2
; obligation: (exp(epsilon/2) + 1)**(-2) <= e^claim * exp(epsilon)/(exp(epsilon/2) + 1)**2
; obligation: exp(epsilon)/(exp(epsilon/2) + 1)**2 <= e^claim * (exp(epsilon/2) + 1)**(-2)
; obligation: exp(epsilon/2)/(exp(epsilon/2) + 1)**2 <= e^claim * exp(epsilon/2)/(exp(epsilon/2) + 1)**2
; e^claim = exp(epsilon)
; u_epsilon = exp(epsilon/2)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (let ((?t0 (+ 1.0 u_epsilon)))
(let ((?t1 (* ?t0 ?t0)))
(let ((?t2 (* u_epsilon u_epsilon)))
(let (($t3 (> (* u_epsilon ?t1 1.0) (* ?t2 u_epsilon ?t1))))
(or $t3 (> (* 1.0 ?t1 1.0) (* ?t2 ?t2 ?t1)) (> (* ?t2 ?t1 1.0) (* ?t2 1.0 ?t1)) $t3))))))
(check-sat)
