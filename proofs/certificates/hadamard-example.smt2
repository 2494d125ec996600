; ldpaudit 0.1.0 certificate: HR: PROVED 1-LDP
; re-check: z3 hadamard-example.smt2   (every line of output must be unsat)
; query 1: no obligation can fail (expected: unsat)
; HR: 1-LDP: some obligation fails (denominators cleared)
; obligation: E/(8*(1 + E)) <= e^claim * E/(8*(1 + E))
; obligation: E/(8*(1 + E)) <= e^claim * 1/(8*(1 + E))
; obligation: 1/(8*(1 + E)) <= e^claim * E/(8*(1 + E))
; obligation: 1/(8*(1 + E)) <= e^claim * 1/(8*(1 + E))
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
 (let ((?t0 (* 8.0 e_1)))
(let ((?t1 (+ 8.0 ?t0)))
(let ((?t2 (* e_1 1.0 ?t1)))
(let ((?t3 (* 1.0 ?t1 1.0)))
(or (> (* e_1 ?t1 1.0) (* e_1 e_1 ?t1)) (> (* e_1 ?t1 1.0) ?t2) (> ?t3 (* e_1 e_1 ?t1)) (> ?t3 ?t2)))))))
(check-sat)
