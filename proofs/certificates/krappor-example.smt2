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
 (let ((?x71 (+ 1.0 e_1_2)))
(let ((?x33 (* ?x71 ?x71)))
(let ((?x11 (* e_1_2 e_1_2)))
(let ((?x67 (* ?x11 e_1_2 ?x33)))
(let ((?x38 (* e_1_2 ?x33 1.0)))
(let (($x32 (> ?x38 ?x67)))
(let (($x53 (> (* ?x11 ?x33 1.0) (* ?x11 1.0 ?x33))))
(let (($x35 (> (* 1.0 ?x33 1.0) (* ?x11 ?x11 ?x33))))
(or $x32 $x35 $x53 $x32))))))))))
(check-sat)
