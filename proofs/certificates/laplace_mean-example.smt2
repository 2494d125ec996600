; ldpaudit 0.1.0 certificate: Laplace mean: PROVED 1-LDP
; re-check: z3 laplace_mean-example.smt2   (every line of output must be unsat)
; query 1: no obligation can fail (expected: unsat)
; Laplace mean: 1-LDP: some obligation fails (denominators cleared)
; obligation: -Abs(xa - z0)/2 + Abs(xb - z0)/2 <= 1
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(declare-fun xb () Real)
(declare-fun z0 () Real)
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (<= (- 1.0) xb))
(assert
 (>= 1.0 xb))
(assert
 (let ((?x57 (* 1.0 2.0)))
(let ((?x99 (* (- 1.0) z0)))
(let ((?x97 (+ xb ?x99)))
(let (($x209 (>= ?x97 0.0)))
(let ((?x12 (ite $x209 ?x97 (- ?x97))))
(let ((?x107 (+ xa ?x99)))
(let (($x21 (>= ?x107 0.0)))
(let ((?x164 (ite $x21 ?x107 (- ?x107))))
(let ((?x17 (* (- 1.0) ?x164)))
(let ((?x88 (+ ?x17 ?x12)))
(let ((?x173 (* ?x88 1.0)))
(> ?x173 ?x57)))))))))))))
(check-sat)
