; ldpaudit 0.1.0 certificate: k-RAPPOR: PROVED 1-LDP
; re-check: z3 krappor-example.smt2   (every line of output must be unsat)
; query 1: no obligation can fail (expected: unsat)
; k-RAPPOR: 1-LDP: some obligation fails (denominators cleared)
; obligation: exp(1/2)/(1 + exp(1/2))**2 <= e^claim * exp(1/2)/(1 + exp(1/2))**2
; obligation: (1 + exp(1/2))**(-2) <= e^claim * E/(1 + exp(1/2))**2
; obligation: E/(1 + exp(1/2))**2 <= e^claim * (1 + exp(1/2))**(-2)
; obligation: exp(1/2)/(1 + exp(1/2))**2 <= e^claim * exp(1/2)/(1 + exp(1/2))**2
; e^claim = E
; e_1_2 = exp(1/2), pinned between rationals (96-bit enclosure)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun e_1_2 () Real)
(assert
 (< (/ 16720020067296532274210836142959.0 10141204801825835211973625643008.0) e_1_2))
(assert
 (> (/ 33440040134593064548421672285921.0 20282409603651670423947251286016.0) e_1_2))
(assert
 (let ((?t0 (+ 1.0 e_1_2)))
(let ((?t1 (* ?t0 ?t0)))
(let ((?t2 (* e_1_2 e_1_2)))
(let (($t3 (> (* e_1_2 ?t1 1.0) (* ?t2 e_1_2 ?t1))))
(or $t3 (> (* 1.0 ?t1 1.0) (* ?t2 ?t2 ?t1)) (> (* ?t2 ?t1 1.0) (* ?t2 1.0 ?t1)) $t3))))))
(check-sat)
