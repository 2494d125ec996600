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
 (let ((?t0 (* (- 1.0) M)))
 (>= xa ?t0)))
(assert
 (<= xa M))
(assert
 (let ((?t0 (* (- 1.0) M)))
 (>= xb ?t0)))
(assert
 (<= xb M))
(assert
 (< 0.0 M))
(assert
 (let ((?t1 (* (- 1.0) z0)))
(let ((?t2 (+ xb ?t1)))
(let (($t3 (>= ?t2 0.0)))
(let ((?t4 (* (- 1.0) (ite (>= (+ xa ?t1) 0.0) (+ xa ?t1) (- (+ xa ?t1))))))
(> (* (* epsilon (+ ?t4 (ite $t3 ?t2 (- ?t2)))) 1.0) (* epsilon (* 2.0 M))))))))
(check-sat)
