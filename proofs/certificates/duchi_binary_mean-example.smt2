; ldpaudit 0.1.0 certificate: Duchi binary mean: PROVED 1-LDP for all x, x' in [-1, 1]
; re-check: z3 duchi_binary_mean-example.smt2   (every line of output must be unsat)
; query 1: no obligation can fail (expected: unsat)
; Duchi binary mean: 1-LDP for all real inputs: some obligation fails (denominators cleared)
; obligation: -xa*(-1 + E)/(2*(1 + E)) + 1/2 <= e^claim * -xb*(-1 + E)/(2*(1 + E)) + 1/2
; obligation: xa*(-1 + E)/(2*(1 + E)) + 1/2 <= e^claim * xb*(-1 + E)/(2*(1 + E)) + 1/2
; e^claim = E
; e_1 = E, pinned between rationals (96-bit enclosure)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun e_1 () Real)
(declare-fun xa () Real)
(declare-fun xb () Real)
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (<= (- 1.0) xb))
(assert
 (>= 1.0 xb))
(assert
 (let ((?t0 (* 2.0 e_1)))
(let ((?t1 (+ 2.0 ?t0)))
(let (($t2 (> (* (+ 1.0 e_1 (* xa (+ (- 1.0) e_1))) ?t1 1.0) (* e_1 (+ 1.0 e_1 (* xb (+ (- 1.0) e_1))) ?t1))))
(let (($t3 (> (* (+ 1.0 e_1 (* (- 1.0) xa (+ (- 1.0) e_1))) ?t1 1.0) (* e_1 (+ 1.0 e_1 (* (- 1.0) xb (+ (- 1.0) e_1))) ?t1))))
(or $t3 $t2))))))
(check-sat)
