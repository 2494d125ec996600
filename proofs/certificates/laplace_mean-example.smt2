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
 (let ((?t0 (* (- 1.0) z0)))
(let ((?t1 (+ xb ?t0)))
(let (($t2 (>= ?t1 0.0)))
(let ((?t3 (* (- 1.0) (ite (>= (+ xa ?t0) 0.0) (+ xa ?t0) (- (+ xa ?t0))))))
(> (* (+ ?t3 (ite $t2 ?t1 (- ?t1))) 1.0) (* 1.0 2.0)))))))
(check-sat)
