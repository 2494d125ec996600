; ldpaudit 0.1.0 certificate: Laplace histogram: PROVED 1-LDP
; re-check: z3 laplace_histogram-example.smt2   (every line of output must be unsat)
; query 1: no obligation can fail (expected: unsat)
; Laplace histogram: 1-LDP: some obligation fails (denominators cleared)
; obligation: Abs(z1)/2 - Abs(z2)/2 - Abs(z1 - 1)/2 + Abs(z2 - 1)/2 <= 1
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun z2 () Real)
(declare-fun z1 () Real)
(assert
 (let ((?t0 (+ (- 1.0) z2)))
(let ((?t1 (+ (- 1.0) z1)))
(let ((?t2 (+ (* (- 1.0) (ite (>= z2 0.0) z2 (- z2))) (* (- 1.0) (ite (>= ?t1 0.0) ?t1 (- ?t1))) (ite (>= z1 0.0) z1 (- z1)) (ite (>= ?t0 0.0) ?t0 (- ?t0)))))
(> (* ?t2 1.0) (* 1.0 2.0))))))
(check-sat)
