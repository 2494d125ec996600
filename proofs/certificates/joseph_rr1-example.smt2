; ldpaudit 0.1.0 certificate: Joseph RR1: PROVED 1-LDP for all x, x' in R
; re-check: z3 joseph_rr1-example.smt2   (every line of output must be unsat)
; query 1: no obligation can fail (expected: unsat)
; Joseph RR1: 1-LDP for all real inputs: some obligation fails (denominators cleared)
; obligation: E/(E + 3) <= e^claim * 1/(E + 3)
; obligation: 1/(E + 3) <= e^claim * E/(E + 3)
; e^claim = E
; e_1 = E, pinned between rationals (96-bit enclosure)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun e_1 () Real)
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
(assert
 (let (($t0 (> (* 1.0 (+ 3.0 e_1) 1.0) (* e_1 e_1 (+ 3.0 e_1)))))
(let (($t1 (> (* e_1 (+ 3.0 e_1) 1.0) (* e_1 1.0 (+ 3.0 e_1)))))
(or $t1 $t0))))
(check-sat)
