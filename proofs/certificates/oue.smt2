; ldpaudit 0.1.0 certificate: OUE: PROVED epsilon-LDP for all 2 <= d (integer), 0 < epsilon
; re-check: z3 oue.smt2   (every line of output must be unsat)
; query 1: no obligation can fail (expected: unsat)
; OUE: epsilon-LDP: some obligation fails (denominators cleared)
; obligation: exp(epsilon)/(2*(exp(epsilon) + 1)) <= e^claim * exp(epsilon)/(2*(exp(epsilon) + 1))
; obligation: 1/(2*(exp(epsilon) + 1)) <= e^claim * exp(epsilon)/(2*(exp(epsilon) + 1))
; obligation: exp(epsilon)/(2*(exp(epsilon) + 1)) <= e^claim * 1/(2*(exp(epsilon) + 1))
; obligation: 1/(2*(exp(epsilon) + 1)) <= e^claim * 1/(2*(exp(epsilon) + 1))
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
(let ((?t3 (* 1.0 ?t1 1.0)))
(or (> (* u_epsilon ?t1 1.0) (* u_epsilon u_epsilon ?t1)) (> ?t3 (* u_epsilon u_epsilon ?t1)) (> (* u_epsilon ?t1 1.0) ?t2) (> ?t3 ?t2)))))))
(check-sat)
