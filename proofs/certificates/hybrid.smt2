; ldpaudit 0.1.0 certificate: Hybrid mechanism: PROVED epsilon-LDP for all 0 < epsilon, 0 <= beta <= 1
; re-check: z3 hybrid.smt2   (every line of output must be unsat)
; query 1: weight of component 1 >= 0 (expected: unsat)
; Hybrid mechanism: the weight of component 1 is negative somewhere
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
; query 2: the breakpoints never lie in the order (0, 1, 2, 3) (expected: unsat)
; can the breakpoints lie in the order (0, 1, 2, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(declare-fun xa () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ (- 2.0) (* 2.0 u_epsilon))))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (* (- 1.0) u_epsilon)))
 (let ((?t2 (* u_epsilon u_epsilon)))
 (> (+ ?t2 ?t1 (* xa u_epsilon) (* (- 1.0) xa ?t2)) 0.0))))
(assert
 (let ((?t3 (+ 2.0 (* (- 2.0) (* u_epsilon u_epsilon)))))
(> ?t3 0.0)))
(check-sat)
(reset)
; query 3: the breakpoints never lie in the order (0, 1, 3) (expected: unsat)
; can the breakpoints lie in the order (0, 1, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(declare-fun xa () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ (- 2.0) (* 2.0 u_epsilon))))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (* u_epsilon u_epsilon)))
(let ((?t2 (* (- 1.0) ?t1)))
(let ((?t3 (* (- 1.0) u_epsilon)))
(> (+ 2.0 ?t3 ?t2 (* xa u_epsilon) (* (- 1.0) xa ?t1)) 0.0)))))
(check-sat)
(reset)
; query 4: the breakpoints never lie in the order (0, 2, 1) (expected: unsat)
; can the breakpoints lie in the order (0, 2, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(declare-fun xa () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* xa u_epsilon)))
 (let ((?t1 (* u_epsilon u_epsilon)))
 (> (+ (- 2.0) u_epsilon ?t1 ?t0 (* (- 1.0) xa ?t1)) 0.0))))
(assert
 (let ((?t1 (* u_epsilon u_epsilon)))
(let ((?t2 (* (- 1.0) ?t1)))
(> (+ u_epsilon ?t2 (* xa ?t1) (* (- 1.0) xa u_epsilon)) 0.0))))
(check-sat)
(reset)
; query 5: the breakpoints never lie in the order (0, 2, 3) (expected: unsat)
; can the breakpoints lie in the order (0, 2, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(declare-fun xa () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* u_epsilon u_epsilon)))
 (> (+ (- 2.0) u_epsilon ?t0 (* xa u_epsilon) (* (- 1.0) xa ?t0)) 0.0)))
(assert
 (let ((?t1 (+ 2.0 (* (- 2.0) (* u_epsilon u_epsilon)))))
(> ?t1 0.0)))
(check-sat)
(reset)
; query 6: the breakpoints never lie in the order (0, 3) (expected: unsat)
; can the breakpoints lie in the order (0, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(declare-fun xa () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* xa u_epsilon)))
(let ((?t1 (* u_epsilon u_epsilon)))
(let ((?t2 (* (- 1.0) ?t1)))
(> (+ u_epsilon ?t2 ?t0 (* (- 1.0) xa ?t1)) 0.0)))))
(check-sat)
(reset)
; query 7: the breakpoints never lie in the order (1, 0) (expected: unsat)
; can the breakpoints lie in the order (1, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(declare-fun xa () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ 2.0 (* (- 2.0) u_epsilon))))
(> ?t0 0.0)))
(check-sat)
(reset)
; query 8: the breakpoints never lie in the order (1, 2, 0) (expected: unsat)
; can the breakpoints lie in the order (1, 2, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(declare-fun xa () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* (- 1.0) u_epsilon)))
 (let ((?t1 (* u_epsilon u_epsilon)))
 (> (+ ?t1 ?t0 (* xa u_epsilon) (* (- 1.0) xa ?t1)) 0.0))))
(assert
 (let ((?t1 (* u_epsilon u_epsilon)))
(let ((?t2 (* (- 1.0) ?t1)))
(let ((?t0 (* (- 1.0) u_epsilon)))
(> (+ 2.0 ?t0 ?t2 (* xa ?t1) (* (- 1.0) xa u_epsilon)) 0.0)))))
(check-sat)
(reset)
; query 9: the breakpoints never lie in the order (1, 2, 3) (expected: unsat)
; can the breakpoints lie in the order (1, 2, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(declare-fun xa () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* (- 1.0) u_epsilon)))
 (let ((?t1 (* u_epsilon u_epsilon)))
 (> (+ ?t1 ?t0 (* xa u_epsilon) (* (- 1.0) xa ?t1)) 0.0))))
(assert
 (let ((?t2 (+ 2.0 (* (- 2.0) (* u_epsilon u_epsilon)))))
(> ?t2 0.0)))
(check-sat)
(reset)
; query 10: the breakpoints never lie in the order (1, 3) (expected: unsat)
; can the breakpoints lie in the order (1, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(declare-fun xa () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* u_epsilon u_epsilon)))
(let ((?t1 (* (- 1.0) ?t0)))
(let ((?t2 (* (- 1.0) u_epsilon)))
(> (+ 2.0 ?t2 ?t1 (* xa u_epsilon) (* (- 1.0) xa ?t0)) 0.0)))))
(check-sat)
(reset)
; query 11: the breakpoints never lie in the order (2, 0) (expected: unsat)
; can the breakpoints lie in the order (2, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(declare-fun xa () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* u_epsilon u_epsilon)))
(let ((?t1 (* (- 1.0) ?t0)))
(let ((?t2 (* (- 1.0) u_epsilon)))
(> (+ 2.0 ?t2 ?t1 (* xa ?t0) (* (- 1.0) xa u_epsilon)) 0.0)))))
(check-sat)
(reset)
; query 12: the breakpoints never lie in the order (2, 1) (expected: unsat)
; can the breakpoints lie in the order (2, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(declare-fun xa () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* u_epsilon u_epsilon)))
(let ((?t1 (* (- 1.0) ?t0)))
(> (+ u_epsilon ?t1 (* xa ?t0) (* (- 1.0) xa u_epsilon)) 0.0))))
(check-sat)
(reset)
; query 13: the breakpoints never lie in the order (2, 3) (expected: unsat)
; can the breakpoints lie in the order (2, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(declare-fun xa () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ 2.0 (* (- 2.0) (* u_epsilon u_epsilon)))))
(> ?t0 0.0)))
(check-sat)
(reset)
; query 14: the breakpoints never lie in the order (3, 0, 2, 1) (expected: unsat)
; can the breakpoints lie in the order (3, 0, 2, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(declare-fun xa () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* (- 1.0) xa u_epsilon)))
 (let ((?t1 (* u_epsilon u_epsilon)))
 (let ((?t2 (* xa ?t1)))
 (let ((?t3 (* (- 1.0) u_epsilon)))
 (> (+ ?t1 ?t3 ?t2 ?t0) 0.0))))))
(assert
 (let ((?t4 (* xa u_epsilon)))
 (let ((?t1 (* u_epsilon u_epsilon)))
 (> (+ (- 2.0) u_epsilon ?t1 ?t4 (* (- 1.0) xa ?t1)) 0.0))))
(assert
 (let ((?t0 (* (- 1.0) xa u_epsilon)))
(let ((?t1 (* u_epsilon u_epsilon)))
(let ((?t2 (* xa ?t1)))
(let ((?t5 (* (- 1.0) ?t1)))
(> (+ u_epsilon ?t5 ?t2 ?t0) 0.0))))))
(check-sat)
(reset)
; query 15: the breakpoints never lie in the order (3, 1, 0) (expected: unsat)
; can the breakpoints lie in the order (3, 1, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(declare-fun xa () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* u_epsilon u_epsilon)))
 (> (+ (- 2.0) u_epsilon ?t0 (* xa ?t0) (* (- 1.0) xa u_epsilon)) 0.0)))
(assert
 (let ((?t1 (+ 2.0 (* (- 2.0) u_epsilon))))
(> ?t1 0.0)))
(check-sat)
(reset)
; query 16: the breakpoints never lie in the order (3, 1, 2, 0) (expected: unsat)
; can the breakpoints lie in the order (3, 1, 2, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(declare-fun xa () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* (- 1.0) xa u_epsilon)))
 (let ((?t1 (* u_epsilon u_epsilon)))
 (let ((?t2 (* xa ?t1)))
 (> (+ (- 2.0) u_epsilon ?t1 ?t2 ?t0) 0.0)))))
(assert
 (let ((?t3 (* (- 1.0) u_epsilon)))
 (let ((?t1 (* u_epsilon u_epsilon)))
 (> (+ ?t1 ?t3 (* xa u_epsilon) (* (- 1.0) xa ?t1)) 0.0))))
(assert
 (let ((?t0 (* (- 1.0) xa u_epsilon)))
(let ((?t1 (* u_epsilon u_epsilon)))
(let ((?t2 (* xa ?t1)))
(let ((?t4 (* (- 1.0) ?t1)))
(let ((?t3 (* (- 1.0) u_epsilon)))
(> (+ 2.0 ?t3 ?t4 ?t2 ?t0) 0.0)))))))
(check-sat)
(reset)
; query 17: the breakpoints never lie in the order (3, 2, 0) (expected: unsat)
; can the breakpoints lie in the order (3, 2, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(declare-fun xa () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ (- 2.0) (* 2.0 (* u_epsilon u_epsilon)))))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (* u_epsilon u_epsilon)))
(let ((?t2 (* (- 1.0) ?t1)))
(let ((?t3 (* (- 1.0) u_epsilon)))
(> (+ 2.0 ?t3 ?t2 (* xa ?t1) (* (- 1.0) xa u_epsilon)) 0.0)))))
(check-sat)
(reset)
; query 18: the breakpoints never lie in the order (3, 2, 1) (expected: unsat)
; can the breakpoints lie in the order (3, 2, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(declare-fun xa () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ (- 2.0) (* 2.0 (* u_epsilon u_epsilon)))))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (* u_epsilon u_epsilon)))
(let ((?t2 (* (- 1.0) ?t1)))
(> (+ u_epsilon ?t2 (* xa ?t1) (* (- 1.0) xa u_epsilon)) 0.0))))
(check-sat)
(reset)
; query 19: f >= 0 on ((-exp(epsilon/2) - 1)/(exp(epsilon/2) - 1), (x*exp(epsilon/2) - 1)/(exp(epsilon/2) - 1)) of the order (3, 0, 1, 2) (expected: unsat)
; negative density on a cell of the order (3, 0, 1, 2)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(declare-fun xa () Real)
(declare-fun z0 () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* (- 1.0) u_epsilon)))
 (let ((?t1 (* u_epsilon u_epsilon)))
 (> (+ ?t1 ?t0 (* xa ?t1) (* (- 1.0) xa u_epsilon)) 0.0))))
(assert
 (let ((?t2 (* 2.0 u_epsilon)))
 (let ((?t3 (+ (- 2.0) ?t2)))
 (> ?t3 0.0))))
(assert
 (let ((?t1 (* u_epsilon u_epsilon)))
 (let ((?t4 (* (- 1.0) xa ?t1)))
 (let ((?t5 (* xa u_epsilon)))
 (let ((?t0 (* (- 1.0) u_epsilon)))
 (> (+ ?t1 ?t0 ?t5 ?t4) 0.0))))))
(assert
 (let ((?t6 (* (- 2.0) z0 u_epsilon)))
 (let ((?t1 (* u_epsilon u_epsilon)))
 (let ((?t7 (* z0 ?t1)))
 (> (+ (- 1.0) z0 ?t1 ?t7 ?t6) 0.0)))))
(assert
 (let ((?t6 (* (- 2.0) z0 u_epsilon)))
 (let ((?t1 (* u_epsilon u_epsilon)))
 (let ((?t4 (* (- 1.0) xa ?t1)))
 (let ((?t7 (* z0 ?t1)))
 (let ((?t5 (* xa u_epsilon)))
 (< (+ (- 1.0) z0 u_epsilon ?t5 ?t7 ?t4 ?t6) 0.0)))))))
(assert
 (let ((?t8 (+ (* (- 2.0) u_epsilon) (* 2.0 (* u_epsilon u_epsilon u_epsilon)))))
 (< ?t8 0.0)))
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(check-sat)
(reset)
; query 20: f >= 0 on ((x*exp(epsilon/2) - 1)/(exp(epsilon/2) - 1), (x*exp(epsilon/2) + 1)/(exp(epsilon/2) - 1)) of the order (3, 0, 1, 2) (expected: unsat)
; negative density on a cell of the order (3, 0, 1, 2)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(declare-fun xa () Real)
(declare-fun z0 () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* (- 1.0) u_epsilon)))
 (let ((?t1 (* u_epsilon u_epsilon)))
 (> (+ ?t1 ?t0 (* xa ?t1) (* (- 1.0) xa u_epsilon)) 0.0))))
(assert
 (let ((?t2 (* 2.0 u_epsilon)))
 (let ((?t3 (+ (- 2.0) ?t2)))
 (> ?t3 0.0))))
(assert
 (let ((?t1 (* u_epsilon u_epsilon)))
 (let ((?t4 (* (- 1.0) xa ?t1)))
 (let ((?t5 (* xa u_epsilon)))
 (let ((?t0 (* (- 1.0) u_epsilon)))
 (> (+ ?t1 ?t0 ?t5 ?t4) 0.0))))))
(assert
 (let ((?t6 (* (- 2.0) z0 u_epsilon)))
 (let ((?t1 (* u_epsilon u_epsilon)))
 (let ((?t4 (* (- 1.0) xa ?t1)))
 (let ((?t7 (* z0 ?t1)))
 (let ((?t5 (* xa u_epsilon)))
 (> (+ (- 1.0) z0 u_epsilon ?t5 ?t7 ?t4 ?t6) 0.0)))))))
(assert
 (let ((?t6 (* (- 2.0) z0 u_epsilon)))
 (let ((?t1 (* u_epsilon u_epsilon)))
 (let ((?t4 (* (- 1.0) xa ?t1)))
 (let ((?t7 (* z0 ?t1)))
 (let ((?t5 (* xa u_epsilon)))
 (let ((?t0 (* (- 1.0) u_epsilon)))
 (< (+ 1.0 z0 ?t0 ?t5 ?t7 ?t4 ?t6) 0.0))))))))
(assert
 (let ((?t8 (+ (* (- 2.0) u_epsilon) (* 2.0 (* u_epsilon u_epsilon u_epsilon)))))
 (< ?t8 0.0)))
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(check-sat)
(reset)
; query 21: f >= 0 on ((x*exp(epsilon/2) + 1)/(exp(epsilon/2) - 1), (exp(epsilon/2) + 1)/(exp(epsilon/2) - 1)) of the order (3, 0, 1, 2) (expected: unsat)
; negative density on a cell of the order (3, 0, 1, 2)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(declare-fun xa () Real)
(declare-fun z0 () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* (- 1.0) u_epsilon)))
 (let ((?t1 (* u_epsilon u_epsilon)))
 (> (+ ?t1 ?t0 (* xa ?t1) (* (- 1.0) xa u_epsilon)) 0.0))))
(assert
 (let ((?t2 (* 2.0 u_epsilon)))
 (let ((?t3 (+ (- 2.0) ?t2)))
 (> ?t3 0.0))))
(assert
 (let ((?t1 (* u_epsilon u_epsilon)))
 (let ((?t4 (* (- 1.0) xa ?t1)))
 (let ((?t5 (* xa u_epsilon)))
 (let ((?t0 (* (- 1.0) u_epsilon)))
 (> (+ ?t1 ?t0 ?t5 ?t4) 0.0))))))
(assert
 (let ((?t6 (* (- 2.0) z0 u_epsilon)))
 (let ((?t1 (* u_epsilon u_epsilon)))
 (let ((?t4 (* (- 1.0) xa ?t1)))
 (let ((?t7 (* z0 ?t1)))
 (let ((?t5 (* xa u_epsilon)))
 (let ((?t0 (* (- 1.0) u_epsilon)))
 (> (+ 1.0 z0 ?t0 ?t5 ?t7 ?t4 ?t6) 0.0))))))))
(assert
 (let ((?t6 (* (- 2.0) z0 u_epsilon)))
 (let ((?t1 (* u_epsilon u_epsilon)))
 (let ((?t7 (* z0 ?t1)))
 (let ((?t8 (* (- 1.0) ?t1)))
 (< (+ 1.0 z0 ?t8 ?t7 ?t6) 0.0))))))
(assert
 (let ((?t9 (+ (* (- 2.0) u_epsilon) (* 2.0 (* u_epsilon u_epsilon u_epsilon)))))
 (< ?t9 0.0)))
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(check-sat)
(reset)
; query 22: branch 0 at x <= e^claim branch 0 at x' (expected: unsat)
; Hybrid mechanism [component 0: density]: branch 0 at x exceeds e^claim times branch 0 at x'
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(declare-fun xa () Real)
(declare-fun xb () Real)
(declare-fun z0 () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (<= (- 1.0) xb))
(assert
 (>= 1.0 xb))
(assert
 (let ((?t0 (* (- 2.0) z0 u_epsilon)))
 (let ((?t1 (* u_epsilon u_epsilon)))
 (let ((?t2 (* (- 1.0) xa ?t1)))
 (let ((?t3 (* z0 ?t1)))
 (let ((?t4 (* xa u_epsilon)))
 (let ((?t5 (* (- 1.0) u_epsilon)))
 (and (>= (+ (- 1.0) z0 u_epsilon ?t4 ?t3 ?t2 ?t0) 0.0) (<= (+ 1.0 z0 ?t5 ?t4 ?t3 ?t2 ?t0) 0.0)))))))))
(assert
 (let ((?t0 (* (- 2.0) z0 u_epsilon)))
 (let ((?t1 (* u_epsilon u_epsilon)))
 (let ((?t6 (* (- 1.0) xb ?t1)))
 (let ((?t3 (* z0 ?t1)))
 (let ((?t7 (* xb u_epsilon)))
 (let ((?t5 (* (- 1.0) u_epsilon)))
 (and (>= (+ (- 1.0) z0 u_epsilon ?t7 ?t3 ?t6 ?t0) 0.0) (<= (+ 1.0 z0 ?t5 ?t7 ?t3 ?t6 ?t0) 0.0)))))))))
(assert
 (let ((?t8 (* u_epsilon u_epsilon u_epsilon u_epsilon u_epsilon)))
 (let ((?t9 (+ (* (- 2.0) u_epsilon) (* (- 2.0) ?t8) (* 4.0 (* u_epsilon u_epsilon u_epsilon)))))
 (> ?t9 0.0))))
(assert
 (let ((?t10 (* (- 1.0) xa u_epsilon)))
 (let ((?t11 (* z0 u_epsilon)))
 (let ((?t12 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 ?t12 ?t11 ?t10) 0.0) true)))))
(assert
 (let ((?t10 (* (- 1.0) xa u_epsilon)))
 (let ((?t11 (* z0 u_epsilon)))
 (let ((?t12 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t12 ?t11 ?t10) 0.0) true)))))
(assert
 (let ((?t11 (* z0 u_epsilon)))
 (let ((?t5 (* (- 1.0) u_epsilon)))
 (let ((?t12 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t12 ?t5 ?t11) 0.0) true)))))
(assert
 (and (distinct (+ 1.0 u_epsilon (* (- 1.0) z0) (* z0 u_epsilon)) 0.0) true))
(assert
 (let ((?t13 (* (- 1.0) xb u_epsilon)))
 (let ((?t11 (* z0 u_epsilon)))
 (let ((?t12 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 ?t12 ?t11 ?t13) 0.0) true)))))
(assert
 (let ((?t13 (* (- 1.0) xb u_epsilon)))
 (let ((?t11 (* z0 u_epsilon)))
 (let ((?t12 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t12 ?t11 ?t13) 0.0) true)))))
(assert
 (let ((?t11 (* z0 u_epsilon)))
 (let ((?t5 (* (- 1.0) u_epsilon)))
 (let ((?t12 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t12 ?t5 ?t11) 0.0) true)))))
(assert
 (and (distinct (+ 1.0 u_epsilon (* (- 1.0) z0) (* z0 u_epsilon)) 0.0) true))
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
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
; query 23: branch 0 at x <= e^claim branch 1 at x' (expected: unsat)
; Hybrid mechanism [component 0: density]: branch 0 at x exceeds e^claim times branch 1 at x'
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(declare-fun xa () Real)
(declare-fun xb () Real)
(declare-fun z0 () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (<= (- 1.0) xb))
(assert
 (>= 1.0 xb))
(assert
 (let ((?t0 (* (- 2.0) z0 u_epsilon)))
 (let ((?t1 (* u_epsilon u_epsilon)))
 (let ((?t2 (* (- 1.0) xa ?t1)))
 (let ((?t3 (* z0 ?t1)))
 (let ((?t4 (* xa u_epsilon)))
 (let ((?t5 (* (- 1.0) u_epsilon)))
 (and (>= (+ (- 1.0) z0 u_epsilon ?t4 ?t3 ?t2 ?t0) 0.0) (<= (+ 1.0 z0 ?t5 ?t4 ?t3 ?t2 ?t0) 0.0)))))))))
(assert
 (let ((?t0 (* (- 2.0) z0 u_epsilon)))
 (let ((?t1 (* u_epsilon u_epsilon)))
 (let ((?t6 (* (- 1.0) xb ?t1)))
 (let ((?t3 (* z0 ?t1)))
 (let ((?t7 (* xb u_epsilon)))
 (let ((?t5 (* (- 1.0) u_epsilon)))
 (let (($t8 (and (>= (+ (- 1.0) z0 u_epsilon ?t7 ?t3 ?t6 ?t0) 0.0) (<= (+ 1.0 z0 ?t5 ?t7 ?t3 ?t6 ?t0) 0.0))))
 (let (($t9 (and (<= (+ 1.0 z0 (* (- 1.0) ?t1) ?t3 ?t0) 0.0) (>= (+ (- 1.0) z0 ?t1 ?t3 ?t0) 0.0))))
 (and $t9 (not $t8)))))))))))
(assert
 (> 0.0 0.0))
(assert
 (let ((?t10 (* (- 1.0) xa u_epsilon)))
 (let ((?t11 (* z0 u_epsilon)))
 (let ((?t12 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 ?t12 ?t11 ?t10) 0.0) true)))))
(assert
 (let ((?t10 (* (- 1.0) xa u_epsilon)))
 (let ((?t11 (* z0 u_epsilon)))
 (let ((?t12 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t12 ?t11 ?t10) 0.0) true)))))
(assert
 (let ((?t11 (* z0 u_epsilon)))
 (let ((?t5 (* (- 1.0) u_epsilon)))
 (let ((?t12 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t12 ?t5 ?t11) 0.0) true)))))
(assert
 (and (distinct (+ 1.0 u_epsilon (* (- 1.0) z0) (* z0 u_epsilon)) 0.0) true))
(assert
 (let ((?t13 (* (- 1.0) xb u_epsilon)))
 (let ((?t11 (* z0 u_epsilon)))
 (let ((?t12 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 ?t12 ?t11 ?t13) 0.0) true)))))
(assert
 (let ((?t13 (* (- 1.0) xb u_epsilon)))
 (let ((?t11 (* z0 u_epsilon)))
 (let ((?t12 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t12 ?t11 ?t13) 0.0) true)))))
(assert
 (let ((?t11 (* z0 u_epsilon)))
 (let ((?t5 (* (- 1.0) u_epsilon)))
 (let ((?t12 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t12 ?t5 ?t11) 0.0) true)))))
(assert
 (and (distinct (+ 1.0 u_epsilon (* (- 1.0) z0) (* z0 u_epsilon)) 0.0) true))
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
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
; query 24: branch 0 at x <= e^claim branch 2 at x' (expected: unsat)
; Hybrid mechanism [component 0: density]: branch 0 at x exceeds e^claim times branch 2 at x'
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(declare-fun xa () Real)
(declare-fun xb () Real)
(declare-fun z0 () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (<= (- 1.0) xb))
(assert
 (>= 1.0 xb))
(assert
 (let ((?t0 (* (- 2.0) z0 u_epsilon)))
 (let ((?t1 (* u_epsilon u_epsilon)))
 (let ((?t2 (* (- 1.0) xa ?t1)))
 (let ((?t3 (* z0 ?t1)))
 (let ((?t4 (* xa u_epsilon)))
 (let ((?t5 (* (- 1.0) u_epsilon)))
 (and (>= (+ (- 1.0) z0 u_epsilon ?t4 ?t3 ?t2 ?t0) 0.0) (<= (+ 1.0 z0 ?t5 ?t4 ?t3 ?t2 ?t0) 0.0)))))))))
(assert
 (let ((?t0 (* (- 2.0) z0 u_epsilon)))
 (let ((?t1 (* u_epsilon u_epsilon)))
 (let ((?t3 (* z0 ?t1)))
 (let (($t6 (and (<= (+ 1.0 z0 (* (- 1.0) ?t1) ?t3 ?t0) 0.0) (>= (+ (- 1.0) z0 ?t1 ?t3 ?t0) 0.0))))
 (let ((?t7 (* (- 1.0) xb ?t1)))
 (let ((?t8 (* xb u_epsilon)))
 (let ((?t5 (* (- 1.0) u_epsilon)))
 (let (($t9 (and (>= (+ (- 1.0) z0 u_epsilon ?t8 ?t3 ?t7 ?t0) 0.0) (<= (+ 1.0 z0 ?t5 ?t8 ?t3 ?t7 ?t0) 0.0))))
 (and true (not $t9) (not $t6)))))))))))
(assert
 (let ((?t10 (+ (* (- 2.0) u_epsilon) (* 2.0 (* u_epsilon u_epsilon u_epsilon)))))
 (> ?t10 0.0)))
(assert
 (let ((?t11 (* (- 1.0) xa u_epsilon)))
 (let ((?t12 (* z0 u_epsilon)))
 (let ((?t13 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 ?t13 ?t12 ?t11) 0.0) true)))))
(assert
 (let ((?t11 (* (- 1.0) xa u_epsilon)))
 (let ((?t12 (* z0 u_epsilon)))
 (let ((?t13 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t13 ?t12 ?t11) 0.0) true)))))
(assert
 (let ((?t12 (* z0 u_epsilon)))
 (let ((?t5 (* (- 1.0) u_epsilon)))
 (let ((?t13 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t13 ?t5 ?t12) 0.0) true)))))
(assert
 (and (distinct (+ 1.0 u_epsilon (* (- 1.0) z0) (* z0 u_epsilon)) 0.0) true))
(assert
 (let ((?t14 (* (- 1.0) xb u_epsilon)))
 (let ((?t12 (* z0 u_epsilon)))
 (let ((?t13 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 ?t13 ?t12 ?t14) 0.0) true)))))
(assert
 (let ((?t14 (* (- 1.0) xb u_epsilon)))
 (let ((?t12 (* z0 u_epsilon)))
 (let ((?t13 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t13 ?t12 ?t14) 0.0) true)))))
(assert
 (let ((?t12 (* z0 u_epsilon)))
 (let ((?t5 (* (- 1.0) u_epsilon)))
 (let ((?t13 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t13 ?t5 ?t12) 0.0) true)))))
(assert
 (and (distinct (+ 1.0 u_epsilon (* (- 1.0) z0) (* z0 u_epsilon)) 0.0) true))
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
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
; query 25: branch 1 at x <= e^claim branch 0 at x' (expected: unsat)
; Hybrid mechanism [component 0: density]: branch 1 at x exceeds e^claim times branch 0 at x'
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(declare-fun xa () Real)
(declare-fun xb () Real)
(declare-fun z0 () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (<= (- 1.0) xb))
(assert
 (>= 1.0 xb))
(assert
 (let ((?t0 (* (- 2.0) z0 u_epsilon)))
 (let ((?t1 (* u_epsilon u_epsilon)))
 (let ((?t2 (* (- 1.0) xa ?t1)))
 (let ((?t3 (* z0 ?t1)))
 (let ((?t4 (* xa u_epsilon)))
 (let ((?t5 (* (- 1.0) u_epsilon)))
 (let (($t6 (and (>= (+ (- 1.0) z0 u_epsilon ?t4 ?t3 ?t2 ?t0) 0.0) (<= (+ 1.0 z0 ?t5 ?t4 ?t3 ?t2 ?t0) 0.0))))
 (let (($t7 (and (<= (+ 1.0 z0 (* (- 1.0) ?t1) ?t3 ?t0) 0.0) (>= (+ (- 1.0) z0 ?t1 ?t3 ?t0) 0.0))))
 (and $t7 (not $t6)))))))))))
(assert
 (let ((?t0 (* (- 2.0) z0 u_epsilon)))
 (let ((?t1 (* u_epsilon u_epsilon)))
 (let ((?t8 (* (- 1.0) xb ?t1)))
 (let ((?t3 (* z0 ?t1)))
 (let ((?t9 (* xb u_epsilon)))
 (let ((?t5 (* (- 1.0) u_epsilon)))
 (and (>= (+ (- 1.0) z0 u_epsilon ?t9 ?t3 ?t8 ?t0) 0.0) (<= (+ 1.0 z0 ?t5 ?t9 ?t3 ?t8 ?t0) 0.0)))))))))
(assert
 (let ((?t10 (* u_epsilon u_epsilon u_epsilon u_epsilon u_epsilon)))
 (let ((?t11 (+ (* (- 2.0) u_epsilon) (* (- 2.0) (^ u_epsilon 7.0)) (* 2.0 (* u_epsilon u_epsilon u_epsilon)) (* 2.0 ?t10))))
 (> ?t11 0.0))))
(assert
 (let ((?t12 (* (- 1.0) xa u_epsilon)))
 (let ((?t13 (* z0 u_epsilon)))
 (let ((?t14 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 ?t14 ?t13 ?t12) 0.0) true)))))
(assert
 (let ((?t12 (* (- 1.0) xa u_epsilon)))
 (let ((?t13 (* z0 u_epsilon)))
 (let ((?t14 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t14 ?t13 ?t12) 0.0) true)))))
(assert
 (let ((?t13 (* z0 u_epsilon)))
 (let ((?t5 (* (- 1.0) u_epsilon)))
 (let ((?t14 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t14 ?t5 ?t13) 0.0) true)))))
(assert
 (and (distinct (+ 1.0 u_epsilon (* (- 1.0) z0) (* z0 u_epsilon)) 0.0) true))
(assert
 (let ((?t15 (* (- 1.0) xb u_epsilon)))
 (let ((?t13 (* z0 u_epsilon)))
 (let ((?t14 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 ?t14 ?t13 ?t15) 0.0) true)))))
(assert
 (let ((?t15 (* (- 1.0) xb u_epsilon)))
 (let ((?t13 (* z0 u_epsilon)))
 (let ((?t14 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t14 ?t13 ?t15) 0.0) true)))))
(assert
 (let ((?t13 (* z0 u_epsilon)))
 (let ((?t5 (* (- 1.0) u_epsilon)))
 (let ((?t14 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t14 ?t5 ?t13) 0.0) true)))))
(assert
 (and (distinct (+ 1.0 u_epsilon (* (- 1.0) z0) (* z0 u_epsilon)) 0.0) true))
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
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
; query 26: branch 1 at x <= e^claim branch 1 at x' (expected: unsat)
; Hybrid mechanism [component 0: density]: branch 1 at x exceeds e^claim times branch 1 at x'
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(declare-fun xa () Real)
(declare-fun xb () Real)
(declare-fun z0 () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (<= (- 1.0) xb))
(assert
 (>= 1.0 xb))
(assert
 (let ((?t0 (* (- 2.0) z0 u_epsilon)))
 (let ((?t1 (* u_epsilon u_epsilon)))
 (let ((?t2 (* (- 1.0) xa ?t1)))
 (let ((?t3 (* z0 ?t1)))
 (let ((?t4 (* xa u_epsilon)))
 (let ((?t5 (* (- 1.0) u_epsilon)))
 (let (($t6 (and (>= (+ (- 1.0) z0 u_epsilon ?t4 ?t3 ?t2 ?t0) 0.0) (<= (+ 1.0 z0 ?t5 ?t4 ?t3 ?t2 ?t0) 0.0))))
 (let (($t7 (and (<= (+ 1.0 z0 (* (- 1.0) ?t1) ?t3 ?t0) 0.0) (>= (+ (- 1.0) z0 ?t1 ?t3 ?t0) 0.0))))
 (and $t7 (not $t6)))))))))))
(assert
 (let ((?t0 (* (- 2.0) z0 u_epsilon)))
 (let ((?t1 (* u_epsilon u_epsilon)))
 (let ((?t8 (* (- 1.0) xb ?t1)))
 (let ((?t3 (* z0 ?t1)))
 (let ((?t9 (* xb u_epsilon)))
 (let ((?t5 (* (- 1.0) u_epsilon)))
 (let (($t10 (and (>= (+ (- 1.0) z0 u_epsilon ?t9 ?t3 ?t8 ?t0) 0.0) (<= (+ 1.0 z0 ?t5 ?t9 ?t3 ?t8 ?t0) 0.0))))
 (let (($t7 (and (<= (+ 1.0 z0 (* (- 1.0) ?t1) ?t3 ?t0) 0.0) (>= (+ (- 1.0) z0 ?t1 ?t3 ?t0) 0.0))))
 (and $t7 (not $t10)))))))))))
(assert
 (let ((?t11 (* u_epsilon u_epsilon u_epsilon u_epsilon u_epsilon)))
 (let ((?t12 (+ (* (- 2.0) u_epsilon) (* (- 2.0) ?t11) (* 4.0 (* u_epsilon u_epsilon u_epsilon)))))
 (> ?t12 0.0))))
(assert
 (let ((?t13 (* (- 1.0) xa u_epsilon)))
 (let ((?t14 (* z0 u_epsilon)))
 (let ((?t15 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 ?t15 ?t14 ?t13) 0.0) true)))))
(assert
 (let ((?t13 (* (- 1.0) xa u_epsilon)))
 (let ((?t14 (* z0 u_epsilon)))
 (let ((?t15 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t15 ?t14 ?t13) 0.0) true)))))
(assert
 (let ((?t14 (* z0 u_epsilon)))
 (let ((?t5 (* (- 1.0) u_epsilon)))
 (let ((?t15 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t15 ?t5 ?t14) 0.0) true)))))
(assert
 (and (distinct (+ 1.0 u_epsilon (* (- 1.0) z0) (* z0 u_epsilon)) 0.0) true))
(assert
 (let ((?t16 (* (- 1.0) xb u_epsilon)))
 (let ((?t14 (* z0 u_epsilon)))
 (let ((?t15 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 ?t15 ?t14 ?t16) 0.0) true)))))
(assert
 (let ((?t16 (* (- 1.0) xb u_epsilon)))
 (let ((?t14 (* z0 u_epsilon)))
 (let ((?t15 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t15 ?t14 ?t16) 0.0) true)))))
(assert
 (let ((?t14 (* z0 u_epsilon)))
 (let ((?t5 (* (- 1.0) u_epsilon)))
 (let ((?t15 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t15 ?t5 ?t14) 0.0) true)))))
(assert
 (and (distinct (+ 1.0 u_epsilon (* (- 1.0) z0) (* z0 u_epsilon)) 0.0) true))
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
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
; query 27: branch 1 at x <= e^claim branch 2 at x' (expected: unsat)
; Hybrid mechanism [component 0: density]: branch 1 at x exceeds e^claim times branch 2 at x'
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(declare-fun xa () Real)
(declare-fun xb () Real)
(declare-fun z0 () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (<= (- 1.0) xb))
(assert
 (>= 1.0 xb))
(assert
 (let ((?t0 (* (- 2.0) z0 u_epsilon)))
 (let ((?t1 (* u_epsilon u_epsilon)))
 (let ((?t2 (* (- 1.0) xa ?t1)))
 (let ((?t3 (* z0 ?t1)))
 (let ((?t4 (* xa u_epsilon)))
 (let ((?t5 (* (- 1.0) u_epsilon)))
 (let (($t6 (and (>= (+ (- 1.0) z0 u_epsilon ?t4 ?t3 ?t2 ?t0) 0.0) (<= (+ 1.0 z0 ?t5 ?t4 ?t3 ?t2 ?t0) 0.0))))
 (let (($t7 (and (<= (+ 1.0 z0 (* (- 1.0) ?t1) ?t3 ?t0) 0.0) (>= (+ (- 1.0) z0 ?t1 ?t3 ?t0) 0.0))))
 (and $t7 (not $t6)))))))))))
(assert
 (let ((?t0 (* (- 2.0) z0 u_epsilon)))
 (let ((?t1 (* u_epsilon u_epsilon)))
 (let ((?t3 (* z0 ?t1)))
 (let (($t7 (and (<= (+ 1.0 z0 (* (- 1.0) ?t1) ?t3 ?t0) 0.0) (>= (+ (- 1.0) z0 ?t1 ?t3 ?t0) 0.0))))
 (let ((?t8 (* (- 1.0) xb ?t1)))
 (let ((?t9 (* xb u_epsilon)))
 (let ((?t5 (* (- 1.0) u_epsilon)))
 (let (($t10 (and (>= (+ (- 1.0) z0 u_epsilon ?t9 ?t3 ?t8 ?t0) 0.0) (<= (+ 1.0 z0 ?t5 ?t9 ?t3 ?t8 ?t0) 0.0))))
 (and true (not $t10) (not $t7)))))))))))
(assert
 (let ((?t11 (+ (* (- 2.0) u_epsilon) (* 2.0 (* u_epsilon u_epsilon u_epsilon)))))
 (> ?t11 0.0)))
(assert
 (let ((?t12 (* (- 1.0) xa u_epsilon)))
 (let ((?t13 (* z0 u_epsilon)))
 (let ((?t14 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 ?t14 ?t13 ?t12) 0.0) true)))))
(assert
 (let ((?t12 (* (- 1.0) xa u_epsilon)))
 (let ((?t13 (* z0 u_epsilon)))
 (let ((?t14 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t14 ?t13 ?t12) 0.0) true)))))
(assert
 (let ((?t13 (* z0 u_epsilon)))
 (let ((?t5 (* (- 1.0) u_epsilon)))
 (let ((?t14 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t14 ?t5 ?t13) 0.0) true)))))
(assert
 (and (distinct (+ 1.0 u_epsilon (* (- 1.0) z0) (* z0 u_epsilon)) 0.0) true))
(assert
 (let ((?t15 (* (- 1.0) xb u_epsilon)))
 (let ((?t13 (* z0 u_epsilon)))
 (let ((?t14 (* (- 1.0) z0)))
 (and (distinct (+ 1.0 ?t14 ?t13 ?t15) 0.0) true)))))
(assert
 (let ((?t15 (* (- 1.0) xb u_epsilon)))
 (let ((?t13 (* z0 u_epsilon)))
 (let ((?t14 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t14 ?t13 ?t15) 0.0) true)))))
(assert
 (let ((?t13 (* z0 u_epsilon)))
 (let ((?t5 (* (- 1.0) u_epsilon)))
 (let ((?t14 (* (- 1.0) z0)))
 (and (distinct (+ (- 1.0) ?t14 ?t5 ?t13) 0.0) true)))))
(assert
 (and (distinct (+ 1.0 u_epsilon (* (- 1.0) z0) (* z0 u_epsilon)) 0.0) true))
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
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
; query 28: no obligation can fail (expected: unsat)
; Hybrid mechanism [component 1: atoms]: epsilon-LDP for all real inputs: some obligation fails (denominators cleared)
; obligation: -xa*(exp(epsilon) - 1)/(2*exp(epsilon) + 2) + 1/2 <= e^claim * -xb*(exp(epsilon) - 1)/(2*exp(epsilon) + 2) + 1/2
; obligation: xa*(exp(epsilon) - 1)/(2*exp(epsilon) + 2) + 1/2 <= e^claim * xb*(exp(epsilon) - 1)/(2*exp(epsilon) + 2) + 1/2
; e^claim = exp(epsilon)
; u_epsilon = exp(epsilon)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(declare-fun xa () Real)
(declare-fun xb () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (<= (- 1.0) xb))
(assert
 (>= 1.0 xb))
(assert
 (let ((?t0 (* 2.0 u_epsilon)))
(let ((?t1 (+ 2.0 ?t0)))
(let ((?t2 (* u_epsilon (+ 1.0 u_epsilon (* xb (+ (- 1.0) u_epsilon))) ?t1)))
(let ((?t3 (* (+ 1.0 u_epsilon (* xa (+ (- 1.0) u_epsilon))) ?t1 1.0)))
(let ((?t4 (* u_epsilon (+ 1.0 u_epsilon (* (- 1.0) xb (+ (- 1.0) u_epsilon))) ?t1)))
(let ((?t5 (* (+ 1.0 u_epsilon (* (- 1.0) xa (+ (- 1.0) u_epsilon))) ?t1 1.0)))
(or (> ?t5 ?t4) (> ?t3 ?t2)))))))))
(check-sat)
