; ldpaudit 0.1.0 certificate: Joseph 1RoundKVRR2: PROVED epsilon-LDP for all 0 < epsilon, g in R (public), 1 <= rho (integer) (public), 0 < sigma (public), all x, x' in R
; re-check: z3 joseph_kvrr2_oneround.smt2   (every line of output must be unsat)
; query 1: no obligation can fail (expected: unsat)
; Joseph 1RoundKVRR2: epsilon-LDP for all real inputs: some obligation fails (denominators cleared)
; obligation: 1/(exp(epsilon) + 1) <= e^claim * exp(epsilon)/(exp(epsilon) + 1)
; obligation: exp(epsilon)/(exp(epsilon) + 1) <= e^claim * 1/(exp(epsilon) + 1)
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
 (let (($t0 (> (* u_epsilon (+ 1.0 u_epsilon) 1.0) (* u_epsilon 1.0 (+ 1.0 u_epsilon)))))
(let (($t1 (> (* 1.0 (+ 1.0 u_epsilon) 1.0) (* u_epsilon u_epsilon (+ 1.0 u_epsilon)))))
(or $t1 $t0))))
(check-sat)
