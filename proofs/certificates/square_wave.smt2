; ldpaudit 0.1.0 certificate: Square wave: PROVED epsilon-LDP for all 0 < epsilon, 0 < b
; re-check: z3 square_wave.smt2   (every line of output must be unsat)
; query 1: the breakpoints never lie in the order (0, 1) (expected: unsat)
; can the breakpoints lie in the order (0, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* (- 1.0) b)))
(> ?t0 0.0)))
(check-sat)
(reset)
; query 2: the breakpoints never lie in the order (0, 2, 1) (expected: unsat)
; can the breakpoints lie in the order (0, 2, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> b 0.0))
(assert
 (let ((?t0 (* (- 2.0) b)))
(> ?t0 0.0)))
(check-sat)
(reset)
; query 3: the breakpoints never lie in the order (0, 2, 3) (expected: unsat)
; can the breakpoints lie in the order (0, 2, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> b 0.0))
(assert
 (> (+ (* (- 1.0) xa) (* (- 2.0) b)) 0.0))
(check-sat)
(reset)
; query 4: the breakpoints never lie in the order (0, 2, 4, 1) (expected: unsat)
; can the breakpoints lie in the order (0, 2, 4, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> b 0.0))
(assert
 (let ((?t0 (* (- 1.0) xa)))
 (let ((?t1 (+ 1.0 ?t0)))
 (> ?t1 0.0))))
(assert
 (> (+ (- 1.0) xa (* (- 2.0) b)) 0.0))
(check-sat)
(reset)
; query 5: the breakpoints never lie in the order (0, 2, 4, 3) (expected: unsat)
; can the breakpoints lie in the order (0, 2, 4, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> b 0.0))
(assert
 (let ((?t0 (+ 1.0 (* (- 1.0) xa))))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (+ (- 1.0) (* (- 2.0) b))))
(> ?t1 0.0)))
(check-sat)
(reset)
; query 6: the breakpoints never lie in the order (0, 3) (expected: unsat)
; can the breakpoints lie in the order (0, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> (+ (* (- 1.0) xa) (* (- 1.0) b)) 0.0))
(check-sat)
(reset)
; query 7: the breakpoints never lie in the order (0, 4, 1) (expected: unsat)
; can the breakpoints lie in the order (0, 4, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* (- 1.0) xa)))
 (let ((?t1 (+ 1.0 b ?t0)))
 (> ?t1 0.0))))
(assert
 (> (+ (- 1.0) xa (* (- 2.0) b)) 0.0))
(check-sat)
(reset)
; query 8: the breakpoints never lie in the order (0, 4, 2) (expected: unsat)
; can the breakpoints lie in the order (0, 4, 2)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* (- 1.0) xa)))
 (let ((?t1 (+ 1.0 b ?t0)))
 (> ?t1 0.0))))
(assert
 (let ((?t2 (+ (- 1.0) xa)))
(> ?t2 0.0)))
(check-sat)
(reset)
; query 9: the breakpoints never lie in the order (0, 4, 3) (expected: unsat)
; can the breakpoints lie in the order (0, 4, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* (- 1.0) xa)))
 (let ((?t1 (+ 1.0 b ?t0)))
 (> ?t1 0.0))))
(assert
 (let ((?t2 (+ (- 1.0) (* (- 2.0) b))))
(> ?t2 0.0)))
(check-sat)
(reset)
; query 10: the breakpoints never lie in the order (1, 0, 2, 3) (expected: unsat)
; can the breakpoints lie in the order (1, 0, 2, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> b 0.0))
(assert
 (> b 0.0))
(assert
 (> (+ (* (- 1.0) xa) (* (- 2.0) b)) 0.0))
(check-sat)
(reset)
; query 11: the breakpoints never lie in the order (1, 0, 2, 4, 3) (expected: unsat)
; can the breakpoints lie in the order (1, 0, 2, 4, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> b 0.0))
(assert
 (> b 0.0))
(assert
 (let ((?t0 (+ 1.0 (* (- 1.0) xa))))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (+ (- 1.0) (* (- 2.0) b))))
(> ?t1 0.0)))
(check-sat)
(reset)
; query 12: the breakpoints never lie in the order (1, 0, 3) (expected: unsat)
; can the breakpoints lie in the order (1, 0, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> b 0.0))
(assert
 (> (+ (* (- 1.0) xa) (* (- 1.0) b)) 0.0))
(check-sat)
(reset)
; query 13: the breakpoints never lie in the order (1, 0, 4, 2) (expected: unsat)
; can the breakpoints lie in the order (1, 0, 4, 2)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> b 0.0))
(assert
 (let ((?t0 (* (- 1.0) xa)))
 (let ((?t1 (+ 1.0 b ?t0)))
 (> ?t1 0.0))))
(assert
 (let ((?t2 (+ (- 1.0) xa)))
(> ?t2 0.0)))
(check-sat)
(reset)
; query 14: the breakpoints never lie in the order (1, 0, 4, 3) (expected: unsat)
; can the breakpoints lie in the order (1, 0, 4, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> b 0.0))
(assert
 (let ((?t0 (* (- 1.0) xa)))
 (let ((?t1 (+ 1.0 b ?t0)))
 (> ?t1 0.0))))
(assert
 (let ((?t2 (+ (- 1.0) (* (- 2.0) b))))
(> ?t2 0.0)))
(check-sat)
(reset)
; query 15: the breakpoints never lie in the order (1, 2, 0) (expected: unsat)
; can the breakpoints lie in the order (1, 2, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* 2.0 b)))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (* (- 1.0) b)))
(> ?t1 0.0)))
(check-sat)
(reset)
; query 16: the breakpoints never lie in the order (1, 2, 3) (expected: unsat)
; can the breakpoints lie in the order (1, 2, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* 2.0 b)))
 (> ?t0 0.0)))
(assert
 (> (+ (* (- 1.0) xa) (* (- 2.0) b)) 0.0))
(check-sat)
(reset)
; query 17: the breakpoints never lie in the order (1, 2, 4, 0) (expected: unsat)
; can the breakpoints lie in the order (1, 2, 4, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* 2.0 b)))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t2 (+ 1.0 ?t1)))
 (> ?t2 0.0))))
(assert
 (> (+ (- 1.0) xa (* (- 1.0) b)) 0.0))
(check-sat)
(reset)
; query 18: the breakpoints never lie in the order (1, 2, 4, 3) (expected: unsat)
; can the breakpoints lie in the order (1, 2, 4, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* 2.0 b)))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (+ 1.0 (* (- 1.0) xa))))
 (> ?t1 0.0)))
(assert
 (let ((?t2 (+ (- 1.0) (* (- 2.0) b))))
(> ?t2 0.0)))
(check-sat)
(reset)
; query 19: the breakpoints never lie in the order (1, 3) (expected: unsat)
; can the breakpoints lie in the order (1, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* (- 1.0) xa)))
(> ?t0 0.0)))
(check-sat)
(reset)
; query 20: the breakpoints never lie in the order (1, 4, 0) (expected: unsat)
; can the breakpoints lie in the order (1, 4, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> (+ 1.0 (* (- 1.0) xa) (* 2.0 b)) 0.0))
(assert
 (> (+ (- 1.0) xa (* (- 1.0) b)) 0.0))
(check-sat)
(reset)
; query 21: the breakpoints never lie in the order (1, 4, 2) (expected: unsat)
; can the breakpoints lie in the order (1, 4, 2)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> (+ 1.0 (* (- 1.0) xa) (* 2.0 b)) 0.0))
(assert
 (let ((?t0 (+ (- 1.0) xa)))
(> ?t0 0.0)))
(check-sat)
(reset)
; query 22: the breakpoints never lie in the order (1, 4, 3) (expected: unsat)
; can the breakpoints lie in the order (1, 4, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> (+ 1.0 (* (- 1.0) xa) (* 2.0 b)) 0.0))
(assert
 (let ((?t0 (+ (- 1.0) (* (- 2.0) b))))
(> ?t0 0.0)))
(check-sat)
(reset)
; query 23: the breakpoints never lie in the order (2, 0) (expected: unsat)
; can the breakpoints lie in the order (2, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* (- 1.0) b)))
(> ?t0 0.0)))
(check-sat)
(reset)
; query 24: the breakpoints never lie in the order (2, 1) (expected: unsat)
; can the breakpoints lie in the order (2, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* (- 2.0) b)))
(> ?t0 0.0)))
(check-sat)
(reset)
; query 25: the breakpoints never lie in the order (2, 3) (expected: unsat)
; can the breakpoints lie in the order (2, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> (+ (* (- 1.0) xa) (* (- 2.0) b)) 0.0))
(check-sat)
(reset)
; query 26: the breakpoints never lie in the order (2, 4, 0) (expected: unsat)
; can the breakpoints lie in the order (2, 4, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* (- 1.0) xa)))
 (let ((?t1 (+ 1.0 ?t0)))
 (> ?t1 0.0))))
(assert
 (> (+ (- 1.0) xa (* (- 1.0) b)) 0.0))
(check-sat)
(reset)
; query 27: the breakpoints never lie in the order (2, 4, 1) (expected: unsat)
; can the breakpoints lie in the order (2, 4, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* (- 1.0) xa)))
 (let ((?t1 (+ 1.0 ?t0)))
 (> ?t1 0.0))))
(assert
 (> (+ (- 1.0) xa (* (- 2.0) b)) 0.0))
(check-sat)
(reset)
; query 28: the breakpoints never lie in the order (2, 4, 3) (expected: unsat)
; can the breakpoints lie in the order (2, 4, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ 1.0 (* (- 1.0) xa))))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (+ (- 1.0) (* (- 2.0) b))))
(> ?t1 0.0)))
(check-sat)
(reset)
; query 29: the breakpoints never lie in the order (3, 0, 1) (expected: unsat)
; can the breakpoints lie in the order (3, 0, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> (+ xa b) 0.0))
(assert
 (let ((?t0 (* (- 1.0) b)))
(> ?t0 0.0)))
(check-sat)
(reset)
; query 30: the breakpoints never lie in the order (3, 0, 2, 1) (expected: unsat)
; can the breakpoints lie in the order (3, 0, 2, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> (+ xa b) 0.0))
(assert
 (> b 0.0))
(assert
 (let ((?t0 (* (- 2.0) b)))
(> ?t0 0.0)))
(check-sat)
(reset)
; query 31: the breakpoints never lie in the order (3, 0, 2, 4, 1) (expected: unsat)
; can the breakpoints lie in the order (3, 0, 2, 4, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> (+ xa b) 0.0))
(assert
 (> b 0.0))
(assert
 (let ((?t0 (* (- 1.0) xa)))
 (let ((?t1 (+ 1.0 ?t0)))
 (> ?t1 0.0))))
(assert
 (> (+ (- 1.0) xa (* (- 2.0) b)) 0.0))
(check-sat)
(reset)
; query 32: the breakpoints never lie in the order (3, 0, 4, 1) (expected: unsat)
; can the breakpoints lie in the order (3, 0, 4, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> (+ xa b) 0.0))
(assert
 (let ((?t0 (* (- 1.0) xa)))
 (let ((?t1 (+ 1.0 b ?t0)))
 (> ?t1 0.0))))
(assert
 (> (+ (- 1.0) xa (* (- 2.0) b)) 0.0))
(check-sat)
(reset)
; query 33: the breakpoints never lie in the order (3, 0, 4, 2) (expected: unsat)
; can the breakpoints lie in the order (3, 0, 4, 2)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> (+ xa b) 0.0))
(assert
 (let ((?t0 (* (- 1.0) xa)))
 (let ((?t1 (+ 1.0 b ?t0)))
 (> ?t1 0.0))))
(assert
 (let ((?t2 (+ (- 1.0) xa)))
(> ?t2 0.0)))
(check-sat)
(reset)
; query 34: the breakpoints never lie in the order (3, 1, 0, 4, 2) (expected: unsat)
; can the breakpoints lie in the order (3, 1, 0, 4, 2)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> xa 0.0))
(assert
 (> b 0.0))
(assert
 (let ((?t0 (* (- 1.0) xa)))
 (let ((?t1 (+ 1.0 b ?t0)))
 (> ?t1 0.0))))
(assert
 (let ((?t2 (+ (- 1.0) xa)))
(> ?t2 0.0)))
(check-sat)
(reset)
; query 35: the breakpoints never lie in the order (3, 1, 2, 0) (expected: unsat)
; can the breakpoints lie in the order (3, 1, 2, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> xa 0.0))
(assert
 (let ((?t0 (* 2.0 b)))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (* (- 1.0) b)))
(> ?t1 0.0)))
(check-sat)
(reset)
; query 36: the breakpoints never lie in the order (3, 1, 2, 4, 0) (expected: unsat)
; can the breakpoints lie in the order (3, 1, 2, 4, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> xa 0.0))
(assert
 (let ((?t0 (* 2.0 b)))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t2 (+ 1.0 ?t1)))
 (> ?t2 0.0))))
(assert
 (> (+ (- 1.0) xa (* (- 1.0) b)) 0.0))
(check-sat)
(reset)
; query 37: the breakpoints never lie in the order (3, 1, 4, 0) (expected: unsat)
; can the breakpoints lie in the order (3, 1, 4, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> xa 0.0))
(assert
 (> (+ 1.0 (* (- 1.0) xa) (* 2.0 b)) 0.0))
(assert
 (> (+ (- 1.0) xa (* (- 1.0) b)) 0.0))
(check-sat)
(reset)
; query 38: the breakpoints never lie in the order (3, 1, 4, 2) (expected: unsat)
; can the breakpoints lie in the order (3, 1, 4, 2)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> xa 0.0))
(assert
 (> (+ 1.0 (* (- 1.0) xa) (* 2.0 b)) 0.0))
(assert
 (let ((?t0 (+ (- 1.0) xa)))
(> ?t0 0.0)))
(check-sat)
(reset)
; query 39: the breakpoints never lie in the order (3, 2, 0) (expected: unsat)
; can the breakpoints lie in the order (3, 2, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> (+ xa (* 2.0 b)) 0.0))
(assert
 (let ((?t0 (* (- 1.0) b)))
(> ?t0 0.0)))
(check-sat)
(reset)
; query 40: the breakpoints never lie in the order (3, 2, 1) (expected: unsat)
; can the breakpoints lie in the order (3, 2, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> (+ xa (* 2.0 b)) 0.0))
(assert
 (let ((?t0 (* (- 2.0) b)))
(> ?t0 0.0)))
(check-sat)
(reset)
; query 41: the breakpoints never lie in the order (3, 2, 4, 0) (expected: unsat)
; can the breakpoints lie in the order (3, 2, 4, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> (+ xa (* 2.0 b)) 0.0))
(assert
 (let ((?t0 (* (- 1.0) xa)))
 (let ((?t1 (+ 1.0 ?t0)))
 (> ?t1 0.0))))
(assert
 (> (+ (- 1.0) xa (* (- 1.0) b)) 0.0))
(check-sat)
(reset)
; query 42: the breakpoints never lie in the order (3, 2, 4, 1) (expected: unsat)
; can the breakpoints lie in the order (3, 2, 4, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> (+ xa (* 2.0 b)) 0.0))
(assert
 (let ((?t0 (* (- 1.0) xa)))
 (let ((?t1 (+ 1.0 ?t0)))
 (> ?t1 0.0))))
(assert
 (> (+ (- 1.0) xa (* (- 2.0) b)) 0.0))
(check-sat)
(reset)
; query 43: the breakpoints never lie in the order (3, 4, 0) (expected: unsat)
; can the breakpoints lie in the order (3, 4, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ 1.0 (* 2.0 b))))
 (> ?t0 0.0)))
(assert
 (> (+ (- 1.0) xa (* (- 1.0) b)) 0.0))
(check-sat)
(reset)
; query 44: the breakpoints never lie in the order (3, 4, 1) (expected: unsat)
; can the breakpoints lie in the order (3, 4, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (* 2.0 b)))
 (let ((?t1 (+ 1.0 ?t0)))
 (> ?t1 0.0))))
(assert
 (> (+ (- 1.0) xa (* (- 2.0) b)) 0.0))
(check-sat)
(reset)
; query 45: the breakpoints never lie in the order (3, 4, 2) (expected: unsat)
; can the breakpoints lie in the order (3, 4, 2)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ 1.0 (* 2.0 b))))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (+ (- 1.0) xa)))
(> ?t1 0.0)))
(check-sat)
(reset)
; query 46: the breakpoints never lie in the order (4, 0) (expected: unsat)
; can the breakpoints lie in the order (4, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> (+ (- 1.0) xa (* (- 1.0) b)) 0.0))
(check-sat)
(reset)
; query 47: the breakpoints never lie in the order (4, 1) (expected: unsat)
; can the breakpoints lie in the order (4, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> (+ (- 1.0) xa (* (- 2.0) b)) 0.0))
(check-sat)
(reset)
; query 48: the breakpoints never lie in the order (4, 2) (expected: unsat)
; can the breakpoints lie in the order (4, 2)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ (- 1.0) xa)))
(> ?t0 0.0)))
(check-sat)
(reset)
; query 49: the breakpoints never lie in the order (4, 3) (expected: unsat)
; can the breakpoints lie in the order (4, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ (- 1.0) (* (- 2.0) b))))
(> ?t0 0.0)))
(check-sat)
(reset)
; query 50: f >= 0 on (-b, -b + x) of the order (3, 1, 0, 2, 4) (expected: unsat)
; negative density on a cell of the order (3, 1, 0, 2, 4)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(declare-fun z0 () Real)
(declare-fun u_epsilon () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> xa 0.0))
(assert
 (> b 0.0))
(assert
 (> b 0.0))
(assert
 (let ((?t0 (* (- 1.0) xa)))
 (let ((?t1 (+ 1.0 ?t0)))
 (> ?t1 0.0))))
(assert
 (> (+ z0 b) 0.0))
(assert
 (< (+ z0 b (* (- 1.0) xa)) 0.0))
(assert
 (< (+ 1.0 (* 2.0 b u_epsilon)) 0.0))
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(check-sat)
(reset)
; query 51: f >= 0 on (-b + x, x) of the order (3, 1, 0, 2, 4) (expected: unsat)
; negative density on a cell of the order (3, 1, 0, 2, 4)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun b () Real)
(declare-fun xa () Real)
(declare-fun z0 () Real)
(declare-fun u_epsilon () Real)
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> xa 0.0))
(assert
 (> b 0.0))
(assert
 (> b 0.0))
(assert
 (let ((?t0 (* (- 1.0) xa)))
 (let ((?t1 (+ 1.0 ?t0)))
 (> ?t1 0.0))))
(assert
 (> (+ z0 b (* (- 1.0) xa)) 0.0))
(assert
 (< (+ z0 (* (- 1.0) xa)) 0.0))
(assert
 (< (+ u_epsilon (* 2.0 b (* u_epsilon u_epsilon))) 0.0))
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(check-sat)
(reset)
; query 52: f >= 0 on (x, b + x) of the order (3, 1, 0, 2, 4) (expected: unsat)
; negative density on a cell of the order (3, 1, 0, 2, 4)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(declare-fun b () Real)
(declare-fun z0 () Real)
(declare-fun u_epsilon () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (< 0.0 b))
(assert
 (> xa 0.0))
(assert
 (> b 0.0))
(assert
 (> b 0.0))
(assert
 (let ((?t0 (* (- 1.0) xa)))
 (let ((?t1 (+ 1.0 ?t0)))
 (> ?t1 0.0))))
(assert
 (> (+ z0 (* (- 1.0) xa)) 0.0))
(assert
 (< (+ z0 (* (- 1.0) xa) (* (- 1.0) b)) 0.0))
(assert
 (< (+ u_epsilon (* 2.0 b (* u_epsilon u_epsilon))) 0.0))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (< 0.0 b))
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(check-sat)
(reset)
; query 53: f >= 0 on (b + x, b + 1) of the order (3, 1, 0, 2, 4) (expected: unsat)
; negative density on a cell of the order (3, 1, 0, 2, 4)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(declare-fun b () Real)
(declare-fun z0 () Real)
(declare-fun u_epsilon () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (< 0.0 b))
(assert
 (> xa 0.0))
(assert
 (> b 0.0))
(assert
 (> b 0.0))
(assert
 (let ((?t0 (* (- 1.0) xa)))
 (let ((?t1 (+ 1.0 ?t0)))
 (> ?t1 0.0))))
(assert
 (> (+ z0 (* (- 1.0) xa) (* (- 1.0) b)) 0.0))
(assert
 (< (+ (- 1.0) z0 (* (- 1.0) b)) 0.0))
(assert
 (< (+ 1.0 (* 2.0 b u_epsilon)) 0.0))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (< 0.0 b))
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(check-sat)
(reset)
; query 54: branch 0 at x <= e^claim branch 0 at x' (expected: unsat)
; Square wave: branch 0 at x exceeds e^claim times branch 0 at x'
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(declare-fun b () Real)
(declare-fun xb () Real)
(declare-fun u_epsilon () Real)
(declare-fun z0 () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xb))
(assert
 (>= 1.0 xb))
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (let (($t0 (and (<= (+ z0 (* (- 1.0) xa) (* (- 1.0) b)) 0.0) (not (<= (+ z0 (* (- 1.0) xa)) 0.0)))))
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t2 (+ z0 ?t1)))
 (let (($t3 (<= ?t2 0.0)))
 (or (and $t3 (>= (+ z0 b ?t1) 0.0)) $t0))))))
(assert
 (let (($t4 (and (<= (+ z0 (* (- 1.0) xb) (* (- 1.0) b)) 0.0) (not (<= (+ z0 (* (- 1.0) xb)) 0.0)))))
 (let ((?t5 (* (- 1.0) xb)))
 (let ((?t6 (+ z0 ?t5)))
 (let (($t7 (<= ?t6 0.0)))
 (or (and $t7 (>= (+ z0 b ?t5) 0.0)) $t4))))))
(assert
 (let ((?t8 (* u_epsilon u_epsilon)))
 (let ((?t9 (* (- 1.0) ?t8)))
 (let ((?t10 (+ u_epsilon ?t9 (* (- 2.0) b (* u_epsilon u_epsilon u_epsilon)) (* 2.0 b ?t8))))
 (> ?t10 0.0)))))
(assert
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t2 (+ z0 ?t1)))
 (and (distinct ?t2 0.0) true))))
(assert
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t11 (+ z0 b ?t1)))
 (and (distinct ?t11 0.0) true))))
(assert
 (let ((?t12 (* (- 1.0) b)))
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t13 (+ z0 ?t1 ?t12)))
 (and (distinct ?t13 0.0) true)))))
(assert
 (and (distinct (+ z0 b) 0.0) true))
(assert
 (and (distinct (+ (- 1.0) z0 (* (- 1.0) b)) 0.0) true))
(assert
 (let ((?t5 (* (- 1.0) xb)))
 (let ((?t6 (+ z0 ?t5)))
 (and (distinct ?t6 0.0) true))))
(assert
 (let ((?t5 (* (- 1.0) xb)))
 (let ((?t14 (+ z0 b ?t5)))
 (and (distinct ?t14 0.0) true))))
(assert
 (let ((?t12 (* (- 1.0) b)))
 (let ((?t5 (* (- 1.0) xb)))
 (let ((?t15 (+ z0 ?t5 ?t12)))
 (and (distinct ?t15 0.0) true)))))
(assert
 (and (distinct (+ z0 b) 0.0) true))
(assert
 (and (distinct (+ (- 1.0) z0 (* (- 1.0) b)) 0.0) true))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xb))
(assert
 (>= 1.0 xb))
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(check-sat)
(reset)
; query 55: branch 0 at x <= e^claim branch 1 at x' (expected: unsat)
; Square wave: branch 0 at x exceeds e^claim times branch 1 at x'
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(declare-fun b () Real)
(declare-fun xb () Real)
(declare-fun z0 () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xb))
(assert
 (>= 1.0 xb))
(assert
 (let (($t0 (and (<= (+ z0 (* (- 1.0) xa) (* (- 1.0) b)) 0.0) (not (<= (+ z0 (* (- 1.0) xa)) 0.0)))))
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t2 (+ z0 ?t1)))
 (let (($t3 (<= ?t2 0.0)))
 (or (and $t3 (>= (+ z0 b ?t1) 0.0)) $t0))))))
(assert
 (let (($t4 (and (<= (+ z0 (* (- 1.0) xb) (* (- 1.0) b)) 0.0) (not (<= (+ z0 (* (- 1.0) xb)) 0.0)))))
 (let ((?t5 (* (- 1.0) xb)))
 (let ((?t6 (+ z0 ?t5)))
 (let (($t7 (<= ?t6 0.0)))
 (let (($t8 (and (>= (+ z0 b) 0.0) (<= (+ (- 1.0) z0 (* (- 1.0) b)) 0.0))))
 (and $t8 (not (or (and $t7 (>= (+ z0 b ?t5) 0.0)) $t4)))))))))
(assert
 (> 0.0 0.0))
(assert
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t2 (+ z0 ?t1)))
 (and (distinct ?t2 0.0) true))))
(assert
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t9 (+ z0 b ?t1)))
 (and (distinct ?t9 0.0) true))))
(assert
 (let ((?t10 (* (- 1.0) b)))
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t11 (+ z0 ?t1 ?t10)))
 (and (distinct ?t11 0.0) true)))))
(assert
 (let ((?t12 (+ z0 b)))
 (and (distinct ?t12 0.0) true)))
(assert
 (let ((?t10 (* (- 1.0) b)))
 (let ((?t13 (+ (- 1.0) z0 ?t10)))
 (and (distinct ?t13 0.0) true))))
(assert
 (let ((?t5 (* (- 1.0) xb)))
 (let ((?t6 (+ z0 ?t5)))
 (and (distinct ?t6 0.0) true))))
(assert
 (let ((?t5 (* (- 1.0) xb)))
 (let ((?t14 (+ z0 b ?t5)))
 (and (distinct ?t14 0.0) true))))
(assert
 (let ((?t10 (* (- 1.0) b)))
 (let ((?t5 (* (- 1.0) xb)))
 (let ((?t15 (+ z0 ?t5 ?t10)))
 (and (distinct ?t15 0.0) true)))))
(assert
 (let ((?t12 (+ z0 b)))
 (and (distinct ?t12 0.0) true)))
(assert
 (let ((?t10 (* (- 1.0) b)))
 (let ((?t13 (+ (- 1.0) z0 ?t10)))
 (and (distinct ?t13 0.0) true))))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xb))
(assert
 (>= 1.0 xb))
(check-sat)
(reset)
; query 56: branch 0 at x <= e^claim branch 2 at x' (expected: unsat)
; Square wave: branch 0 at x exceeds e^claim times branch 2 at x'
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(declare-fun b () Real)
(declare-fun xb () Real)
(declare-fun u_epsilon () Real)
(declare-fun z0 () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xb))
(assert
 (>= 1.0 xb))
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (let (($t0 (and (<= (+ z0 (* (- 1.0) xa) (* (- 1.0) b)) 0.0) (not (<= (+ z0 (* (- 1.0) xa)) 0.0)))))
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t2 (+ z0 ?t1)))
 (let (($t3 (<= ?t2 0.0)))
 (or (and $t3 (>= (+ z0 b ?t1) 0.0)) $t0))))))
(assert
 (let (($t4 (and (>= (+ z0 b) 0.0) (<= (+ (- 1.0) z0 (* (- 1.0) b)) 0.0))))
 (let (($t5 (and (<= (+ z0 (* (- 1.0) xb) (* (- 1.0) b)) 0.0) (not (<= (+ z0 (* (- 1.0) xb)) 0.0)))))
 (let ((?t6 (* (- 1.0) xb)))
 (let ((?t7 (+ z0 ?t6)))
 (let (($t8 (<= ?t7 0.0)))
 (and true (not (or (and $t8 (>= (+ z0 b ?t6) 0.0)) $t5)) (not $t4))))))))
(assert
 (> (+ u_epsilon (* 2.0 b (* u_epsilon u_epsilon))) 0.0))
(assert
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t2 (+ z0 ?t1)))
 (and (distinct ?t2 0.0) true))))
(assert
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t9 (+ z0 b ?t1)))
 (and (distinct ?t9 0.0) true))))
(assert
 (let ((?t10 (* (- 1.0) b)))
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t11 (+ z0 ?t1 ?t10)))
 (and (distinct ?t11 0.0) true)))))
(assert
 (let ((?t12 (+ z0 b)))
 (and (distinct ?t12 0.0) true)))
(assert
 (let ((?t10 (* (- 1.0) b)))
 (let ((?t13 (+ (- 1.0) z0 ?t10)))
 (and (distinct ?t13 0.0) true))))
(assert
 (let ((?t6 (* (- 1.0) xb)))
 (let ((?t7 (+ z0 ?t6)))
 (and (distinct ?t7 0.0) true))))
(assert
 (let ((?t6 (* (- 1.0) xb)))
 (let ((?t14 (+ z0 b ?t6)))
 (and (distinct ?t14 0.0) true))))
(assert
 (let ((?t10 (* (- 1.0) b)))
 (let ((?t6 (* (- 1.0) xb)))
 (let ((?t15 (+ z0 ?t6 ?t10)))
 (and (distinct ?t15 0.0) true)))))
(assert
 (let ((?t12 (+ z0 b)))
 (and (distinct ?t12 0.0) true)))
(assert
 (let ((?t10 (* (- 1.0) b)))
 (let ((?t13 (+ (- 1.0) z0 ?t10)))
 (and (distinct ?t13 0.0) true))))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xb))
(assert
 (>= 1.0 xb))
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(check-sat)
(reset)
; query 57: branch 1 at x <= e^claim branch 0 at x' (expected: unsat)
; Square wave: branch 1 at x exceeds e^claim times branch 0 at x'
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(declare-fun b () Real)
(declare-fun xb () Real)
(declare-fun u_epsilon () Real)
(declare-fun z0 () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xb))
(assert
 (>= 1.0 xb))
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (let (($t0 (and (<= (+ z0 (* (- 1.0) xa) (* (- 1.0) b)) 0.0) (not (<= (+ z0 (* (- 1.0) xa)) 0.0)))))
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t2 (+ z0 ?t1)))
 (let (($t3 (<= ?t2 0.0)))
 (let (($t4 (and (>= (+ z0 b) 0.0) (<= (+ (- 1.0) z0 (* (- 1.0) b)) 0.0))))
 (and $t4 (not (or (and $t3 (>= (+ z0 b ?t1) 0.0)) $t0)))))))))
(assert
 (let (($t5 (and (<= (+ z0 (* (- 1.0) xb) (* (- 1.0) b)) 0.0) (not (<= (+ z0 (* (- 1.0) xb)) 0.0)))))
 (let ((?t6 (* (- 1.0) xb)))
 (let ((?t7 (+ z0 ?t6)))
 (let (($t8 (<= ?t7 0.0)))
 (or (and $t8 (>= (+ z0 b ?t6) 0.0)) $t5))))))
(assert
 (let ((?t9 (* u_epsilon u_epsilon)))
 (let ((?t10 (* (- 1.0) ?t9)))
 (let ((?t11 (+ 1.0 ?t10 (* (- 2.0) b (* u_epsilon u_epsilon u_epsilon)) (* 2.0 b u_epsilon))))
 (> ?t11 0.0)))))
(assert
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t2 (+ z0 ?t1)))
 (and (distinct ?t2 0.0) true))))
(assert
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t12 (+ z0 b ?t1)))
 (and (distinct ?t12 0.0) true))))
(assert
 (let ((?t13 (* (- 1.0) b)))
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t14 (+ z0 ?t1 ?t13)))
 (and (distinct ?t14 0.0) true)))))
(assert
 (let ((?t15 (+ z0 b)))
 (and (distinct ?t15 0.0) true)))
(assert
 (let ((?t13 (* (- 1.0) b)))
 (let ((?t16 (+ (- 1.0) z0 ?t13)))
 (and (distinct ?t16 0.0) true))))
(assert
 (let ((?t6 (* (- 1.0) xb)))
 (let ((?t7 (+ z0 ?t6)))
 (and (distinct ?t7 0.0) true))))
(assert
 (let ((?t6 (* (- 1.0) xb)))
 (let ((?t17 (+ z0 b ?t6)))
 (and (distinct ?t17 0.0) true))))
(assert
 (let ((?t13 (* (- 1.0) b)))
 (let ((?t6 (* (- 1.0) xb)))
 (let ((?t18 (+ z0 ?t6 ?t13)))
 (and (distinct ?t18 0.0) true)))))
(assert
 (let ((?t15 (+ z0 b)))
 (and (distinct ?t15 0.0) true)))
(assert
 (let ((?t13 (* (- 1.0) b)))
 (let ((?t16 (+ (- 1.0) z0 ?t13)))
 (and (distinct ?t16 0.0) true))))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xb))
(assert
 (>= 1.0 xb))
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(check-sat)
(reset)
; query 58: branch 1 at x <= e^claim branch 1 at x' (expected: unsat)
; Square wave: branch 1 at x exceeds e^claim times branch 1 at x'
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(declare-fun b () Real)
(declare-fun xb () Real)
(declare-fun u_epsilon () Real)
(declare-fun z0 () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xb))
(assert
 (>= 1.0 xb))
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (let (($t0 (and (<= (+ z0 (* (- 1.0) xa) (* (- 1.0) b)) 0.0) (not (<= (+ z0 (* (- 1.0) xa)) 0.0)))))
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t2 (+ z0 ?t1)))
 (let (($t3 (<= ?t2 0.0)))
 (let (($t4 (and (>= (+ z0 b) 0.0) (<= (+ (- 1.0) z0 (* (- 1.0) b)) 0.0))))
 (and $t4 (not (or (and $t3 (>= (+ z0 b ?t1) 0.0)) $t0)))))))))
(assert
 (let (($t5 (and (<= (+ z0 (* (- 1.0) xb) (* (- 1.0) b)) 0.0) (not (<= (+ z0 (* (- 1.0) xb)) 0.0)))))
 (let ((?t6 (* (- 1.0) xb)))
 (let ((?t7 (+ z0 ?t6)))
 (let (($t8 (<= ?t7 0.0)))
 (let (($t4 (and (>= (+ z0 b) 0.0) (<= (+ (- 1.0) z0 (* (- 1.0) b)) 0.0))))
 (and $t4 (not (or (and $t8 (>= (+ z0 b ?t6) 0.0)) $t5)))))))))
(assert
 (let ((?t9 (* (- 1.0) u_epsilon)))
 (let ((?t10 (+ 1.0 ?t9 (* (- 2.0) b (* u_epsilon u_epsilon)) (* 2.0 b u_epsilon))))
 (> ?t10 0.0))))
(assert
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t2 (+ z0 ?t1)))
 (and (distinct ?t2 0.0) true))))
(assert
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t11 (+ z0 b ?t1)))
 (and (distinct ?t11 0.0) true))))
(assert
 (let ((?t12 (* (- 1.0) b)))
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t13 (+ z0 ?t1 ?t12)))
 (and (distinct ?t13 0.0) true)))))
(assert
 (let ((?t14 (+ z0 b)))
 (and (distinct ?t14 0.0) true)))
(assert
 (let ((?t12 (* (- 1.0) b)))
 (let ((?t15 (+ (- 1.0) z0 ?t12)))
 (and (distinct ?t15 0.0) true))))
(assert
 (let ((?t6 (* (- 1.0) xb)))
 (let ((?t7 (+ z0 ?t6)))
 (and (distinct ?t7 0.0) true))))
(assert
 (let ((?t6 (* (- 1.0) xb)))
 (let ((?t16 (+ z0 b ?t6)))
 (and (distinct ?t16 0.0) true))))
(assert
 (let ((?t12 (* (- 1.0) b)))
 (let ((?t6 (* (- 1.0) xb)))
 (let ((?t17 (+ z0 ?t6 ?t12)))
 (and (distinct ?t17 0.0) true)))))
(assert
 (let ((?t14 (+ z0 b)))
 (and (distinct ?t14 0.0) true)))
(assert
 (let ((?t12 (* (- 1.0) b)))
 (let ((?t15 (+ (- 1.0) z0 ?t12)))
 (and (distinct ?t15 0.0) true))))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xb))
(assert
 (>= 1.0 xb))
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(check-sat)
(reset)
; query 59: branch 1 at x <= e^claim branch 2 at x' (expected: unsat)
; Square wave: branch 1 at x exceeds e^claim times branch 2 at x'
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(declare-fun b () Real)
(declare-fun xb () Real)
(declare-fun u_epsilon () Real)
(declare-fun z0 () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xb))
(assert
 (>= 1.0 xb))
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (let (($t0 (and (<= (+ z0 (* (- 1.0) xa) (* (- 1.0) b)) 0.0) (not (<= (+ z0 (* (- 1.0) xa)) 0.0)))))
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t2 (+ z0 ?t1)))
 (let (($t3 (<= ?t2 0.0)))
 (let (($t4 (and (>= (+ z0 b) 0.0) (<= (+ (- 1.0) z0 (* (- 1.0) b)) 0.0))))
 (and $t4 (not (or (and $t3 (>= (+ z0 b ?t1) 0.0)) $t0)))))))))
(assert
 (let (($t4 (and (>= (+ z0 b) 0.0) (<= (+ (- 1.0) z0 (* (- 1.0) b)) 0.0))))
 (let (($t5 (and (<= (+ z0 (* (- 1.0) xb) (* (- 1.0) b)) 0.0) (not (<= (+ z0 (* (- 1.0) xb)) 0.0)))))
 (let ((?t6 (* (- 1.0) xb)))
 (let ((?t7 (+ z0 ?t6)))
 (let (($t8 (<= ?t7 0.0)))
 (and true (not (or (and $t8 (>= (+ z0 b ?t6) 0.0)) $t5)) (not $t4))))))))
(assert
 (> (+ 1.0 (* 2.0 b u_epsilon)) 0.0))
(assert
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t2 (+ z0 ?t1)))
 (and (distinct ?t2 0.0) true))))
(assert
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t9 (+ z0 b ?t1)))
 (and (distinct ?t9 0.0) true))))
(assert
 (let ((?t10 (* (- 1.0) b)))
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t11 (+ z0 ?t1 ?t10)))
 (and (distinct ?t11 0.0) true)))))
(assert
 (let ((?t12 (+ z0 b)))
 (and (distinct ?t12 0.0) true)))
(assert
 (let ((?t10 (* (- 1.0) b)))
 (let ((?t13 (+ (- 1.0) z0 ?t10)))
 (and (distinct ?t13 0.0) true))))
(assert
 (let ((?t6 (* (- 1.0) xb)))
 (let ((?t7 (+ z0 ?t6)))
 (and (distinct ?t7 0.0) true))))
(assert
 (let ((?t6 (* (- 1.0) xb)))
 (let ((?t14 (+ z0 b ?t6)))
 (and (distinct ?t14 0.0) true))))
(assert
 (let ((?t10 (* (- 1.0) b)))
 (let ((?t6 (* (- 1.0) xb)))
 (let ((?t15 (+ z0 ?t6 ?t10)))
 (and (distinct ?t15 0.0) true)))))
(assert
 (let ((?t12 (+ z0 b)))
 (and (distinct ?t12 0.0) true)))
(assert
 (let ((?t10 (* (- 1.0) b)))
 (let ((?t13 (+ (- 1.0) z0 ?t10)))
 (and (distinct ?t13 0.0) true))))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (< 0.0 b))
(assert
 (<= 0.0 xb))
(assert
 (>= 1.0 xb))
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(check-sat)
