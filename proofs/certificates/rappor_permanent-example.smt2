; ldpaudit 0.1.0 certificate: RAPPOR permanent: PROVED 2*log(3)-LDP
; re-check: z3 rappor_permanent-example.smt2   (every line of output must be unsat)
; query 1: no obligation can fail (expected: unsat)
; RAPPOR permanent: 2*log(3)-LDP: some obligation fails (denominators cleared)
; obligation: 3/16 <= e^claim * 3/16
; obligation: 1/16 <= e^claim * 9/16
; obligation: 9/16 <= e^claim * 1/16
; obligation: 3/16 <= e^claim * 3/16
; e^claim = 9
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(assert
 (let (($t0 (> (* 3.0 16.0 1.0) (* 9.0 3.0 16.0))))
(or $t0 (> (* 1.0 16.0 1.0) (* 9.0 9.0 16.0)) (> (* 9.0 16.0 1.0) (* 9.0 1.0 16.0)) $t0)))
(check-sat)
