; ldpaudit 0.1.0 certificate: Duchi binary mean: PROVED epsilon-LDP for all 0 < B, 0 < epsilon, all x, x' in [-B, B]
; re-check: z3 duchi_binary_mean.smt2   (every line of output must be unsat)
; query 1: no obligation can fail (expected: unsat)
; Duchi binary mean: epsilon-LDP for all real inputs: some obligation fails (denominators cleared)
; obligation: 1/2 - xa*(exp(epsilon) - 1)/(2*B*(exp(epsilon) + 1)) <= e^claim * 1/2 - xb*(exp(epsilon) - 1)/(2*B*(exp(epsilon) + 1))
; obligation: 1/2 + xa*(exp(epsilon) - 1)/(2*B*(exp(epsilon) + 1)) <= e^claim * 1/2 + xb*(exp(epsilon) - 1)/(2*B*(exp(epsilon) + 1))
; e^claim = exp(epsilon)
; u_epsilon = exp(epsilon)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun B () Real)
(declare-fun u_epsilon () Real)
(declare-fun xa () Real)
(declare-fun xb () Real)
(assert
 (< 0.0 B))
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (let ((?t0 (* (- 1.0) B)))
 (>= xa ?t0)))
(assert
 (<= xa B))
(assert
 (let ((?t0 (* (- 1.0) B)))
 (>= xb ?t0)))
(assert
 (<= xb B))
(assert
 (let ((?t1 (+ 1.0 u_epsilon)))
(let ((?t2 (* 2.0 B ?t1)))
(let ((?t3 (* u_epsilon (+ (* xb (+ (- 1.0) u_epsilon)) (* B ?t1)) ?t2)))
(let (($t4 (> (* (+ (* xa (+ (- 1.0) u_epsilon)) (* B ?t1)) ?t2 1.0) ?t3)))
(let ((?t5 (* u_epsilon (+ (* B ?t1) (* (- 1.0) xb (+ (- 1.0) u_epsilon))) ?t2)))
(let ((?t6 (* (+ (* B ?t1) (* (- 1.0) xa (+ (- 1.0) u_epsilon))) ?t2 1.0)))
(or (> ?t6 ?t5) $t4))))))))
(check-sat)
