; ldpaudit 0.1.0 certificate: Hybrid mechanism, d dimensions: PROVED epsilon-LDP for all 0 < epsilon, 1 <= d (integer), 1 <= k <= d (integer), 0 <= beta <= 1
; re-check: z3 hybrid_multidim.smt2   (every line of output must be unsat)
; query 1: one coordinate at ε/k: weight of component 1 >= 0 (expected: unsat)
; Hybrid mechanism, d dimensions (one coordinate): the weight of component 1 is negative somewhere
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun beta () Real)
(assert
 (<= 0.0 beta))
(assert
 (>= 1.0 beta))
(assert
 (let ((?t0 (+ 1.0 (* (- 1.0) beta))))
(< ?t0 0.0)))
(check-sat)
(reset)
; query 2: one coordinate at ε/k: the breakpoints never lie in the order (0, 1, 2, 3) (expected: unsat)
; can the breakpoints lie in the order (0, 1, 2, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon_per_coordinate () Real)
(declare-fun xa () Real)
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ (- 2.0) (* 2.0 u_epsilon_per_coordinate))))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (* (- 1.0) u_epsilon_per_coordinate)))
 (let ((?t2 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (> (+ ?t2 ?t1 (* xa u_epsilon_per_coordinate) (* (- 1.0) xa ?t2)) 0.0))))
(assert
 (let ((?t3 (+ 2.0 (* (- 2.0) (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))))
(> ?t3 0.0)))
(check-sat)
(reset)
; query 3: one coordinate at ε/k: the breakpoints never lie in the order (0, 1, 3) (expected: unsat)
; can the breakpoints lie in the order (0, 1, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon_per_coordinate () Real)
(declare-fun xa () Real)
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ (- 2.0) (* 2.0 u_epsilon_per_coordinate))))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
(let ((?t2 (* (- 1.0) ?t1)))
(let ((?t3 (* (- 1.0) u_epsilon_per_coordinate)))
(let ((?t4 (+ 2.0 ?t3 ?t2 (* xa u_epsilon_per_coordinate) (* (- 1.0) xa ?t1))))
(> ?t4 0.0))))))
(check-sat)
(reset)
; query 4: one coordinate at ε/k: the breakpoints never lie in the order (0, 2, 1) (expected: unsat)
; can the breakpoints lie in the order (0, 2, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon_per_coordinate () Real)
(declare-fun xa () Real)
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* xa u_epsilon_per_coordinate)))
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (> (+ (- 2.0) u_epsilon_per_coordinate ?t1 ?t0 (* (- 1.0) xa ?t1)) 0.0))))
(assert
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
(let ((?t2 (* (- 1.0) ?t1)))
(let ((?t3 (+ u_epsilon_per_coordinate ?t2 (* xa ?t1) (* (- 1.0) xa u_epsilon_per_coordinate))))
(> ?t3 0.0)))))
(check-sat)
(reset)
; query 5: one coordinate at ε/k: the breakpoints never lie in the order (0, 2, 3) (expected: unsat)
; can the breakpoints lie in the order (0, 2, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon_per_coordinate () Real)
(declare-fun xa () Real)
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t1 (+ (- 2.0) u_epsilon_per_coordinate ?t0 (* xa u_epsilon_per_coordinate) (* (- 1.0) xa ?t0))))
 (> ?t1 0.0))))
(assert
 (let ((?t2 (+ 2.0 (* (- 2.0) (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))))
(> ?t2 0.0)))
(check-sat)
(reset)
; query 6: one coordinate at ε/k: the breakpoints never lie in the order (0, 3) (expected: unsat)
; can the breakpoints lie in the order (0, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon_per_coordinate () Real)
(declare-fun xa () Real)
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* xa u_epsilon_per_coordinate)))
(let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
(let ((?t2 (* (- 1.0) ?t1)))
(> (+ u_epsilon_per_coordinate ?t2 ?t0 (* (- 1.0) xa ?t1)) 0.0)))))
(check-sat)
(reset)
; query 7: one coordinate at ε/k: the breakpoints never lie in the order (1, 0) (expected: unsat)
; can the breakpoints lie in the order (1, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon_per_coordinate () Real)
(declare-fun xa () Real)
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ 2.0 (* (- 2.0) u_epsilon_per_coordinate))))
(> ?t0 0.0)))
(check-sat)
(reset)
; query 8: one coordinate at ε/k: the breakpoints never lie in the order (1, 2, 0) (expected: unsat)
; can the breakpoints lie in the order (1, 2, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon_per_coordinate () Real)
(declare-fun xa () Real)
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* (- 1.0) u_epsilon_per_coordinate)))
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (> (+ ?t1 ?t0 (* xa u_epsilon_per_coordinate) (* (- 1.0) xa ?t1)) 0.0))))
(assert
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
(let ((?t2 (* (- 1.0) ?t1)))
(let ((?t0 (* (- 1.0) u_epsilon_per_coordinate)))
(let ((?t3 (+ 2.0 ?t0 ?t2 (* xa ?t1) (* (- 1.0) xa u_epsilon_per_coordinate))))
(> ?t3 0.0))))))
(check-sat)
(reset)
; query 9: one coordinate at ε/k: the breakpoints never lie in the order (1, 2, 3) (expected: unsat)
; can the breakpoints lie in the order (1, 2, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon_per_coordinate () Real)
(declare-fun xa () Real)
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* (- 1.0) u_epsilon_per_coordinate)))
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (> (+ ?t1 ?t0 (* xa u_epsilon_per_coordinate) (* (- 1.0) xa ?t1)) 0.0))))
(assert
 (let ((?t2 (+ 2.0 (* (- 2.0) (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))))
(> ?t2 0.0)))
(check-sat)
(reset)
; query 10: one coordinate at ε/k: the breakpoints never lie in the order (1, 3) (expected: unsat)
; can the breakpoints lie in the order (1, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon_per_coordinate () Real)
(declare-fun xa () Real)
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
(let ((?t1 (* (- 1.0) ?t0)))
(let ((?t2 (* (- 1.0) u_epsilon_per_coordinate)))
(let ((?t3 (+ 2.0 ?t2 ?t1 (* xa u_epsilon_per_coordinate) (* (- 1.0) xa ?t0))))
(> ?t3 0.0))))))
(check-sat)
(reset)
; query 11: one coordinate at ε/k: the breakpoints never lie in the order (2, 0) (expected: unsat)
; can the breakpoints lie in the order (2, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon_per_coordinate () Real)
(declare-fun xa () Real)
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
(let ((?t1 (* (- 1.0) ?t0)))
(let ((?t2 (* (- 1.0) u_epsilon_per_coordinate)))
(let ((?t3 (+ 2.0 ?t2 ?t1 (* xa ?t0) (* (- 1.0) xa u_epsilon_per_coordinate))))
(> ?t3 0.0))))))
(check-sat)
(reset)
; query 12: one coordinate at ε/k: the breakpoints never lie in the order (2, 1) (expected: unsat)
; can the breakpoints lie in the order (2, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon_per_coordinate () Real)
(declare-fun xa () Real)
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
(let ((?t1 (* (- 1.0) ?t0)))
(let ((?t2 (+ u_epsilon_per_coordinate ?t1 (* xa ?t0) (* (- 1.0) xa u_epsilon_per_coordinate))))
(> ?t2 0.0)))))
(check-sat)
(reset)
; query 13: one coordinate at ε/k: the breakpoints never lie in the order (2, 3) (expected: unsat)
; can the breakpoints lie in the order (2, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon_per_coordinate () Real)
(declare-fun xa () Real)
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ 2.0 (* (- 2.0) (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))))
(> ?t0 0.0)))
(check-sat)
(reset)
; query 14: one coordinate at ε/k: the breakpoints never lie in the order (3, 0, 2, 1) (expected: unsat)
; can the breakpoints lie in the order (3, 0, 2, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon_per_coordinate () Real)
(declare-fun xa () Real)
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* (- 1.0) xa u_epsilon_per_coordinate)))
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t2 (* xa ?t1)))
 (let ((?t3 (* (- 1.0) u_epsilon_per_coordinate)))
 (> (+ ?t1 ?t3 ?t2 ?t0) 0.0))))))
(assert
 (let ((?t4 (* xa u_epsilon_per_coordinate)))
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (> (+ (- 2.0) u_epsilon_per_coordinate ?t1 ?t4 (* (- 1.0) xa ?t1)) 0.0))))
(assert
 (let ((?t0 (* (- 1.0) xa u_epsilon_per_coordinate)))
(let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
(let ((?t2 (* xa ?t1)))
(let ((?t5 (* (- 1.0) ?t1)))
(> (+ u_epsilon_per_coordinate ?t5 ?t2 ?t0) 0.0))))))
(check-sat)
(reset)
; query 15: one coordinate at ε/k: the breakpoints never lie in the order (3, 1, 0) (expected: unsat)
; can the breakpoints lie in the order (3, 1, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon_per_coordinate () Real)
(declare-fun xa () Real)
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t1 (+ (- 2.0) u_epsilon_per_coordinate ?t0 (* xa ?t0) (* (- 1.0) xa u_epsilon_per_coordinate))))
 (> ?t1 0.0))))
(assert
 (let ((?t2 (+ 2.0 (* (- 2.0) u_epsilon_per_coordinate))))
(> ?t2 0.0)))
(check-sat)
(reset)
; query 16: one coordinate at ε/k: the breakpoints never lie in the order (3, 1, 2, 0) (expected: unsat)
; can the breakpoints lie in the order (3, 1, 2, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon_per_coordinate () Real)
(declare-fun xa () Real)
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* (- 1.0) xa u_epsilon_per_coordinate)))
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t2 (* xa ?t1)))
 (> (+ (- 2.0) u_epsilon_per_coordinate ?t1 ?t2 ?t0) 0.0)))))
(assert
 (let ((?t3 (* (- 1.0) u_epsilon_per_coordinate)))
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (> (+ ?t1 ?t3 (* xa u_epsilon_per_coordinate) (* (- 1.0) xa ?t1)) 0.0))))
(assert
 (let ((?t0 (* (- 1.0) xa u_epsilon_per_coordinate)))
(let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
(let ((?t2 (* xa ?t1)))
(let ((?t4 (* (- 1.0) ?t1)))
(let ((?t3 (* (- 1.0) u_epsilon_per_coordinate)))
(> (+ 2.0 ?t3 ?t4 ?t2 ?t0) 0.0)))))))
(check-sat)
(reset)
; query 17: one coordinate at ε/k: the breakpoints never lie in the order (3, 2, 0) (expected: unsat)
; can the breakpoints lie in the order (3, 2, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon_per_coordinate () Real)
(declare-fun xa () Real)
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ (- 2.0) (* 2.0 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
(let ((?t2 (* (- 1.0) ?t1)))
(let ((?t3 (* (- 1.0) u_epsilon_per_coordinate)))
(let ((?t4 (+ 2.0 ?t3 ?t2 (* xa ?t1) (* (- 1.0) xa u_epsilon_per_coordinate))))
(> ?t4 0.0))))))
(check-sat)
(reset)
; query 18: one coordinate at ε/k: the breakpoints never lie in the order (3, 2, 1) (expected: unsat)
; can the breakpoints lie in the order (3, 2, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon_per_coordinate () Real)
(declare-fun xa () Real)
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ (- 2.0) (* 2.0 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
(let ((?t2 (* (- 1.0) ?t1)))
(let ((?t3 (+ u_epsilon_per_coordinate ?t2 (* xa ?t1) (* (- 1.0) xa u_epsilon_per_coordinate))))
(> ?t3 0.0)))))
(check-sat)
(reset)
; query 19: one coordinate at ε/k: f >= 0 on ((-exp(epsilon_per_coordinate/2) - 1)/(exp(epsilon_per_coordinate/2) - 1), (x*exp(epsilon_per_coordinate/2) - 1)/(exp(epsilon_per_coordinate/2) - 1)) of the order (3, 0, 1, 2) (expected: unsat)
; negative density on a cell of the order (3, 0, 1, 2)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon_per_coordinate () Real)
(declare-fun xa () Real)
(declare-fun z0 () Real)
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* (- 1.0) u_epsilon_per_coordinate)))
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (> (+ ?t1 ?t0 (* xa ?t1) (* (- 1.0) xa u_epsilon_per_coordinate)) 0.0))))
(assert
 (let ((?t2 (* 2.0 u_epsilon_per_coordinate)))
 (let ((?t3 (+ (- 2.0) ?t2)))
 (> ?t3 0.0))))
(assert
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t4 (* (- 1.0) xa ?t1)))
 (let ((?t5 (* xa u_epsilon_per_coordinate)))
 (let ((?t0 (* (- 1.0) u_epsilon_per_coordinate)))
 (> (+ ?t1 ?t0 ?t5 ?t4) 0.0))))))
(assert
 (let ((?t6 (* (- 2.0) z0 u_epsilon_per_coordinate)))
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t7 (* z0 ?t1)))
 (> (+ (- 1.0) z0 ?t1 ?t7 ?t6) 0.0)))))
(assert
 (let ((?t6 (* (- 2.0) z0 u_epsilon_per_coordinate)))
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t4 (* (- 1.0) xa ?t1)))
 (let ((?t7 (* z0 ?t1)))
 (let ((?t5 (* xa u_epsilon_per_coordinate)))
 (< (+ (- 1.0) z0 u_epsilon_per_coordinate ?t5 ?t7 ?t4 ?t6) 0.0)))))))
(assert
 (let ((?t8 (* u_epsilon_per_coordinate u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t9 (+ (* (- 2.0) u_epsilon_per_coordinate) (* 2.0 ?t8))))
 (< ?t9 0.0))))
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(check-sat)
(reset)
; query 20: one coordinate at ε/k: f >= 0 on ((x*exp(epsilon_per_coordinate/2) - 1)/(exp(epsilon_per_coordinate/2) - 1), (x*exp(epsilon_per_coordinate/2) + 1)/(exp(epsilon_per_coordinate/2) - 1)) of the order (3, 0, 1, 2) (expected: unsat)
; negative density on a cell of the order (3, 0, 1, 2)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon_per_coordinate () Real)
(declare-fun xa () Real)
(declare-fun z0 () Real)
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* (- 1.0) u_epsilon_per_coordinate)))
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (> (+ ?t1 ?t0 (* xa ?t1) (* (- 1.0) xa u_epsilon_per_coordinate)) 0.0))))
(assert
 (let ((?t2 (* 2.0 u_epsilon_per_coordinate)))
 (let ((?t3 (+ (- 2.0) ?t2)))
 (> ?t3 0.0))))
(assert
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t4 (* (- 1.0) xa ?t1)))
 (let ((?t5 (* xa u_epsilon_per_coordinate)))
 (let ((?t0 (* (- 1.0) u_epsilon_per_coordinate)))
 (> (+ ?t1 ?t0 ?t5 ?t4) 0.0))))))
(assert
 (let ((?t6 (* (- 2.0) z0 u_epsilon_per_coordinate)))
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t4 (* (- 1.0) xa ?t1)))
 (let ((?t7 (* z0 ?t1)))
 (let ((?t5 (* xa u_epsilon_per_coordinate)))
 (> (+ (- 1.0) z0 u_epsilon_per_coordinate ?t5 ?t7 ?t4 ?t6) 0.0)))))))
(assert
 (let ((?t6 (* (- 2.0) z0 u_epsilon_per_coordinate)))
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t4 (* (- 1.0) xa ?t1)))
 (let ((?t7 (* z0 ?t1)))
 (let ((?t5 (* xa u_epsilon_per_coordinate)))
 (let ((?t0 (* (- 1.0) u_epsilon_per_coordinate)))
 (< (+ 1.0 z0 ?t0 ?t5 ?t7 ?t4 ?t6) 0.0))))))))
(assert
 (let ((?t8 (* u_epsilon_per_coordinate u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t9 (+ (* (- 2.0) u_epsilon_per_coordinate) (* 2.0 ?t8))))
 (< ?t9 0.0))))
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(check-sat)
(reset)
; query 21: one coordinate at ε/k: f >= 0 on ((x*exp(epsilon_per_coordinate/2) + 1)/(exp(epsilon_per_coordinate/2) - 1), (exp(epsilon_per_coordinate/2) + 1)/(exp(epsilon_per_coordinate/2) - 1)) of the order (3, 0, 1, 2) (expected: unsat)
; negative density on a cell of the order (3, 0, 1, 2)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon_per_coordinate () Real)
(declare-fun xa () Real)
(declare-fun z0 () Real)
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* (- 1.0) u_epsilon_per_coordinate)))
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (> (+ ?t1 ?t0 (* xa ?t1) (* (- 1.0) xa u_epsilon_per_coordinate)) 0.0))))
(assert
 (let ((?t2 (* 2.0 u_epsilon_per_coordinate)))
 (let ((?t3 (+ (- 2.0) ?t2)))
 (> ?t3 0.0))))
(assert
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t4 (* (- 1.0) xa ?t1)))
 (let ((?t5 (* xa u_epsilon_per_coordinate)))
 (let ((?t0 (* (- 1.0) u_epsilon_per_coordinate)))
 (> (+ ?t1 ?t0 ?t5 ?t4) 0.0))))))
(assert
 (let ((?t6 (* (- 2.0) z0 u_epsilon_per_coordinate)))
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t4 (* (- 1.0) xa ?t1)))
 (let ((?t7 (* z0 ?t1)))
 (let ((?t5 (* xa u_epsilon_per_coordinate)))
 (let ((?t0 (* (- 1.0) u_epsilon_per_coordinate)))
 (> (+ 1.0 z0 ?t0 ?t5 ?t7 ?t4 ?t6) 0.0))))))))
(assert
 (let ((?t6 (* (- 2.0) z0 u_epsilon_per_coordinate)))
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t7 (* z0 ?t1)))
 (let ((?t8 (* (- 1.0) ?t1)))
 (< (+ 1.0 z0 ?t8 ?t7 ?t6) 0.0))))))
(assert
 (let ((?t9 (* u_epsilon_per_coordinate u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t10 (+ (* (- 2.0) u_epsilon_per_coordinate) (* 2.0 ?t9))))
 (< ?t10 0.0))))
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(check-sat)
(reset)
; query 22: one coordinate at ε/k: branch 0 at x <= e^claim branch 0 at x' (expected: unsat)
; Hybrid mechanism, d dimensions (one coordinate) [component 0: density]: branch 0 at x exceeds e^claim times branch 0 at x'
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon_per_coordinate () Real)
(declare-fun xa () Real)
(declare-fun xb () Real)
(declare-fun z0 () Real)
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (<= (- 1.0) xb))
(assert
 (>= 1.0 xb))
(assert
 (let ((?t0 (* (- 2.0) z0 u_epsilon_per_coordinate)))
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t2 (* (- 1.0) xa ?t1)))
 (let ((?t3 (* z0 ?t1)))
 (let ((?t4 (* xa u_epsilon_per_coordinate)))
 (let ((?t5 (* (- 1.0) u_epsilon_per_coordinate)))
 (let (($t6 (>= (+ (- 1.0) z0 u_epsilon_per_coordinate ?t4 ?t3 ?t2 ?t0) 0.0)))
 (and $t6 (<= (+ 1.0 z0 ?t5 ?t4 ?t3 ?t2 ?t0) 0.0))))))))))
(assert
 (let ((?t0 (* (- 2.0) z0 u_epsilon_per_coordinate)))
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t7 (* (- 1.0) xb ?t1)))
 (let ((?t3 (* z0 ?t1)))
 (let ((?t8 (* xb u_epsilon_per_coordinate)))
 (let ((?t5 (* (- 1.0) u_epsilon_per_coordinate)))
 (let (($t9 (>= (+ (- 1.0) z0 u_epsilon_per_coordinate ?t8 ?t3 ?t7 ?t0) 0.0)))
 (and $t9 (<= (+ 1.0 z0 ?t5 ?t8 ?t3 ?t7 ?t0) 0.0))))))))))
(assert
 (let ((?t10 (* u_epsilon_per_coordinate u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t11 (* u_epsilon_per_coordinate u_epsilon_per_coordinate u_epsilon_per_coordinate u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t12 (+ (* (- 2.0) u_epsilon_per_coordinate) (* (- 2.0) ?t11) (* 4.0 ?t10))))
 (> ?t12 0.0)))))
(assert
 (let ((?t13 (* (- 1.0) xa u_epsilon_per_coordinate)))
 (let ((?t14 (* z0 u_epsilon_per_coordinate)))
 (let ((?t15 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 ?t15 ?t14 ?t13) 0.0) true)))))
(assert
 (let ((?t13 (* (- 1.0) xa u_epsilon_per_coordinate)))
 (let ((?t14 (* z0 u_epsilon_per_coordinate)))
 (let ((?t15 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t15 ?t14 ?t13) 0.0) true)))))
(assert
 (let ((?t14 (* z0 u_epsilon_per_coordinate)))
 (let ((?t5 (* (- 1.0) u_epsilon_per_coordinate)))
 (let ((?t15 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t15 ?t5 ?t14) 0.0) true)))))
(assert
 (let ((?t14 (* z0 u_epsilon_per_coordinate)))
 (let ((?t15 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 u_epsilon_per_coordinate ?t15 ?t14) 0.0) true))))
(assert
 (let ((?t16 (* (- 1.0) xb u_epsilon_per_coordinate)))
 (let ((?t14 (* z0 u_epsilon_per_coordinate)))
 (let ((?t15 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 ?t15 ?t14 ?t16) 0.0) true)))))
(assert
 (let ((?t16 (* (- 1.0) xb u_epsilon_per_coordinate)))
 (let ((?t14 (* z0 u_epsilon_per_coordinate)))
 (let ((?t15 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t15 ?t14 ?t16) 0.0) true)))))
(assert
 (let ((?t14 (* z0 u_epsilon_per_coordinate)))
 (let ((?t5 (* (- 1.0) u_epsilon_per_coordinate)))
 (let ((?t15 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t15 ?t5 ?t14) 0.0) true)))))
(assert
 (let ((?t14 (* z0 u_epsilon_per_coordinate)))
 (let ((?t15 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 u_epsilon_per_coordinate ?t15 ?t14) 0.0) true))))
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (<= (- 1.0) xb))
(assert
 (>= 1.0 xb))
(check-sat)
(reset)
; query 23: one coordinate at ε/k: branch 0 at x <= e^claim branch 1 at x' (expected: unsat)
; Hybrid mechanism, d dimensions (one coordinate) [component 0: density]: branch 0 at x exceeds e^claim times branch 1 at x'
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon_per_coordinate () Real)
(declare-fun xa () Real)
(declare-fun xb () Real)
(declare-fun z0 () Real)
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (<= (- 1.0) xb))
(assert
 (>= 1.0 xb))
(assert
 (let ((?t0 (* (- 2.0) z0 u_epsilon_per_coordinate)))
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t2 (* (- 1.0) xa ?t1)))
 (let ((?t3 (* z0 ?t1)))
 (let ((?t4 (* xa u_epsilon_per_coordinate)))
 (let ((?t5 (* (- 1.0) u_epsilon_per_coordinate)))
 (let (($t6 (>= (+ (- 1.0) z0 u_epsilon_per_coordinate ?t4 ?t3 ?t2 ?t0) 0.0)))
 (and $t6 (<= (+ 1.0 z0 ?t5 ?t4 ?t3 ?t2 ?t0) 0.0))))))))))
(assert
 (let ((?t0 (* (- 2.0) z0 u_epsilon_per_coordinate)))
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t7 (* (- 1.0) xb ?t1)))
 (let ((?t3 (* z0 ?t1)))
 (let ((?t8 (* xb u_epsilon_per_coordinate)))
 (let ((?t5 (* (- 1.0) u_epsilon_per_coordinate)))
 (let (($t9 (>= (+ (- 1.0) z0 u_epsilon_per_coordinate ?t8 ?t3 ?t7 ?t0) 0.0)))
 (let (($t10 (not (and $t9 (<= (+ 1.0 z0 ?t5 ?t8 ?t3 ?t7 ?t0) 0.0)))))
 (let (($t11 (and (<= (+ 1.0 z0 (* (- 1.0) ?t1) ?t3 ?t0) 0.0) (>= (+ (- 1.0) z0 ?t1 ?t3 ?t0) 0.0))))
 (and $t11 $t10)))))))))))
(assert
 (> 0.0 0.0))
(assert
 (let ((?t12 (* (- 1.0) xa u_epsilon_per_coordinate)))
 (let ((?t13 (* z0 u_epsilon_per_coordinate)))
 (let ((?t14 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 ?t14 ?t13 ?t12) 0.0) true)))))
(assert
 (let ((?t12 (* (- 1.0) xa u_epsilon_per_coordinate)))
 (let ((?t13 (* z0 u_epsilon_per_coordinate)))
 (let ((?t14 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t14 ?t13 ?t12) 0.0) true)))))
(assert
 (let ((?t13 (* z0 u_epsilon_per_coordinate)))
 (let ((?t5 (* (- 1.0) u_epsilon_per_coordinate)))
 (let ((?t14 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t14 ?t5 ?t13) 0.0) true)))))
(assert
 (let ((?t13 (* z0 u_epsilon_per_coordinate)))
 (let ((?t14 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 u_epsilon_per_coordinate ?t14 ?t13) 0.0) true))))
(assert
 (let ((?t15 (* (- 1.0) xb u_epsilon_per_coordinate)))
 (let ((?t13 (* z0 u_epsilon_per_coordinate)))
 (let ((?t14 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 ?t14 ?t13 ?t15) 0.0) true)))))
(assert
 (let ((?t15 (* (- 1.0) xb u_epsilon_per_coordinate)))
 (let ((?t13 (* z0 u_epsilon_per_coordinate)))
 (let ((?t14 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t14 ?t13 ?t15) 0.0) true)))))
(assert
 (let ((?t13 (* z0 u_epsilon_per_coordinate)))
 (let ((?t5 (* (- 1.0) u_epsilon_per_coordinate)))
 (let ((?t14 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t14 ?t5 ?t13) 0.0) true)))))
(assert
 (let ((?t13 (* z0 u_epsilon_per_coordinate)))
 (let ((?t14 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 u_epsilon_per_coordinate ?t14 ?t13) 0.0) true))))
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (<= (- 1.0) xb))
(assert
 (>= 1.0 xb))
(check-sat)
(reset)
; query 24: one coordinate at ε/k: branch 0 at x <= e^claim branch 2 at x' (expected: unsat)
; Hybrid mechanism, d dimensions (one coordinate) [component 0: density]: branch 0 at x exceeds e^claim times branch 2 at x'
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon_per_coordinate () Real)
(declare-fun xa () Real)
(declare-fun xb () Real)
(declare-fun z0 () Real)
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (<= (- 1.0) xb))
(assert
 (>= 1.0 xb))
(assert
 (let ((?t0 (* (- 2.0) z0 u_epsilon_per_coordinate)))
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t2 (* (- 1.0) xa ?t1)))
 (let ((?t3 (* z0 ?t1)))
 (let ((?t4 (* xa u_epsilon_per_coordinate)))
 (let ((?t5 (* (- 1.0) u_epsilon_per_coordinate)))
 (let (($t6 (>= (+ (- 1.0) z0 u_epsilon_per_coordinate ?t4 ?t3 ?t2 ?t0) 0.0)))
 (and $t6 (<= (+ 1.0 z0 ?t5 ?t4 ?t3 ?t2 ?t0) 0.0))))))))))
(assert
 (let ((?t0 (* (- 2.0) z0 u_epsilon_per_coordinate)))
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t3 (* z0 ?t1)))
 (let (($t7 (and (<= (+ 1.0 z0 (* (- 1.0) ?t1) ?t3 ?t0) 0.0) (>= (+ (- 1.0) z0 ?t1 ?t3 ?t0) 0.0))))
 (let ((?t8 (* (- 1.0) xb ?t1)))
 (let ((?t9 (* xb u_epsilon_per_coordinate)))
 (let ((?t5 (* (- 1.0) u_epsilon_per_coordinate)))
 (let (($t10 (>= (+ (- 1.0) z0 u_epsilon_per_coordinate ?t9 ?t3 ?t8 ?t0) 0.0)))
 (let (($t11 (not (and $t10 (<= (+ 1.0 z0 ?t5 ?t9 ?t3 ?t8 ?t0) 0.0)))))
 (and true $t11 (not $t7))))))))))))
(assert
 (let ((?t12 (* u_epsilon_per_coordinate u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t13 (+ (* (- 2.0) u_epsilon_per_coordinate) (* 2.0 ?t12))))
 (> ?t13 0.0))))
(assert
 (let ((?t14 (* (- 1.0) xa u_epsilon_per_coordinate)))
 (let ((?t15 (* z0 u_epsilon_per_coordinate)))
 (let ((?t16 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 ?t16 ?t15 ?t14) 0.0) true)))))
(assert
 (let ((?t14 (* (- 1.0) xa u_epsilon_per_coordinate)))
 (let ((?t15 (* z0 u_epsilon_per_coordinate)))
 (let ((?t16 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t16 ?t15 ?t14) 0.0) true)))))
(assert
 (let ((?t15 (* z0 u_epsilon_per_coordinate)))
 (let ((?t5 (* (- 1.0) u_epsilon_per_coordinate)))
 (let ((?t16 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t16 ?t5 ?t15) 0.0) true)))))
(assert
 (let ((?t15 (* z0 u_epsilon_per_coordinate)))
 (let ((?t16 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 u_epsilon_per_coordinate ?t16 ?t15) 0.0) true))))
(assert
 (let ((?t17 (* (- 1.0) xb u_epsilon_per_coordinate)))
 (let ((?t15 (* z0 u_epsilon_per_coordinate)))
 (let ((?t16 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 ?t16 ?t15 ?t17) 0.0) true)))))
(assert
 (let ((?t17 (* (- 1.0) xb u_epsilon_per_coordinate)))
 (let ((?t15 (* z0 u_epsilon_per_coordinate)))
 (let ((?t16 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t16 ?t15 ?t17) 0.0) true)))))
(assert
 (let ((?t15 (* z0 u_epsilon_per_coordinate)))
 (let ((?t5 (* (- 1.0) u_epsilon_per_coordinate)))
 (let ((?t16 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t16 ?t5 ?t15) 0.0) true)))))
(assert
 (let ((?t15 (* z0 u_epsilon_per_coordinate)))
 (let ((?t16 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 u_epsilon_per_coordinate ?t16 ?t15) 0.0) true))))
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (<= (- 1.0) xb))
(assert
 (>= 1.0 xb))
(check-sat)
(reset)
; query 25: one coordinate at ε/k: branch 1 at x <= e^claim branch 0 at x' (expected: unsat)
; Hybrid mechanism, d dimensions (one coordinate) [component 0: density]: branch 1 at x exceeds e^claim times branch 0 at x'
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon_per_coordinate () Real)
(declare-fun xa () Real)
(declare-fun xb () Real)
(declare-fun z0 () Real)
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (<= (- 1.0) xb))
(assert
 (>= 1.0 xb))
(assert
 (let ((?t0 (* (- 2.0) z0 u_epsilon_per_coordinate)))
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t2 (* (- 1.0) xa ?t1)))
 (let ((?t3 (* z0 ?t1)))
 (let ((?t4 (* xa u_epsilon_per_coordinate)))
 (let ((?t5 (* (- 1.0) u_epsilon_per_coordinate)))
 (let (($t6 (>= (+ (- 1.0) z0 u_epsilon_per_coordinate ?t4 ?t3 ?t2 ?t0) 0.0)))
 (let (($t7 (not (and $t6 (<= (+ 1.0 z0 ?t5 ?t4 ?t3 ?t2 ?t0) 0.0)))))
 (let (($t8 (and (<= (+ 1.0 z0 (* (- 1.0) ?t1) ?t3 ?t0) 0.0) (>= (+ (- 1.0) z0 ?t1 ?t3 ?t0) 0.0))))
 (and $t8 $t7)))))))))))
(assert
 (let ((?t0 (* (- 2.0) z0 u_epsilon_per_coordinate)))
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t9 (* (- 1.0) xb ?t1)))
 (let ((?t3 (* z0 ?t1)))
 (let ((?t10 (* xb u_epsilon_per_coordinate)))
 (let ((?t5 (* (- 1.0) u_epsilon_per_coordinate)))
 (let (($t11 (>= (+ (- 1.0) z0 u_epsilon_per_coordinate ?t10 ?t3 ?t9 ?t0) 0.0)))
 (and $t11 (<= (+ 1.0 z0 ?t5 ?t10 ?t3 ?t9 ?t0) 0.0))))))))))
(assert
 (let ((?t12 (* u_epsilon_per_coordinate u_epsilon_per_coordinate u_epsilon_per_coordinate u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t13 (* u_epsilon_per_coordinate u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t14 (+ (* (- 2.0) u_epsilon_per_coordinate) (* (- 2.0) (^ u_epsilon_per_coordinate 7.0)) (* 2.0 ?t13) (* 2.0 ?t12))))
 (> ?t14 0.0)))))
(assert
 (let ((?t15 (* (- 1.0) xa u_epsilon_per_coordinate)))
 (let ((?t16 (* z0 u_epsilon_per_coordinate)))
 (let ((?t17 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 ?t17 ?t16 ?t15) 0.0) true)))))
(assert
 (let ((?t15 (* (- 1.0) xa u_epsilon_per_coordinate)))
 (let ((?t16 (* z0 u_epsilon_per_coordinate)))
 (let ((?t17 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t17 ?t16 ?t15) 0.0) true)))))
(assert
 (let ((?t16 (* z0 u_epsilon_per_coordinate)))
 (let ((?t5 (* (- 1.0) u_epsilon_per_coordinate)))
 (let ((?t17 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t17 ?t5 ?t16) 0.0) true)))))
(assert
 (let ((?t16 (* z0 u_epsilon_per_coordinate)))
 (let ((?t17 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 u_epsilon_per_coordinate ?t17 ?t16) 0.0) true))))
(assert
 (let ((?t18 (* (- 1.0) xb u_epsilon_per_coordinate)))
 (let ((?t16 (* z0 u_epsilon_per_coordinate)))
 (let ((?t17 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 ?t17 ?t16 ?t18) 0.0) true)))))
(assert
 (let ((?t18 (* (- 1.0) xb u_epsilon_per_coordinate)))
 (let ((?t16 (* z0 u_epsilon_per_coordinate)))
 (let ((?t17 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t17 ?t16 ?t18) 0.0) true)))))
(assert
 (let ((?t16 (* z0 u_epsilon_per_coordinate)))
 (let ((?t5 (* (- 1.0) u_epsilon_per_coordinate)))
 (let ((?t17 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t17 ?t5 ?t16) 0.0) true)))))
(assert
 (let ((?t16 (* z0 u_epsilon_per_coordinate)))
 (let ((?t17 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 u_epsilon_per_coordinate ?t17 ?t16) 0.0) true))))
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (<= (- 1.0) xb))
(assert
 (>= 1.0 xb))
(check-sat)
(reset)
; query 26: one coordinate at ε/k: branch 1 at x <= e^claim branch 1 at x' (expected: unsat)
; Hybrid mechanism, d dimensions (one coordinate) [component 0: density]: branch 1 at x exceeds e^claim times branch 1 at x'
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon_per_coordinate () Real)
(declare-fun xa () Real)
(declare-fun xb () Real)
(declare-fun z0 () Real)
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (<= (- 1.0) xb))
(assert
 (>= 1.0 xb))
(assert
 (let ((?t0 (* (- 2.0) z0 u_epsilon_per_coordinate)))
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t2 (* (- 1.0) xa ?t1)))
 (let ((?t3 (* z0 ?t1)))
 (let ((?t4 (* xa u_epsilon_per_coordinate)))
 (let ((?t5 (* (- 1.0) u_epsilon_per_coordinate)))
 (let (($t6 (>= (+ (- 1.0) z0 u_epsilon_per_coordinate ?t4 ?t3 ?t2 ?t0) 0.0)))
 (let (($t7 (not (and $t6 (<= (+ 1.0 z0 ?t5 ?t4 ?t3 ?t2 ?t0) 0.0)))))
 (let (($t8 (and (<= (+ 1.0 z0 (* (- 1.0) ?t1) ?t3 ?t0) 0.0) (>= (+ (- 1.0) z0 ?t1 ?t3 ?t0) 0.0))))
 (and $t8 $t7)))))))))))
(assert
 (let ((?t0 (* (- 2.0) z0 u_epsilon_per_coordinate)))
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t9 (* (- 1.0) xb ?t1)))
 (let ((?t3 (* z0 ?t1)))
 (let ((?t10 (* xb u_epsilon_per_coordinate)))
 (let ((?t5 (* (- 1.0) u_epsilon_per_coordinate)))
 (let (($t11 (>= (+ (- 1.0) z0 u_epsilon_per_coordinate ?t10 ?t3 ?t9 ?t0) 0.0)))
 (let (($t12 (not (and $t11 (<= (+ 1.0 z0 ?t5 ?t10 ?t3 ?t9 ?t0) 0.0)))))
 (let (($t8 (and (<= (+ 1.0 z0 (* (- 1.0) ?t1) ?t3 ?t0) 0.0) (>= (+ (- 1.0) z0 ?t1 ?t3 ?t0) 0.0))))
 (and $t8 $t12)))))))))))
(assert
 (let ((?t13 (* u_epsilon_per_coordinate u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t14 (* u_epsilon_per_coordinate u_epsilon_per_coordinate u_epsilon_per_coordinate u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t15 (+ (* (- 2.0) u_epsilon_per_coordinate) (* (- 2.0) ?t14) (* 4.0 ?t13))))
 (> ?t15 0.0)))))
(assert
 (let ((?t16 (* (- 1.0) xa u_epsilon_per_coordinate)))
 (let ((?t17 (* z0 u_epsilon_per_coordinate)))
 (let ((?t18 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 ?t18 ?t17 ?t16) 0.0) true)))))
(assert
 (let ((?t16 (* (- 1.0) xa u_epsilon_per_coordinate)))
 (let ((?t17 (* z0 u_epsilon_per_coordinate)))
 (let ((?t18 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t18 ?t17 ?t16) 0.0) true)))))
(assert
 (let ((?t17 (* z0 u_epsilon_per_coordinate)))
 (let ((?t5 (* (- 1.0) u_epsilon_per_coordinate)))
 (let ((?t18 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t18 ?t5 ?t17) 0.0) true)))))
(assert
 (let ((?t17 (* z0 u_epsilon_per_coordinate)))
 (let ((?t18 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 u_epsilon_per_coordinate ?t18 ?t17) 0.0) true))))
(assert
 (let ((?t19 (* (- 1.0) xb u_epsilon_per_coordinate)))
 (let ((?t17 (* z0 u_epsilon_per_coordinate)))
 (let ((?t18 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 ?t18 ?t17 ?t19) 0.0) true)))))
(assert
 (let ((?t19 (* (- 1.0) xb u_epsilon_per_coordinate)))
 (let ((?t17 (* z0 u_epsilon_per_coordinate)))
 (let ((?t18 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t18 ?t17 ?t19) 0.0) true)))))
(assert
 (let ((?t17 (* z0 u_epsilon_per_coordinate)))
 (let ((?t5 (* (- 1.0) u_epsilon_per_coordinate)))
 (let ((?t18 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t18 ?t5 ?t17) 0.0) true)))))
(assert
 (let ((?t17 (* z0 u_epsilon_per_coordinate)))
 (let ((?t18 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 u_epsilon_per_coordinate ?t18 ?t17) 0.0) true))))
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (<= (- 1.0) xb))
(assert
 (>= 1.0 xb))
(check-sat)
(reset)
; query 27: one coordinate at ε/k: branch 1 at x <= e^claim branch 2 at x' (expected: unsat)
; Hybrid mechanism, d dimensions (one coordinate) [component 0: density]: branch 1 at x exceeds e^claim times branch 2 at x'
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon_per_coordinate () Real)
(declare-fun xa () Real)
(declare-fun xb () Real)
(declare-fun z0 () Real)
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (<= (- 1.0) xb))
(assert
 (>= 1.0 xb))
(assert
 (let ((?t0 (* (- 2.0) z0 u_epsilon_per_coordinate)))
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t2 (* (- 1.0) xa ?t1)))
 (let ((?t3 (* z0 ?t1)))
 (let ((?t4 (* xa u_epsilon_per_coordinate)))
 (let ((?t5 (* (- 1.0) u_epsilon_per_coordinate)))
 (let (($t6 (>= (+ (- 1.0) z0 u_epsilon_per_coordinate ?t4 ?t3 ?t2 ?t0) 0.0)))
 (let (($t7 (not (and $t6 (<= (+ 1.0 z0 ?t5 ?t4 ?t3 ?t2 ?t0) 0.0)))))
 (let (($t8 (and (<= (+ 1.0 z0 (* (- 1.0) ?t1) ?t3 ?t0) 0.0) (>= (+ (- 1.0) z0 ?t1 ?t3 ?t0) 0.0))))
 (and $t8 $t7)))))))))))
(assert
 (let ((?t0 (* (- 2.0) z0 u_epsilon_per_coordinate)))
 (let ((?t1 (* u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t3 (* z0 ?t1)))
 (let (($t8 (and (<= (+ 1.0 z0 (* (- 1.0) ?t1) ?t3 ?t0) 0.0) (>= (+ (- 1.0) z0 ?t1 ?t3 ?t0) 0.0))))
 (let ((?t9 (* (- 1.0) xb ?t1)))
 (let ((?t10 (* xb u_epsilon_per_coordinate)))
 (let ((?t5 (* (- 1.0) u_epsilon_per_coordinate)))
 (let (($t11 (>= (+ (- 1.0) z0 u_epsilon_per_coordinate ?t10 ?t3 ?t9 ?t0) 0.0)))
 (let (($t12 (not (and $t11 (<= (+ 1.0 z0 ?t5 ?t10 ?t3 ?t9 ?t0) 0.0)))))
 (and true $t12 (not $t8))))))))))))
(assert
 (let ((?t13 (* u_epsilon_per_coordinate u_epsilon_per_coordinate u_epsilon_per_coordinate)))
 (let ((?t14 (+ (* (- 2.0) u_epsilon_per_coordinate) (* 2.0 ?t13))))
 (> ?t14 0.0))))
(assert
 (let ((?t15 (* (- 1.0) xa u_epsilon_per_coordinate)))
 (let ((?t16 (* z0 u_epsilon_per_coordinate)))
 (let ((?t17 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 ?t17 ?t16 ?t15) 0.0) true)))))
(assert
 (let ((?t15 (* (- 1.0) xa u_epsilon_per_coordinate)))
 (let ((?t16 (* z0 u_epsilon_per_coordinate)))
 (let ((?t17 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t17 ?t16 ?t15) 0.0) true)))))
(assert
 (let ((?t16 (* z0 u_epsilon_per_coordinate)))
 (let ((?t5 (* (- 1.0) u_epsilon_per_coordinate)))
 (let ((?t17 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t17 ?t5 ?t16) 0.0) true)))))
(assert
 (let ((?t16 (* z0 u_epsilon_per_coordinate)))
 (let ((?t17 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 u_epsilon_per_coordinate ?t17 ?t16) 0.0) true))))
(assert
 (let ((?t18 (* (- 1.0) xb u_epsilon_per_coordinate)))
 (let ((?t16 (* z0 u_epsilon_per_coordinate)))
 (let ((?t17 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 ?t17 ?t16 ?t18) 0.0) true)))))
(assert
 (let ((?t18 (* (- 1.0) xb u_epsilon_per_coordinate)))
 (let ((?t16 (* z0 u_epsilon_per_coordinate)))
 (let ((?t17 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t17 ?t16 ?t18) 0.0) true)))))
(assert
 (let ((?t16 (* z0 u_epsilon_per_coordinate)))
 (let ((?t5 (* (- 1.0) u_epsilon_per_coordinate)))
 (let ((?t17 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t17 ?t5 ?t16) 0.0) true)))))
(assert
 (let ((?t16 (* z0 u_epsilon_per_coordinate)))
 (let ((?t17 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 u_epsilon_per_coordinate ?t17 ?t16) 0.0) true))))
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (<= (- 1.0) xb))
(assert
 (>= 1.0 xb))
(check-sat)
(reset)
; query 28: one coordinate at ε/k: no obligation can fail (expected: unsat)
; Hybrid mechanism, d dimensions (one coordinate) [component 1: atoms]: epsilon_per_coordinate-LDP for all real inputs: some obligation fails (denominators cleared)
; obligation: -xa*(exp(epsilon_per_coordinate) - 1)/(2*exp(epsilon_per_coordinate) + 2) + 1/2 <= e^claim * -xb*(exp(epsilon_per_coordinate) - 1)/(2*exp(epsilon_per_coordinate) + 2) + 1/2
; obligation: xa*(exp(epsilon_per_coordinate) - 1)/(2*exp(epsilon_per_coordinate) + 2) + 1/2 <= e^claim * xb*(exp(epsilon_per_coordinate) - 1)/(2*exp(epsilon_per_coordinate) + 2) + 1/2
; e^claim = exp(epsilon_per_coordinate)
; u_epsilon_per_coordinate = exp(epsilon_per_coordinate)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon_per_coordinate () Real)
(declare-fun xa () Real)
(declare-fun xb () Real)
(assert
 (> u_epsilon_per_coordinate 0.0))
(assert
 (< 1.0 u_epsilon_per_coordinate))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (<= (- 1.0) xb))
(assert
 (>= 1.0 xb))
(assert
 (let ((?t0 (* 2.0 u_epsilon_per_coordinate)))
(let ((?t1 (+ 2.0 ?t0)))
(let ((?t2 (+ 1.0 u_epsilon_per_coordinate (* xb (+ (- 1.0) u_epsilon_per_coordinate)))))
(let ((?t3 (+ 1.0 u_epsilon_per_coordinate (* xa (+ (- 1.0) u_epsilon_per_coordinate)))))
(let ((?t4 (+ 1.0 u_epsilon_per_coordinate (* (- 1.0) xb (+ (- 1.0) u_epsilon_per_coordinate)))))
(let ((?t5 (+ 1.0 u_epsilon_per_coordinate (* (- 1.0) xa (+ (- 1.0) u_epsilon_per_coordinate)))))
(or (> (* ?t5 ?t1 1.0) (* u_epsilon_per_coordinate ?t4 ?t1)) (> (* ?t3 ?t1 1.0) (* u_epsilon_per_coordinate ?t2 ?t1))))))))))
(check-sat)
