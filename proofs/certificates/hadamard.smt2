; ldpaudit 0.1.0 certificate: HR: PROVED epsilon-LDP for all 2 <= d (integer), 0 < epsilon
; re-check: z3 hadamard.smt2   (every line of output must be unsat)
; query 1: no obligation can fail (expected: unsat)
; HR: epsilon-LDP: some obligation fails (denominators cleared)
; obligation: exp(epsilon)/(exp(epsilon) + 1) <= e^claim * exp(epsilon)/(exp(epsilon) + 1)
; obligation: exp(epsilon)/(exp(epsilon) + 1) <= e^claim * 1/(exp(epsilon) + 1)
; obligation: 1/(exp(epsilon) + 1) <= e^claim * exp(epsilon)/(exp(epsilon) + 1)
; obligation: 1/(exp(epsilon) + 1) <= e^claim * 1/(exp(epsilon) + 1)
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
 (let ((?t0 (+ 1.0 u_epsilon)))
(let ((?t1 (* u_epsilon 1.0 ?t0)))
(let ((?t2 (* 1.0 ?t0 1.0)))
(or (> (* u_epsilon ?t0 1.0) (* u_epsilon u_epsilon ?t0)) (> (* u_epsilon ?t0 1.0) ?t1) (> ?t2 (* u_epsilon u_epsilon ?t0)) (> ?t2 ?t1))))))
(check-sat)
