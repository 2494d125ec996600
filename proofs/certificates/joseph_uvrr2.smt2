; ldpaudit 0.1.0 certificate: Joseph UVRR2: PROVED epsilon-LDP for all 0 < epsilon, mu1 in R (public), 0 < r (public)
; re-check: z3 joseph_uvrr2.smt2   (every line of output must be unsat)
; query 1: no obligation can fail (expected: unsat)
; Joseph UVRR2: epsilon-LDP: some obligation fails (denominators cleared)
; obligation: -epsilon*Abs(z0 - Min(mu1 + r, Max(xa, mu1 - r)))/(2*r) + epsilon*Abs(z0 - Min(mu1 + r, Max(xb, mu1 - r)))/(2*r) <= epsilon
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun epsilon () Real)
(declare-fun r () Real)
(declare-fun mu1 () Real)
(declare-fun xb () Real)
(declare-fun z0 () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 epsilon))
(assert
 (< 0.0 r))
(assert
 (let ((?t0 (+ mu1 r)))
(let ((?t1 (* (- 1.0) r)))
(let ((?t2 (+ mu1 ?t1)))
(let ((?t3 (ite (> ?t2 xb) ?t2 xb)))
(let ((?t4 (+ z0 (* (- 1.0) (ite (< ?t3 ?t0) ?t3 ?t0)))))
(let ((?t5 (ite (> ?t2 xa) ?t2 xa)))
(let ((?t6 (+ z0 (* (- 1.0) (ite (< ?t5 ?t0) ?t5 ?t0)))))
(let ((?t7 (+ (* (- 1.0) (ite (>= ?t6 0.0) ?t6 (- ?t6))) (ite (>= ?t4 0.0) ?t4 (- ?t4)))))
(> (* (* epsilon ?t7) 1.0) (* epsilon (* 2.0 r))))))))))))
(check-sat)
