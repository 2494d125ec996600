; ldpaudit 0.1.0 certificate: O-RAPPOR: PROVED epsilon-LDP for all 2 <= d (integer), 1 <= C (integer), 2 <= k (integer), 1 <= h <= k (integer), 0 < epsilon
; re-check: z3 orappor.smt2   (every line of output must be unsat)
; query 1: no (a, b, v, w) with a·L_on(v) + b·L_off(w) > claim (expected: unsat)
; O-RAPPOR: some bit pattern exceeds e^(epsilon)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun h () Real)
(declare-fun k () Real)
(declare-fun epsilon () Real)
(declare-fun a () Real)
(declare-fun b () Real)
(assert
 (<= 1.0 h))
(assert
 (<= h k))
(assert
 (< 0.0 epsilon))
(assert
 (<= 2.0 k))
(assert
 (>= a 0.0))
(assert
 (>= b 0.0))
(assert
 (<= a h))
(assert
 (<= b h))
(assert
 (let ((?t0 (/ 1.0 h)))
(let ((?t1 (* (- (/ 1.0 2.0)) epsilon ?t0)))
(let ((?t2 (* b ?t1)))
(let ((?t3 (* (/ 1.0 2.0) epsilon ?t0)))
(let ((?t4 (* a ?t3)))
(or (> (+ (* a ?t1) (* b ?t3)) epsilon) (> (+ (* a ?t1) ?t2) epsilon) (> (+ ?t4 (* b ?t3)) epsilon) (> (+ ?t4 ?t2) epsilon))))))))
(check-sat)
