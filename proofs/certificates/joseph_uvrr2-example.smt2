; ldpaudit 0.1.0 certificate: Joseph UVRR2: PROVED 1-LDP
; re-check: z3 joseph_uvrr2-example.smt2   (every line of output must be unsat)
; query 1: no obligation can fail (expected: unsat)
; Joseph UVRR2: 1-LDP: some obligation fails (denominators cleared)
; obligation: -Abs(z0 - Min(5, Max(1, xa)))/4 + Abs(z0 - Min(5, Max(1, xb)))/4 <= 1
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xb () Real)
(declare-fun z0 () Real)
(declare-fun xa () Real)
(assert
 (let ((?t0 (ite (< 1.0 xb) xb 1.0)))
(let ((?t1 (+ z0 (* (- 1.0) (ite (> 5.0 ?t0) ?t0 5.0)))))
(let ((?t2 (ite (< 1.0 xa) xa 1.0)))
(let ((?t3 (+ z0 (* (- 1.0) (ite (> 5.0 ?t2) ?t2 5.0)))))
(let ((?t4 (+ (* (- 1.0) (ite (>= ?t3 0.0) ?t3 (- ?t3))) (ite (>= ?t1 0.0) ?t1 (- ?t1)))))
(> (* ?t4 1.0) (* 1.0 4.0))))))))
(check-sat)
