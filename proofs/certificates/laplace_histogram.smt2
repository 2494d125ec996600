; ldpaudit 0.1.0 certificate: Laplace histogram: PROVED epsilon-LDP for all 2 <= K (integer), 0 < epsilon
; re-check: z3 laplace_histogram.smt2   (every line of output must be unsat)
; query 1: no obligation can fail (expected: unsat)
; Laplace histogram: epsilon-LDP: some obligation fails (denominators cleared)
; obligation: epsilon*Abs(z1)/2 - epsilon*Abs(z2)/2 - epsilon*Abs(z1 - 1)/2 + epsilon*Abs(z2 - 1)/2 <= epsilon
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun epsilon () Real)
(declare-fun z2 () Real)
(declare-fun z1 () Real)
(assert
 (< 0.0 epsilon))
(assert
 (let ((?t0 (+ (- 1.0) z2)))
(let ((?t1 (+ (- 1.0) z1)))
(let ((?t2 (+ (* (- 1.0) (ite (>= z2 0.0) z2 (- z2))) (* (- 1.0) (ite (>= ?t1 0.0) ?t1 (- ?t1))) (ite (>= z1 0.0) z1 (- z1)) (ite (>= ?t0 0.0) ?t0 (- ?t0)))))
(> (* (* epsilon ?t2) 1.0) (* epsilon 2.0))))))
(check-sat)
