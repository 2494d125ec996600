; ldpaudit 0.1.0 certificate: RAPPOR instantaneous: PROVED log(3)-LDP
; re-check: z3 rappor_instantaneous-example.smt2   (every line of output must be unsat)
; query 1: no obligation can fail (expected: unsat)
; RAPPOR instantaneous: log(3)-LDP: some obligation fails (denominators cleared)
; obligation: 1/2 <= e^claim * 1/4
; obligation: 3/4 <= e^claim * 1/2
; e^claim = 3
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(assert
 (or (> (* 1.0 4.0 1.0) (* 3.0 1.0 2.0)) (> (* 3.0 2.0 1.0) (* 3.0 1.0 4.0))))
(check-sat)
