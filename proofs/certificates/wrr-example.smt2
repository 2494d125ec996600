; ldpaudit 0.1.0 certificate: W-RR: PROVED log(3)-LDP
; re-check: z3 wrr-example.smt2   (every line of output must be unsat)
; query 1: no obligation can fail (expected: unsat)
; W-RR: log(3)-LDP: some obligation fails (denominators cleared)
; obligation: 3/4 <= e^claim * 1/4
; obligation: 3/4 <= e^claim * 1/4
; e^claim = 3
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(assert
 (let (($t0 (> (* 3.0 4.0 1.0) (* 3.0 1.0 4.0))))
(or $t0 $t0)))
(check-sat)
