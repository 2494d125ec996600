; ldpaudit 0.1.0 certificate: Joseph RR1: PROVED epsilon-LDP for all 0 < epsilon, 0 < s (public), j in Z (public), all x, x' in R
; re-check: z3 joseph_rr1.smt2   (every line of output must be unsat)
; query 1: no obligation can fail (expected: unsat)
; Joseph RR1: epsilon-LDP for all real inputs: some obligation fails (denominators cleared)
; obligation: exp(epsilon)/(exp(epsilon) + 3) <= e^claim * 1/(exp(epsilon) + 3)
; obligation: 1/(exp(epsilon) + 3) <= e^claim * exp(epsilon)/(exp(epsilon) + 3)
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
 (let (($t0 (> (* 1.0 (+ 3.0 u_epsilon) 1.0) (* u_epsilon u_epsilon (+ 3.0 u_epsilon)))))
(let (($t1 (> (* u_epsilon (+ 3.0 u_epsilon) 1.0) (* u_epsilon 1.0 (+ 3.0 u_epsilon)))))
(or $t1 $t0))))
(check-sat)
