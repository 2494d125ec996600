; ldpaudit 0.1.0 certificate: Hybrid mechanism, d dimensions: PROVED 2-LDP
; re-check: z3 hybrid_multidim-example.smt2   (every line of output must be unsat)
; query 1: one coordinate at ε/k: the breakpoints never lie in the order (0, 1, 2, 3) (expected: unsat)
; can the breakpoints lie in the order (0, 1, 2, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun e_1 () Real)
(declare-fun xa () Real)
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ (- 2.0) (* 2.0 e_1))))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (* (- 1.0) e_1)))
 (let ((?t2 (* e_1 e_1)))
 (> (+ ?t2 ?t1 (* xa e_1) (* (- 1.0) xa ?t2)) 0.0))))
(assert
 (let ((?t3 (+ 2.0 (* (- 2.0) (* e_1 e_1)))))
(> ?t3 0.0)))
(check-sat)
(reset)
; query 2: one coordinate at ε/k: the breakpoints never lie in the order (0, 1, 3) (expected: unsat)
; can the breakpoints lie in the order (0, 1, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun e_1 () Real)
(declare-fun xa () Real)
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ (- 2.0) (* 2.0 e_1))))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (* e_1 e_1)))
(let ((?t2 (* (- 1.0) ?t1)))
(let ((?t3 (* (- 1.0) e_1)))
(> (+ 2.0 ?t3 ?t2 (* xa e_1) (* (- 1.0) xa ?t1)) 0.0)))))
(check-sat)
(reset)
; query 3: one coordinate at ε/k: the breakpoints never lie in the order (0, 2, 1) (expected: unsat)
; can the breakpoints lie in the order (0, 2, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun e_1 () Real)
(declare-fun xa () Real)
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* xa e_1)))
 (let ((?t1 (* e_1 e_1)))
 (> (+ (- 2.0) e_1 ?t1 ?t0 (* (- 1.0) xa ?t1)) 0.0))))
(assert
 (let ((?t1 (* e_1 e_1)))
(let ((?t2 (* (- 1.0) ?t1)))
(> (+ e_1 ?t2 (* xa ?t1) (* (- 1.0) xa e_1)) 0.0))))
(check-sat)
(reset)
; query 4: one coordinate at ε/k: the breakpoints never lie in the order (0, 2, 3) (expected: unsat)
; can the breakpoints lie in the order (0, 2, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun e_1 () Real)
(declare-fun xa () Real)
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* e_1 e_1)))
 (> (+ (- 2.0) e_1 ?t0 (* xa e_1) (* (- 1.0) xa ?t0)) 0.0)))
(assert
 (let ((?t1 (+ 2.0 (* (- 2.0) (* e_1 e_1)))))
(> ?t1 0.0)))
(check-sat)
(reset)
; query 5: one coordinate at ε/k: the breakpoints never lie in the order (0, 3) (expected: unsat)
; can the breakpoints lie in the order (0, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun e_1 () Real)
(declare-fun xa () Real)
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* xa e_1)))
(let ((?t1 (* e_1 e_1)))
(let ((?t2 (* (- 1.0) ?t1)))
(> (+ e_1 ?t2 ?t0 (* (- 1.0) xa ?t1)) 0.0)))))
(check-sat)
(reset)
; query 6: one coordinate at ε/k: the breakpoints never lie in the order (1, 0) (expected: unsat)
; can the breakpoints lie in the order (1, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun e_1 () Real)
(declare-fun xa () Real)
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ 2.0 (* (- 2.0) e_1))))
(> ?t0 0.0)))
(check-sat)
(reset)
; query 7: one coordinate at ε/k: the breakpoints never lie in the order (1, 2, 0) (expected: unsat)
; can the breakpoints lie in the order (1, 2, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun e_1 () Real)
(declare-fun xa () Real)
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* (- 1.0) e_1)))
 (let ((?t1 (* e_1 e_1)))
 (> (+ ?t1 ?t0 (* xa e_1) (* (- 1.0) xa ?t1)) 0.0))))
(assert
 (let ((?t1 (* e_1 e_1)))
(let ((?t2 (* (- 1.0) ?t1)))
(let ((?t0 (* (- 1.0) e_1)))
(> (+ 2.0 ?t0 ?t2 (* xa ?t1) (* (- 1.0) xa e_1)) 0.0)))))
(check-sat)
(reset)
; query 8: one coordinate at ε/k: the breakpoints never lie in the order (1, 2, 3) (expected: unsat)
; can the breakpoints lie in the order (1, 2, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun e_1 () Real)
(declare-fun xa () Real)
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* (- 1.0) e_1)))
 (let ((?t1 (* e_1 e_1)))
 (> (+ ?t1 ?t0 (* xa e_1) (* (- 1.0) xa ?t1)) 0.0))))
(assert
 (let ((?t2 (+ 2.0 (* (- 2.0) (* e_1 e_1)))))
(> ?t2 0.0)))
(check-sat)
(reset)
; query 9: one coordinate at ε/k: the breakpoints never lie in the order (1, 3) (expected: unsat)
; can the breakpoints lie in the order (1, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun e_1 () Real)
(declare-fun xa () Real)
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* e_1 e_1)))
(let ((?t1 (* (- 1.0) ?t0)))
(let ((?t2 (* (- 1.0) e_1)))
(> (+ 2.0 ?t2 ?t1 (* xa e_1) (* (- 1.0) xa ?t0)) 0.0)))))
(check-sat)
(reset)
; query 10: one coordinate at ε/k: the breakpoints never lie in the order (2, 0) (expected: unsat)
; can the breakpoints lie in the order (2, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun e_1 () Real)
(declare-fun xa () Real)
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* e_1 e_1)))
(let ((?t1 (* (- 1.0) ?t0)))
(let ((?t2 (* (- 1.0) e_1)))
(> (+ 2.0 ?t2 ?t1 (* xa ?t0) (* (- 1.0) xa e_1)) 0.0)))))
(check-sat)
(reset)
; query 11: one coordinate at ε/k: the breakpoints never lie in the order (2, 1) (expected: unsat)
; can the breakpoints lie in the order (2, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun e_1 () Real)
(declare-fun xa () Real)
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* e_1 e_1)))
(let ((?t1 (* (- 1.0) ?t0)))
(> (+ e_1 ?t1 (* xa ?t0) (* (- 1.0) xa e_1)) 0.0))))
(check-sat)
(reset)
; query 12: one coordinate at ε/k: the breakpoints never lie in the order (2, 3) (expected: unsat)
; can the breakpoints lie in the order (2, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun e_1 () Real)
(declare-fun xa () Real)
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ 2.0 (* (- 2.0) (* e_1 e_1)))))
(> ?t0 0.0)))
(check-sat)
(reset)
; query 13: one coordinate at ε/k: the breakpoints never lie in the order (3, 0, 2, 1) (expected: unsat)
; can the breakpoints lie in the order (3, 0, 2, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun e_1 () Real)
(declare-fun xa () Real)
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* (- 1.0) xa e_1)))
 (let ((?t1 (* e_1 e_1)))
 (let ((?t2 (* xa ?t1)))
 (let ((?t3 (* (- 1.0) e_1)))
 (> (+ ?t1 ?t3 ?t2 ?t0) 0.0))))))
(assert
 (let ((?t4 (* xa e_1)))
 (let ((?t1 (* e_1 e_1)))
 (> (+ (- 2.0) e_1 ?t1 ?t4 (* (- 1.0) xa ?t1)) 0.0))))
(assert
 (let ((?t0 (* (- 1.0) xa e_1)))
(let ((?t1 (* e_1 e_1)))
(let ((?t2 (* xa ?t1)))
(let ((?t5 (* (- 1.0) ?t1)))
(> (+ e_1 ?t5 ?t2 ?t0) 0.0))))))
(check-sat)
(reset)
; query 14: one coordinate at ε/k: the breakpoints never lie in the order (3, 1, 0) (expected: unsat)
; can the breakpoints lie in the order (3, 1, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun e_1 () Real)
(declare-fun xa () Real)
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* e_1 e_1)))
 (> (+ (- 2.0) e_1 ?t0 (* xa ?t0) (* (- 1.0) xa e_1)) 0.0)))
(assert
 (let ((?t1 (+ 2.0 (* (- 2.0) e_1))))
(> ?t1 0.0)))
(check-sat)
(reset)
; query 15: one coordinate at ε/k: the breakpoints never lie in the order (3, 1, 2, 0) (expected: unsat)
; can the breakpoints lie in the order (3, 1, 2, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun e_1 () Real)
(declare-fun xa () Real)
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* (- 1.0) xa e_1)))
 (let ((?t1 (* e_1 e_1)))
 (let ((?t2 (* xa ?t1)))
 (> (+ (- 2.0) e_1 ?t1 ?t2 ?t0) 0.0)))))
(assert
 (let ((?t3 (* (- 1.0) e_1)))
 (let ((?t1 (* e_1 e_1)))
 (> (+ ?t1 ?t3 (* xa e_1) (* (- 1.0) xa ?t1)) 0.0))))
(assert
 (let ((?t0 (* (- 1.0) xa e_1)))
(let ((?t1 (* e_1 e_1)))
(let ((?t2 (* xa ?t1)))
(let ((?t4 (* (- 1.0) ?t1)))
(let ((?t3 (* (- 1.0) e_1)))
(> (+ 2.0 ?t3 ?t4 ?t2 ?t0) 0.0)))))))
(check-sat)
(reset)
; query 16: one coordinate at ε/k: the breakpoints never lie in the order (3, 2, 0) (expected: unsat)
; can the breakpoints lie in the order (3, 2, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun e_1 () Real)
(declare-fun xa () Real)
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ (- 2.0) (* 2.0 (* e_1 e_1)))))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (* e_1 e_1)))
(let ((?t2 (* (- 1.0) ?t1)))
(let ((?t3 (* (- 1.0) e_1)))
(> (+ 2.0 ?t3 ?t2 (* xa ?t1) (* (- 1.0) xa e_1)) 0.0)))))
(check-sat)
(reset)
; query 17: one coordinate at ε/k: the breakpoints never lie in the order (3, 2, 1) (expected: unsat)
; can the breakpoints lie in the order (3, 2, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun e_1 () Real)
(declare-fun xa () Real)
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ (- 2.0) (* 2.0 (* e_1 e_1)))))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (* e_1 e_1)))
(let ((?t2 (* (- 1.0) ?t1)))
(> (+ e_1 ?t2 (* xa ?t1) (* (- 1.0) xa e_1)) 0.0))))
(check-sat)
(reset)
; query 18: one coordinate at ε/k: branch 0 at x <= e^claim branch 0 at x' (expected: unsat)
; Hybrid mechanism, d dimensions (one coordinate) [component 0: density]: branch 0 at x exceeds e^claim times branch 0 at x'
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun e_1 () Real)
(declare-fun xa () Real)
(declare-fun xb () Real)
(declare-fun z0 () Real)
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (<= (- 1.0) xb))
(assert
 (>= 1.0 xb))
(assert
 (let ((?t0 (* (- 2.0) z0 e_1)))
 (let ((?t1 (* e_1 e_1)))
 (let ((?t2 (* (- 1.0) xa ?t1)))
 (let ((?t3 (* z0 ?t1)))
 (let ((?t4 (* xa e_1)))
 (let ((?t5 (* (- 1.0) e_1)))
 (and (>= (+ (- 1.0) z0 e_1 ?t4 ?t3 ?t2 ?t0) 0.0) (<= (+ 1.0 z0 ?t5 ?t4 ?t3 ?t2 ?t0) 0.0)))))))))
(assert
 (let ((?t0 (* (- 2.0) z0 e_1)))
 (let ((?t1 (* e_1 e_1)))
 (let ((?t6 (* (- 1.0) xb ?t1)))
 (let ((?t3 (* z0 ?t1)))
 (let ((?t7 (* xb e_1)))
 (let ((?t5 (* (- 1.0) e_1)))
 (and (>= (+ (- 1.0) z0 e_1 ?t7 ?t3 ?t6 ?t0) 0.0) (<= (+ 1.0 z0 ?t5 ?t7 ?t3 ?t6 ?t0) 0.0)))))))))
(assert
 (let ((?t8 (+ (* (- 2.0) e_1) (* (- 2.0) (* e_1 e_1 e_1 e_1 e_1)) (* 4.0 (* e_1 e_1 e_1)))))
 (> ?t8 0.0)))
(assert
 (and (distinct (+ 1.0 (* (- 1.0) z0) (* z0 e_1) (* (- 1.0) xa e_1)) 0.0) true))
(assert
 (and (distinct (+ (- 1.0) (* (- 1.0) z0) (* z0 e_1) (* (- 1.0) xa e_1)) 0.0) true))
(assert
 (and (distinct (+ (- 1.0) (* (- 1.0) z0) (* (- 1.0) e_1) (* z0 e_1)) 0.0) true))
(assert
 (and (distinct (+ 1.0 e_1 (* (- 1.0) z0) (* z0 e_1)) 0.0) true))
(assert
 (and (distinct (+ 1.0 (* (- 1.0) z0) (* z0 e_1) (* (- 1.0) xb e_1)) 0.0) true))
(assert
 (and (distinct (+ (- 1.0) (* (- 1.0) z0) (* z0 e_1) (* (- 1.0) xb e_1)) 0.0) true))
(assert
 (and (distinct (+ (- 1.0) (* (- 1.0) z0) (* (- 1.0) e_1) (* z0 e_1)) 0.0) true))
(assert
 (and (distinct (+ 1.0 e_1 (* (- 1.0) z0) (* z0 e_1)) 0.0) true))
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
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
; query 19: one coordinate at ε/k: branch 0 at x <= e^claim branch 1 at x' (expected: unsat)
; Hybrid mechanism, d dimensions (one coordinate) [component 0: density]: branch 0 at x exceeds e^claim times branch 1 at x'
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun e_1 () Real)
(declare-fun xa () Real)
(declare-fun xb () Real)
(declare-fun z0 () Real)
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (<= (- 1.0) xb))
(assert
 (>= 1.0 xb))
(assert
 (let ((?t0 (* (- 2.0) z0 e_1)))
 (let ((?t1 (* e_1 e_1)))
 (let ((?t2 (* (- 1.0) xa ?t1)))
 (let ((?t3 (* z0 ?t1)))
 (let ((?t4 (* xa e_1)))
 (let ((?t5 (* (- 1.0) e_1)))
 (and (>= (+ (- 1.0) z0 e_1 ?t4 ?t3 ?t2 ?t0) 0.0) (<= (+ 1.0 z0 ?t5 ?t4 ?t3 ?t2 ?t0) 0.0)))))))))
(assert
 (let ((?t0 (* (- 2.0) z0 e_1)))
 (let ((?t1 (* e_1 e_1)))
 (let ((?t6 (* (- 1.0) xb ?t1)))
 (let ((?t3 (* z0 ?t1)))
 (let ((?t7 (* xb e_1)))
 (let ((?t5 (* (- 1.0) e_1)))
 (let (($t8 (and (>= (+ (- 1.0) z0 e_1 ?t7 ?t3 ?t6 ?t0) 0.0) (<= (+ 1.0 z0 ?t5 ?t7 ?t3 ?t6 ?t0) 0.0))))
 (let (($t9 (and (<= (+ 1.0 z0 (* (- 1.0) ?t1) ?t3 ?t0) 0.0) (>= (+ (- 1.0) z0 ?t1 ?t3 ?t0) 0.0))))
 (and $t9 (not $t8)))))))))))
(assert
 (> 0.0 0.0))
(assert
 (and (distinct (+ 1.0 (* (- 1.0) z0) (* z0 e_1) (* (- 1.0) xa e_1)) 0.0) true))
(assert
 (and (distinct (+ (- 1.0) (* (- 1.0) z0) (* z0 e_1) (* (- 1.0) xa e_1)) 0.0) true))
(assert
 (and (distinct (+ (- 1.0) (* (- 1.0) z0) (* (- 1.0) e_1) (* z0 e_1)) 0.0) true))
(assert
 (and (distinct (+ 1.0 e_1 (* (- 1.0) z0) (* z0 e_1)) 0.0) true))
(assert
 (and (distinct (+ 1.0 (* (- 1.0) z0) (* z0 e_1) (* (- 1.0) xb e_1)) 0.0) true))
(assert
 (and (distinct (+ (- 1.0) (* (- 1.0) z0) (* z0 e_1) (* (- 1.0) xb e_1)) 0.0) true))
(assert
 (and (distinct (+ (- 1.0) (* (- 1.0) z0) (* (- 1.0) e_1) (* z0 e_1)) 0.0) true))
(assert
 (and (distinct (+ 1.0 e_1 (* (- 1.0) z0) (* z0 e_1)) 0.0) true))
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
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
; query 20: one coordinate at ε/k: branch 0 at x <= e^claim branch 2 at x' (expected: unsat)
; Hybrid mechanism, d dimensions (one coordinate) [component 0: density]: branch 0 at x exceeds e^claim times branch 2 at x'
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun e_1 () Real)
(declare-fun xa () Real)
(declare-fun xb () Real)
(declare-fun z0 () Real)
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (<= (- 1.0) xb))
(assert
 (>= 1.0 xb))
(assert
 (let ((?t0 (* (- 2.0) z0 e_1)))
 (let ((?t1 (* e_1 e_1)))
 (let ((?t2 (* (- 1.0) xa ?t1)))
 (let ((?t3 (* z0 ?t1)))
 (let ((?t4 (* xa e_1)))
 (let ((?t5 (* (- 1.0) e_1)))
 (and (>= (+ (- 1.0) z0 e_1 ?t4 ?t3 ?t2 ?t0) 0.0) (<= (+ 1.0 z0 ?t5 ?t4 ?t3 ?t2 ?t0) 0.0)))))))))
(assert
 (let ((?t0 (* (- 2.0) z0 e_1)))
 (let ((?t1 (* e_1 e_1)))
 (let ((?t3 (* z0 ?t1)))
 (let (($t6 (and (<= (+ 1.0 z0 (* (- 1.0) ?t1) ?t3 ?t0) 0.0) (>= (+ (- 1.0) z0 ?t1 ?t3 ?t0) 0.0))))
 (let ((?t7 (* (- 1.0) xb ?t1)))
 (let ((?t8 (* xb e_1)))
 (let ((?t5 (* (- 1.0) e_1)))
 (let (($t9 (and (>= (+ (- 1.0) z0 e_1 ?t8 ?t3 ?t7 ?t0) 0.0) (<= (+ 1.0 z0 ?t5 ?t8 ?t3 ?t7 ?t0) 0.0))))
 (and true (not $t9) (not $t6)))))))))))
(assert
 (let ((?t10 (+ (* (- 2.0) e_1) (* 2.0 (* e_1 e_1 e_1)))))
 (> ?t10 0.0)))
(assert
 (and (distinct (+ 1.0 (* (- 1.0) z0) (* z0 e_1) (* (- 1.0) xa e_1)) 0.0) true))
(assert
 (and (distinct (+ (- 1.0) (* (- 1.0) z0) (* z0 e_1) (* (- 1.0) xa e_1)) 0.0) true))
(assert
 (and (distinct (+ (- 1.0) (* (- 1.0) z0) (* (- 1.0) e_1) (* z0 e_1)) 0.0) true))
(assert
 (and (distinct (+ 1.0 e_1 (* (- 1.0) z0) (* z0 e_1)) 0.0) true))
(assert
 (and (distinct (+ 1.0 (* (- 1.0) z0) (* z0 e_1) (* (- 1.0) xb e_1)) 0.0) true))
(assert
 (and (distinct (+ (- 1.0) (* (- 1.0) z0) (* z0 e_1) (* (- 1.0) xb e_1)) 0.0) true))
(assert
 (and (distinct (+ (- 1.0) (* (- 1.0) z0) (* (- 1.0) e_1) (* z0 e_1)) 0.0) true))
(assert
 (and (distinct (+ 1.0 e_1 (* (- 1.0) z0) (* z0 e_1)) 0.0) true))
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
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
; query 21: one coordinate at ε/k: branch 1 at x <= e^claim branch 0 at x' (expected: unsat)
; Hybrid mechanism, d dimensions (one coordinate) [component 0: density]: branch 1 at x exceeds e^claim times branch 0 at x'
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun e_1 () Real)
(declare-fun xa () Real)
(declare-fun xb () Real)
(declare-fun z0 () Real)
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (<= (- 1.0) xb))
(assert
 (>= 1.0 xb))
(assert
 (let ((?t0 (* (- 2.0) z0 e_1)))
 (let ((?t1 (* e_1 e_1)))
 (let ((?t2 (* (- 1.0) xa ?t1)))
 (let ((?t3 (* z0 ?t1)))
 (let ((?t4 (* xa e_1)))
 (let ((?t5 (* (- 1.0) e_1)))
 (let (($t6 (and (>= (+ (- 1.0) z0 e_1 ?t4 ?t3 ?t2 ?t0) 0.0) (<= (+ 1.0 z0 ?t5 ?t4 ?t3 ?t2 ?t0) 0.0))))
 (let (($t7 (and (<= (+ 1.0 z0 (* (- 1.0) ?t1) ?t3 ?t0) 0.0) (>= (+ (- 1.0) z0 ?t1 ?t3 ?t0) 0.0))))
 (and $t7 (not $t6)))))))))))
(assert
 (let ((?t0 (* (- 2.0) z0 e_1)))
 (let ((?t1 (* e_1 e_1)))
 (let ((?t8 (* (- 1.0) xb ?t1)))
 (let ((?t3 (* z0 ?t1)))
 (let ((?t9 (* xb e_1)))
 (let ((?t5 (* (- 1.0) e_1)))
 (and (>= (+ (- 1.0) z0 e_1 ?t9 ?t3 ?t8 ?t0) 0.0) (<= (+ 1.0 z0 ?t5 ?t9 ?t3 ?t8 ?t0) 0.0)))))))))
(assert
 (let ((?t10 (+ (* (- 2.0) e_1) (* (- 2.0) (^ e_1 7.0)) (* 2.0 (* e_1 e_1 e_1)) (* 2.0 (* e_1 e_1 e_1 e_1 e_1)))))
 (> ?t10 0.0)))
(assert
 (and (distinct (+ 1.0 (* (- 1.0) z0) (* z0 e_1) (* (- 1.0) xa e_1)) 0.0) true))
(assert
 (and (distinct (+ (- 1.0) (* (- 1.0) z0) (* z0 e_1) (* (- 1.0) xa e_1)) 0.0) true))
(assert
 (and (distinct (+ (- 1.0) (* (- 1.0) z0) (* (- 1.0) e_1) (* z0 e_1)) 0.0) true))
(assert
 (and (distinct (+ 1.0 e_1 (* (- 1.0) z0) (* z0 e_1)) 0.0) true))
(assert
 (and (distinct (+ 1.0 (* (- 1.0) z0) (* z0 e_1) (* (- 1.0) xb e_1)) 0.0) true))
(assert
 (and (distinct (+ (- 1.0) (* (- 1.0) z0) (* z0 e_1) (* (- 1.0) xb e_1)) 0.0) true))
(assert
 (and (distinct (+ (- 1.0) (* (- 1.0) z0) (* (- 1.0) e_1) (* z0 e_1)) 0.0) true))
(assert
 (and (distinct (+ 1.0 e_1 (* (- 1.0) z0) (* z0 e_1)) 0.0) true))
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
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
; query 22: one coordinate at ε/k: branch 1 at x <= e^claim branch 1 at x' (expected: unsat)
; Hybrid mechanism, d dimensions (one coordinate) [component 0: density]: branch 1 at x exceeds e^claim times branch 1 at x'
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun e_1 () Real)
(declare-fun xa () Real)
(declare-fun xb () Real)
(declare-fun z0 () Real)
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (<= (- 1.0) xb))
(assert
 (>= 1.0 xb))
(assert
 (let ((?t0 (* (- 2.0) z0 e_1)))
 (let ((?t1 (* e_1 e_1)))
 (let ((?t2 (* (- 1.0) xa ?t1)))
 (let ((?t3 (* z0 ?t1)))
 (let ((?t4 (* xa e_1)))
 (let ((?t5 (* (- 1.0) e_1)))
 (let (($t6 (and (>= (+ (- 1.0) z0 e_1 ?t4 ?t3 ?t2 ?t0) 0.0) (<= (+ 1.0 z0 ?t5 ?t4 ?t3 ?t2 ?t0) 0.0))))
 (let (($t7 (and (<= (+ 1.0 z0 (* (- 1.0) ?t1) ?t3 ?t0) 0.0) (>= (+ (- 1.0) z0 ?t1 ?t3 ?t0) 0.0))))
 (and $t7 (not $t6)))))))))))
(assert
 (let ((?t0 (* (- 2.0) z0 e_1)))
 (let ((?t1 (* e_1 e_1)))
 (let ((?t8 (* (- 1.0) xb ?t1)))
 (let ((?t3 (* z0 ?t1)))
 (let ((?t9 (* xb e_1)))
 (let ((?t5 (* (- 1.0) e_1)))
 (let (($t10 (and (>= (+ (- 1.0) z0 e_1 ?t9 ?t3 ?t8 ?t0) 0.0) (<= (+ 1.0 z0 ?t5 ?t9 ?t3 ?t8 ?t0) 0.0))))
 (let (($t7 (and (<= (+ 1.0 z0 (* (- 1.0) ?t1) ?t3 ?t0) 0.0) (>= (+ (- 1.0) z0 ?t1 ?t3 ?t0) 0.0))))
 (and $t7 (not $t10)))))))))))
(assert
 (let ((?t11 (+ (* (- 2.0) e_1) (* (- 2.0) (* e_1 e_1 e_1 e_1 e_1)) (* 4.0 (* e_1 e_1 e_1)))))
 (> ?t11 0.0)))
(assert
 (and (distinct (+ 1.0 (* (- 1.0) z0) (* z0 e_1) (* (- 1.0) xa e_1)) 0.0) true))
(assert
 (and (distinct (+ (- 1.0) (* (- 1.0) z0) (* z0 e_1) (* (- 1.0) xa e_1)) 0.0) true))
(assert
 (and (distinct (+ (- 1.0) (* (- 1.0) z0) (* (- 1.0) e_1) (* z0 e_1)) 0.0) true))
(assert
 (and (distinct (+ 1.0 e_1 (* (- 1.0) z0) (* z0 e_1)) 0.0) true))
(assert
 (and (distinct (+ 1.0 (* (- 1.0) z0) (* z0 e_1) (* (- 1.0) xb e_1)) 0.0) true))
(assert
 (and (distinct (+ (- 1.0) (* (- 1.0) z0) (* z0 e_1) (* (- 1.0) xb e_1)) 0.0) true))
(assert
 (and (distinct (+ (- 1.0) (* (- 1.0) z0) (* (- 1.0) e_1) (* z0 e_1)) 0.0) true))
(assert
 (and (distinct (+ 1.0 e_1 (* (- 1.0) z0) (* z0 e_1)) 0.0) true))
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
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
; query 23: one coordinate at ε/k: branch 1 at x <= e^claim branch 2 at x' (expected: unsat)
; Hybrid mechanism, d dimensions (one coordinate) [component 0: density]: branch 1 at x exceeds e^claim times branch 2 at x'
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun e_1 () Real)
(declare-fun xa () Real)
(declare-fun xb () Real)
(declare-fun z0 () Real)
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (<= (- 1.0) xb))
(assert
 (>= 1.0 xb))
(assert
 (let ((?t0 (* (- 2.0) z0 e_1)))
 (let ((?t1 (* e_1 e_1)))
 (let ((?t2 (* (- 1.0) xa ?t1)))
 (let ((?t3 (* z0 ?t1)))
 (let ((?t4 (* xa e_1)))
 (let ((?t5 (* (- 1.0) e_1)))
 (let (($t6 (and (>= (+ (- 1.0) z0 e_1 ?t4 ?t3 ?t2 ?t0) 0.0) (<= (+ 1.0 z0 ?t5 ?t4 ?t3 ?t2 ?t0) 0.0))))
 (let (($t7 (and (<= (+ 1.0 z0 (* (- 1.0) ?t1) ?t3 ?t0) 0.0) (>= (+ (- 1.0) z0 ?t1 ?t3 ?t0) 0.0))))
 (and $t7 (not $t6)))))))))))
(assert
 (let ((?t0 (* (- 2.0) z0 e_1)))
 (let ((?t1 (* e_1 e_1)))
 (let ((?t3 (* z0 ?t1)))
 (let (($t7 (and (<= (+ 1.0 z0 (* (- 1.0) ?t1) ?t3 ?t0) 0.0) (>= (+ (- 1.0) z0 ?t1 ?t3 ?t0) 0.0))))
 (let ((?t8 (* (- 1.0) xb ?t1)))
 (let ((?t9 (* xb e_1)))
 (let ((?t5 (* (- 1.0) e_1)))
 (let (($t10 (and (>= (+ (- 1.0) z0 e_1 ?t9 ?t3 ?t8 ?t0) 0.0) (<= (+ 1.0 z0 ?t5 ?t9 ?t3 ?t8 ?t0) 0.0))))
 (and true (not $t10) (not $t7)))))))))))
(assert
 (let ((?t11 (+ (* (- 2.0) e_1) (* 2.0 (* e_1 e_1 e_1)))))
 (> ?t11 0.0)))
(assert
 (and (distinct (+ 1.0 (* (- 1.0) z0) (* z0 e_1) (* (- 1.0) xa e_1)) 0.0) true))
(assert
 (and (distinct (+ (- 1.0) (* (- 1.0) z0) (* z0 e_1) (* (- 1.0) xa e_1)) 0.0) true))
(assert
 (and (distinct (+ (- 1.0) (* (- 1.0) z0) (* (- 1.0) e_1) (* z0 e_1)) 0.0) true))
(assert
 (and (distinct (+ 1.0 e_1 (* (- 1.0) z0) (* z0 e_1)) 0.0) true))
(assert
 (and (distinct (+ 1.0 (* (- 1.0) z0) (* z0 e_1) (* (- 1.0) xb e_1)) 0.0) true))
(assert
 (and (distinct (+ (- 1.0) (* (- 1.0) z0) (* z0 e_1) (* (- 1.0) xb e_1)) 0.0) true))
(assert
 (and (distinct (+ (- 1.0) (* (- 1.0) z0) (* (- 1.0) e_1) (* z0 e_1)) 0.0) true))
(assert
 (and (distinct (+ 1.0 e_1 (* (- 1.0) z0) (* z0 e_1)) 0.0) true))
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
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
; query 24: one coordinate at ε/k: no obligation can fail (expected: unsat)
; Hybrid mechanism, d dimensions (one coordinate) [component 1: atoms]: 2-LDP for all real inputs: some obligation fails (denominators cleared)
; obligation: -xa*(-1 + exp(2))/(2 + 2*exp(2)) + 1/2 <= e^claim * -xb*(-1 + exp(2))/(2 + 2*exp(2)) + 1/2
; obligation: xa*(-1 + exp(2))/(2 + 2*exp(2)) + 1/2 <= e^claim * xb*(-1 + exp(2))/(2 + 2*exp(2)) + 1/2
; e^claim = exp(2)
; e_2 = exp(2), pinned between rationals (96-bit enclosure)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun e_2 () Real)
(declare-fun xa () Real)
(declare-fun xb () Real)
(assert
 (< (/ 149867862382871967520372713593561.0 20282409603651670423947251286016.0) e_2))
(assert
 (> (/ 37466965595717991880093178398391.0 5070602400912917605986812821504.0) e_2))
(assert
 (<= (- 1.0) xa))
(assert
 (>= 1.0 xa))
(assert
 (<= (- 1.0) xb))
(assert
 (>= 1.0 xb))
(assert
 (let ((?t0 (* 2.0 e_2)))
(let ((?t1 (+ 2.0 ?t0)))
(let (($t2 (> (* (+ 1.0 e_2 (* xa (+ (- 1.0) e_2))) ?t1 1.0) (* e_2 (+ 1.0 e_2 (* xb (+ (- 1.0) e_2))) ?t1))))
(let (($t3 (> (* (+ 1.0 e_2 (* (- 1.0) xa (+ (- 1.0) e_2))) ?t1 1.0) (* e_2 (+ 1.0 e_2 (* (- 1.0) xb (+ (- 1.0) e_2))) ?t1))))
(or $t3 $t2))))))
(check-sat)
