; ldpaudit 0.1.0 certificate: O-RAPPOR: PROVED 1-LDP
; re-check: z3 orappor-example.smt2   (every line of output must be unsat)
; query 1: no (a, b, v, w) with a·L_on(v) + b·L_off(w) > claim (expected: unsat)
; O-RAPPOR: some bit pattern exceeds e^(1)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun a () Real)
(declare-fun b () Real)
(assert
 (>= a 0.0))
(assert
 (>= b 0.0))
(assert
 (>= 2.0 a))
(assert
 (>= 2.0 b))
(assert
 (or (< 1.0 (+ (* a (- (/ 1.0 4.0))) (* b (/ 1.0 4.0)))) (< 1.0 (+ (* a (- (/ 1.0 4.0))) (* b (- (/ 1.0 4.0))))) (< 1.0 (+ (* a (/ 1.0 4.0)) (* b (/ 1.0 4.0)))) (< 1.0 (+ (* a (/ 1.0 4.0)) (* b (- (/ 1.0 4.0)))))))
(check-sat)
