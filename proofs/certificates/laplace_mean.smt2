; ldpaudit 0.1.0 certificate: Laplace mean: PROVED epsilon-LDP for all 0 < M, 0 < epsilon
; re-check: z3 laplace_mean.smt2   (every line of output must be unsat)
; query 1: no obligation can fail (expected: unsat)
; Laplace mean: epsilon-LDP: some obligation fails (denominators cleared)
; obligation: -epsilon*Abs(xa - z0)/(2*M) + epsilon*Abs(xb - z0)/(2*M) <= epsilon
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun epsilon () Real)
(declare-fun M () Real)
(declare-fun xa () Real)
(declare-fun xb () Real)
(declare-fun z0 () Real)
(assert
 (< 0.0 epsilon))
(assert
 (let ((?x120 (* (- 1.0) M)))
 (>= xa ?x120)))
(assert
 (<= xa M))
(assert
 (let ((?x120 (* (- 1.0) M)))
 (>= xb ?x120)))
(assert
 (<= xb M))
(assert
 (< 0.0 M))
(assert
 (let ((?x54 (* 2.0 M)))
(let ((?x190 (* epsilon ?x54)))
(let ((?x99 (* (- 1.0) z0)))
(let ((?x97 (+ xb ?x99)))
(let (($x209 (>= ?x97 0.0)))
(let ((?x12 (ite $x209 ?x97 (- ?x97))))
(let ((?x107 (+ xa ?x99)))
(let (($x21 (>= ?x107 0.0)))
(let ((?x164 (ite $x21 ?x107 (- ?x107))))
(let ((?x17 (* (- 1.0) ?x164)))
(let ((?x88 (+ ?x17 ?x12)))
(let ((?x38 (* epsilon ?x88)))
(let ((?x45 (* ?x38 1.0)))
(> ?x45 ?x190)))))))))))))))
(check-sat)
