; ldpaudit 0.1.0 certificate: Duchi multidimensional mean: PROVED 1-LDP
; re-check: z3 duchi_multidim-example.smt2   (every line of output must be unsat)
; query 1: d = 3: no obligation can fail (expected: unsat)
; Duchi multidimensional mean on the vertices of [-1, 1]^3: 1-LDP: some obligation fails (denominators cleared)
; obligation: E/(4*(1 + E)) <= e^claim * -E/(4*(1 + E)) + 1/4
; obligation: E/(4*(1 + E)) <= e^claim * -E/(4*(1 + E)) + 1/4
; obligation: E/(4*(1 + E)) <= e^claim * -E/(4*(1 + E)) + 1/4
; obligation: E/(4*(1 + E)) <= e^claim * -E/(4*(1 + E)) + 1/4
; obligation: E/(4*(1 + E)) <= e^claim * -E/(4*(1 + E)) + 1/4
; obligation: E/(4*(1 + E)) <= e^claim * -E/(4*(1 + E)) + 1/4
; ... and 2 more obligations
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
 (let (($t0 (> (* e_1 (+ 4.0 (* 4.0 e_1)) 1.0) (* e_1 1.0 (+ 4.0 (* 4.0 e_1))))))
(or $t0 $t0 $t0 $t0 $t0 $t0 $t0 $t0)))
(check-sat)
