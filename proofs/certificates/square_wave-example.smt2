; ldpaudit 0.1.0 certificate: Square wave: PROVED 1-LDP
; re-check: z3 square_wave-example.smt2   (every line of output must be unsat)
; query 1: the breakpoints never lie in the order (0, 1) (expected: unsat)
; can the breakpoints lie in the order (0, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> (- 1.0) 0.0))
(check-sat)
(reset)
; query 2: the breakpoints never lie in the order (0, 2, 1) (expected: unsat)
; can the breakpoints lie in the order (0, 2, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> 1.0 0.0))
(assert
 (> (- 1.0) 0.0))
(check-sat)
(reset)
; query 3: the breakpoints never lie in the order (0, 2, 3) (expected: unsat)
; can the breakpoints lie in the order (0, 2, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> 1.0 0.0))
(assert
 (let ((?t0 (+ (- 1.0) (* (- 1.0) xa))))
(> ?t0 0.0)))
(check-sat)
(reset)
; query 4: the breakpoints never lie in the order (0, 2, 4, 1) (expected: unsat)
; can the breakpoints lie in the order (0, 2, 4, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> 1.0 0.0))
(assert
 (let ((?t0 (+ 1.0 (* (- 1.0) xa))))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (+ (- 2.0) xa)))
(> ?t1 0.0)))
(check-sat)
(reset)
; query 5: the breakpoints never lie in the order (0, 2, 4, 3) (expected: unsat)
; can the breakpoints lie in the order (0, 2, 4, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> 1.0 0.0))
(assert
 (let ((?t0 (+ 1.0 (* (- 1.0) xa))))
 (> ?t0 0.0)))
(assert
 (> (- 2.0) 0.0))
(check-sat)
(reset)
; query 6: the breakpoints never lie in the order (0, 3) (expected: unsat)
; can the breakpoints lie in the order (0, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ (- 1.0) (* (- 2.0) xa))))
(> ?t0 0.0)))
(check-sat)
(reset)
; query 7: the breakpoints never lie in the order (0, 4, 1) (expected: unsat)
; can the breakpoints lie in the order (0, 4, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ 3.0 (* (- 2.0) xa))))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (+ (- 2.0) xa)))
(> ?t1 0.0)))
(check-sat)
(reset)
; query 8: the breakpoints never lie in the order (0, 4, 2) (expected: unsat)
; can the breakpoints lie in the order (0, 4, 2)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ 3.0 (* (- 2.0) xa))))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (+ (- 1.0) xa)))
(> ?t1 0.0)))
(check-sat)
(reset)
; query 9: the breakpoints never lie in the order (0, 4, 3) (expected: unsat)
; can the breakpoints lie in the order (0, 4, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ 3.0 (* (- 2.0) xa))))
 (> ?t0 0.0)))
(assert
 (> (- 2.0) 0.0))
(check-sat)
(reset)
; query 10: the breakpoints never lie in the order (1, 0, 2, 3) (expected: unsat)
; can the breakpoints lie in the order (1, 0, 2, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> 1.0 0.0))
(assert
 (> 1.0 0.0))
(assert
 (let ((?t0 (+ (- 1.0) (* (- 1.0) xa))))
(> ?t0 0.0)))
(check-sat)
(reset)
; query 11: the breakpoints never lie in the order (1, 0, 2, 4, 3) (expected: unsat)
; can the breakpoints lie in the order (1, 0, 2, 4, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> 1.0 0.0))
(assert
 (> 1.0 0.0))
(assert
 (let ((?t0 (+ 1.0 (* (- 1.0) xa))))
 (> ?t0 0.0)))
(assert
 (> (- 2.0) 0.0))
(check-sat)
(reset)
; query 12: the breakpoints never lie in the order (1, 0, 3) (expected: unsat)
; can the breakpoints lie in the order (1, 0, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> 1.0 0.0))
(assert
 (let ((?t0 (+ (- 1.0) (* (- 2.0) xa))))
(> ?t0 0.0)))
(check-sat)
(reset)
; query 13: the breakpoints never lie in the order (1, 0, 4, 2) (expected: unsat)
; can the breakpoints lie in the order (1, 0, 4, 2)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> 1.0 0.0))
(assert
 (let ((?t0 (+ 3.0 (* (- 2.0) xa))))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (+ (- 1.0) xa)))
(> ?t1 0.0)))
(check-sat)
(reset)
; query 14: the breakpoints never lie in the order (1, 0, 4, 3) (expected: unsat)
; can the breakpoints lie in the order (1, 0, 4, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> 1.0 0.0))
(assert
 (let ((?t0 (+ 3.0 (* (- 2.0) xa))))
 (> ?t0 0.0)))
(assert
 (> (- 2.0) 0.0))
(check-sat)
(reset)
; query 15: the breakpoints never lie in the order (1, 2, 0) (expected: unsat)
; can the breakpoints lie in the order (1, 2, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> 1.0 0.0))
(assert
 (> (- 1.0) 0.0))
(check-sat)
(reset)
; query 16: the breakpoints never lie in the order (1, 2, 3) (expected: unsat)
; can the breakpoints lie in the order (1, 2, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> 1.0 0.0))
(assert
 (let ((?t0 (+ (- 1.0) (* (- 1.0) xa))))
(> ?t0 0.0)))
(check-sat)
(reset)
; query 17: the breakpoints never lie in the order (1, 2, 4, 0) (expected: unsat)
; can the breakpoints lie in the order (1, 2, 4, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> 1.0 0.0))
(assert
 (let ((?t0 (+ 1.0 (* (- 1.0) xa))))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (+ (- 3.0) (* 2.0 xa))))
(> ?t1 0.0)))
(check-sat)
(reset)
; query 18: the breakpoints never lie in the order (1, 2, 4, 3) (expected: unsat)
; can the breakpoints lie in the order (1, 2, 4, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> 1.0 0.0))
(assert
 (let ((?t0 (+ 1.0 (* (- 1.0) xa))))
 (> ?t0 0.0)))
(assert
 (> (- 2.0) 0.0))
(check-sat)
(reset)
; query 19: the breakpoints never lie in the order (1, 3) (expected: unsat)
; can the breakpoints lie in the order (1, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
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
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ 2.0 (* (- 1.0) xa))))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (+ (- 3.0) (* 2.0 xa))))
(> ?t1 0.0)))
(check-sat)
(reset)
; query 21: the breakpoints never lie in the order (1, 4, 2) (expected: unsat)
; can the breakpoints lie in the order (1, 4, 2)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ 2.0 (* (- 1.0) xa))))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (+ (- 1.0) xa)))
(> ?t1 0.0)))
(check-sat)
(reset)
; query 22: the breakpoints never lie in the order (1, 4, 3) (expected: unsat)
; can the breakpoints lie in the order (1, 4, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ 2.0 (* (- 1.0) xa))))
 (> ?t0 0.0)))
(assert
 (> (- 2.0) 0.0))
(check-sat)
(reset)
; query 23: the breakpoints never lie in the order (2, 0) (expected: unsat)
; can the breakpoints lie in the order (2, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> (- 1.0) 0.0))
(check-sat)
(reset)
; query 24: the breakpoints never lie in the order (2, 1) (expected: unsat)
; can the breakpoints lie in the order (2, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> (- 1.0) 0.0))
(check-sat)
(reset)
; query 25: the breakpoints never lie in the order (2, 3) (expected: unsat)
; can the breakpoints lie in the order (2, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ (- 1.0) (* (- 1.0) xa))))
(> ?t0 0.0)))
(check-sat)
(reset)
; query 26: the breakpoints never lie in the order (2, 4, 0) (expected: unsat)
; can the breakpoints lie in the order (2, 4, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ 1.0 (* (- 1.0) xa))))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (+ (- 3.0) (* 2.0 xa))))
(> ?t1 0.0)))
(check-sat)
(reset)
; query 27: the breakpoints never lie in the order (2, 4, 1) (expected: unsat)
; can the breakpoints lie in the order (2, 4, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ 1.0 (* (- 1.0) xa))))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (+ (- 2.0) xa)))
(> ?t1 0.0)))
(check-sat)
(reset)
; query 28: the breakpoints never lie in the order (2, 4, 3) (expected: unsat)
; can the breakpoints lie in the order (2, 4, 3)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ 1.0 (* (- 1.0) xa))))
 (> ?t0 0.0)))
(assert
 (> (- 2.0) 0.0))
(check-sat)
(reset)
; query 29: the breakpoints never lie in the order (3, 0, 1) (expected: unsat)
; can the breakpoints lie in the order (3, 0, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ 1.0 (* 2.0 xa))))
 (> ?t0 0.0)))
(assert
 (> (- 1.0) 0.0))
(check-sat)
(reset)
; query 30: the breakpoints never lie in the order (3, 0, 2, 1) (expected: unsat)
; can the breakpoints lie in the order (3, 0, 2, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ 1.0 (* 2.0 xa))))
 (> ?t0 0.0)))
(assert
 (> 1.0 0.0))
(assert
 (> (- 1.0) 0.0))
(check-sat)
(reset)
; query 31: the breakpoints never lie in the order (3, 0, 2, 4, 1) (expected: unsat)
; can the breakpoints lie in the order (3, 0, 2, 4, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ 1.0 (* 2.0 xa))))
 (> ?t0 0.0)))
(assert
 (> 1.0 0.0))
(assert
 (let ((?t1 (+ 1.0 (* (- 1.0) xa))))
 (> ?t1 0.0)))
(assert
 (let ((?t2 (+ (- 2.0) xa)))
(> ?t2 0.0)))
(check-sat)
(reset)
; query 32: the breakpoints never lie in the order (3, 0, 4, 1) (expected: unsat)
; can the breakpoints lie in the order (3, 0, 4, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ 1.0 (* 2.0 xa))))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (+ 3.0 (* (- 2.0) xa))))
 (> ?t1 0.0)))
(assert
 (let ((?t2 (+ (- 2.0) xa)))
(> ?t2 0.0)))
(check-sat)
(reset)
; query 33: the breakpoints never lie in the order (3, 0, 4, 2) (expected: unsat)
; can the breakpoints lie in the order (3, 0, 4, 2)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ 1.0 (* 2.0 xa))))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (+ 3.0 (* (- 2.0) xa))))
 (> ?t1 0.0)))
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
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> xa 0.0))
(assert
 (> 1.0 0.0))
(assert
 (let ((?t0 (+ 3.0 (* (- 2.0) xa))))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (+ (- 1.0) xa)))
(> ?t1 0.0)))
(check-sat)
(reset)
; query 35: the breakpoints never lie in the order (3, 1, 2, 0) (expected: unsat)
; can the breakpoints lie in the order (3, 1, 2, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> xa 0.0))
(assert
 (> 1.0 0.0))
(assert
 (> (- 1.0) 0.0))
(check-sat)
(reset)
; query 36: the breakpoints never lie in the order (3, 1, 2, 4, 0) (expected: unsat)
; can the breakpoints lie in the order (3, 1, 2, 4, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> xa 0.0))
(assert
 (> 1.0 0.0))
(assert
 (let ((?t0 (+ 1.0 (* (- 1.0) xa))))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (+ (- 3.0) (* 2.0 xa))))
(> ?t1 0.0)))
(check-sat)
(reset)
; query 37: the breakpoints never lie in the order (3, 1, 4, 0) (expected: unsat)
; can the breakpoints lie in the order (3, 1, 4, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> xa 0.0))
(assert
 (let ((?t0 (+ 2.0 (* (- 1.0) xa))))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (+ (- 3.0) (* 2.0 xa))))
(> ?t1 0.0)))
(check-sat)
(reset)
; query 38: the breakpoints never lie in the order (3, 1, 4, 2) (expected: unsat)
; can the breakpoints lie in the order (3, 1, 4, 2)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> xa 0.0))
(assert
 (let ((?t0 (+ 2.0 (* (- 1.0) xa))))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (+ (- 1.0) xa)))
(> ?t1 0.0)))
(check-sat)
(reset)
; query 39: the breakpoints never lie in the order (3, 2, 0) (expected: unsat)
; can the breakpoints lie in the order (3, 2, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ 1.0 xa)))
 (> ?t0 0.0)))
(assert
 (> (- 1.0) 0.0))
(check-sat)
(reset)
; query 40: the breakpoints never lie in the order (3, 2, 1) (expected: unsat)
; can the breakpoints lie in the order (3, 2, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ 1.0 xa)))
 (> ?t0 0.0)))
(assert
 (> (- 1.0) 0.0))
(check-sat)
(reset)
; query 41: the breakpoints never lie in the order (3, 2, 4, 0) (expected: unsat)
; can the breakpoints lie in the order (3, 2, 4, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ 1.0 xa)))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (+ 1.0 (* (- 1.0) xa))))
 (> ?t1 0.0)))
(assert
 (let ((?t2 (+ (- 3.0) (* 2.0 xa))))
(> ?t2 0.0)))
(check-sat)
(reset)
; query 42: the breakpoints never lie in the order (3, 2, 4, 1) (expected: unsat)
; can the breakpoints lie in the order (3, 2, 4, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ 1.0 xa)))
 (> ?t0 0.0)))
(assert
 (let ((?t1 (+ 1.0 (* (- 1.0) xa))))
 (> ?t1 0.0)))
(assert
 (let ((?t2 (+ (- 2.0) xa)))
(> ?t2 0.0)))
(check-sat)
(reset)
; query 43: the breakpoints never lie in the order (3, 4, 0) (expected: unsat)
; can the breakpoints lie in the order (3, 4, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> 2.0 0.0))
(assert
 (let ((?t0 (+ (- 3.0) (* 2.0 xa))))
(> ?t0 0.0)))
(check-sat)
(reset)
; query 44: the breakpoints never lie in the order (3, 4, 1) (expected: unsat)
; can the breakpoints lie in the order (3, 4, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> 2.0 0.0))
(assert
 (let ((?t0 (+ (- 2.0) xa)))
(> ?t0 0.0)))
(check-sat)
(reset)
; query 45: the breakpoints never lie in the order (3, 4, 2) (expected: unsat)
; can the breakpoints lie in the order (3, 4, 2)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> 2.0 0.0))
(assert
 (let ((?t0 (+ (- 1.0) xa)))
(> ?t0 0.0)))
(check-sat)
(reset)
; query 46: the breakpoints never lie in the order (4, 0) (expected: unsat)
; can the breakpoints lie in the order (4, 0)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ (- 3.0) (* 2.0 xa))))
(> ?t0 0.0)))
(check-sat)
(reset)
; query 47: the breakpoints never lie in the order (4, 1) (expected: unsat)
; can the breakpoints lie in the order (4, 1)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (let ((?t0 (+ (- 2.0) xa)))
(> ?t0 0.0)))
(check-sat)
(reset)
; query 48: the breakpoints never lie in the order (4, 2) (expected: unsat)
; can the breakpoints lie in the order (4, 2)?
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
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
(declare-fun xa () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (> (- 2.0) 0.0))
(check-sat)
(reset)
; query 50: branch 0 at x <= e^claim branch 0 at x' (expected: unsat)
; Square wave: branch 0 at x exceeds e^claim times branch 0 at x'
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(declare-fun xb () Real)
(declare-fun e_1 () Real)
(declare-fun z0 () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (<= 0.0 xb))
(assert
 (>= 1.0 xb))
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
(assert
 (let (($t0 (and (<= (+ (- 1.0) (* (- 2.0) xa) (* 2.0 z0)) 0.0) (not (<= (+ z0 (* (- 1.0) xa)) 0.0)))))
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t2 (+ z0 ?t1)))
 (let (($t3 (<= ?t2 0.0)))
 (or (and $t3 (>= (+ 1.0 (* (- 2.0) xa) (* 2.0 z0)) 0.0)) $t0))))))
(assert
 (let (($t4 (and (<= (+ (- 1.0) (* (- 2.0) xb) (* 2.0 z0)) 0.0) (not (<= (+ z0 (* (- 1.0) xb)) 0.0)))))
 (let ((?t5 (* (- 1.0) xb)))
 (let ((?t6 (+ z0 ?t5)))
 (let (($t7 (<= ?t6 0.0)))
 (or (and $t7 (>= (+ 1.0 (* (- 2.0) xb) (* 2.0 z0)) 0.0)) $t4))))))
(assert
 (let ((?t8 (+ e_1 (* (- 1.0) (* e_1 e_1 e_1)))))
 (> ?t8 0.0)))
(assert
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t2 (+ z0 ?t1)))
 (and (distinct ?t2 0.0) true))))
(assert
 (let ((?t9 (* 2.0 z0)))
 (let ((?t10 (* (- 2.0) xa)))
 (let ((?t11 (+ 1.0 ?t10 ?t9)))
 (and (distinct ?t11 0.0) true)))))
(assert
 (let ((?t9 (* 2.0 z0)))
 (let ((?t10 (* (- 2.0) xa)))
 (let ((?t12 (+ (- 1.0) ?t10 ?t9)))
 (and (distinct ?t12 0.0) true)))))
(assert
 (let ((?t9 (* 2.0 z0)))
 (let ((?t13 (+ 1.0 ?t9)))
 (and (distinct ?t13 0.0) true))))
(assert
 (let ((?t9 (* 2.0 z0)))
 (let ((?t14 (+ (- 3.0) ?t9)))
 (and (distinct ?t14 0.0) true))))
(assert
 (let ((?t5 (* (- 1.0) xb)))
 (let ((?t6 (+ z0 ?t5)))
 (and (distinct ?t6 0.0) true))))
(assert
 (let ((?t9 (* 2.0 z0)))
 (let ((?t15 (* (- 2.0) xb)))
 (let ((?t16 (+ 1.0 ?t15 ?t9)))
 (and (distinct ?t16 0.0) true)))))
(assert
 (let ((?t9 (* 2.0 z0)))
 (let ((?t15 (* (- 2.0) xb)))
 (let ((?t17 (+ (- 1.0) ?t15 ?t9)))
 (and (distinct ?t17 0.0) true)))))
(assert
 (let ((?t9 (* 2.0 z0)))
 (let ((?t13 (+ 1.0 ?t9)))
 (and (distinct ?t13 0.0) true))))
(assert
 (let ((?t9 (* 2.0 z0)))
 (let ((?t14 (+ (- 3.0) ?t9)))
 (and (distinct ?t14 0.0) true))))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (<= 0.0 xb))
(assert
 (>= 1.0 xb))
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
(check-sat)
(reset)
; query 51: branch 0 at x <= e^claim branch 1 at x' (expected: unsat)
; Square wave: branch 0 at x exceeds e^claim times branch 1 at x'
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(declare-fun xb () Real)
(declare-fun z0 () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (<= 0.0 xb))
(assert
 (>= 1.0 xb))
(assert
 (let (($t0 (and (<= (+ (- 1.0) (* (- 2.0) xa) (* 2.0 z0)) 0.0) (not (<= (+ z0 (* (- 1.0) xa)) 0.0)))))
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t2 (+ z0 ?t1)))
 (let (($t3 (<= ?t2 0.0)))
 (or (and $t3 (>= (+ 1.0 (* (- 2.0) xa) (* 2.0 z0)) 0.0)) $t0))))))
(assert
 (let (($t4 (and (<= (+ (- 1.0) (* (- 2.0) xb) (* 2.0 z0)) 0.0) (not (<= (+ z0 (* (- 1.0) xb)) 0.0)))))
 (let ((?t5 (* (- 1.0) xb)))
 (let ((?t6 (+ z0 ?t5)))
 (let (($t7 (<= ?t6 0.0)))
 (let (($t8 (or (and $t7 (>= (+ 1.0 (* (- 2.0) xb) (* 2.0 z0)) 0.0)) $t4)))
 (let (($t9 (and (>= (+ 1.0 (* 2.0 z0)) 0.0) (<= (+ (- 3.0) (* 2.0 z0)) 0.0))))
 (and $t9 (not $t8)))))))))
(assert
 (> 0.0 0.0))
(assert
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t2 (+ z0 ?t1)))
 (and (distinct ?t2 0.0) true))))
(assert
 (let ((?t10 (* 2.0 z0)))
 (let ((?t11 (* (- 2.0) xa)))
 (let ((?t12 (+ 1.0 ?t11 ?t10)))
 (and (distinct ?t12 0.0) true)))))
(assert
 (let ((?t10 (* 2.0 z0)))
 (let ((?t11 (* (- 2.0) xa)))
 (let ((?t13 (+ (- 1.0) ?t11 ?t10)))
 (and (distinct ?t13 0.0) true)))))
(assert
 (let ((?t10 (* 2.0 z0)))
 (let ((?t14 (+ 1.0 ?t10)))
 (and (distinct ?t14 0.0) true))))
(assert
 (let ((?t10 (* 2.0 z0)))
 (let ((?t15 (+ (- 3.0) ?t10)))
 (and (distinct ?t15 0.0) true))))
(assert
 (let ((?t5 (* (- 1.0) xb)))
 (let ((?t6 (+ z0 ?t5)))
 (and (distinct ?t6 0.0) true))))
(assert
 (let ((?t10 (* 2.0 z0)))
 (let ((?t16 (* (- 2.0) xb)))
 (let ((?t17 (+ 1.0 ?t16 ?t10)))
 (and (distinct ?t17 0.0) true)))))
(assert
 (let ((?t10 (* 2.0 z0)))
 (let ((?t16 (* (- 2.0) xb)))
 (let ((?t18 (+ (- 1.0) ?t16 ?t10)))
 (and (distinct ?t18 0.0) true)))))
(assert
 (let ((?t10 (* 2.0 z0)))
 (let ((?t14 (+ 1.0 ?t10)))
 (and (distinct ?t14 0.0) true))))
(assert
 (let ((?t10 (* 2.0 z0)))
 (let ((?t15 (+ (- 3.0) ?t10)))
 (and (distinct ?t15 0.0) true))))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (<= 0.0 xb))
(assert
 (>= 1.0 xb))
(check-sat)
(reset)
; query 52: branch 0 at x <= e^claim branch 2 at x' (expected: unsat)
; Square wave: branch 0 at x exceeds e^claim times branch 2 at x'
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(declare-fun xb () Real)
(declare-fun e_1 () Real)
(declare-fun z0 () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (<= 0.0 xb))
(assert
 (>= 1.0 xb))
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
(assert
 (let (($t0 (and (<= (+ (- 1.0) (* (- 2.0) xa) (* 2.0 z0)) 0.0) (not (<= (+ z0 (* (- 1.0) xa)) 0.0)))))
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t2 (+ z0 ?t1)))
 (let (($t3 (<= ?t2 0.0)))
 (or (and $t3 (>= (+ 1.0 (* (- 2.0) xa) (* 2.0 z0)) 0.0)) $t0))))))
(assert
 (let (($t4 (and (>= (+ 1.0 (* 2.0 z0)) 0.0) (<= (+ (- 3.0) (* 2.0 z0)) 0.0))))
 (let (($t5 (and (<= (+ (- 1.0) (* (- 2.0) xb) (* 2.0 z0)) 0.0) (not (<= (+ z0 (* (- 1.0) xb)) 0.0)))))
 (let ((?t6 (* (- 1.0) xb)))
 (let ((?t7 (+ z0 ?t6)))
 (let (($t8 (<= ?t7 0.0)))
 (let (($t9 (or (and $t8 (>= (+ 1.0 (* (- 2.0) xb) (* 2.0 z0)) 0.0)) $t5)))
 (and true (not $t9) (not $t4)))))))))
(assert
 (let ((?t10 (+ e_1 (* e_1 e_1))))
 (> ?t10 0.0)))
(assert
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t2 (+ z0 ?t1)))
 (and (distinct ?t2 0.0) true))))
(assert
 (let ((?t11 (* 2.0 z0)))
 (let ((?t12 (* (- 2.0) xa)))
 (let ((?t13 (+ 1.0 ?t12 ?t11)))
 (and (distinct ?t13 0.0) true)))))
(assert
 (let ((?t11 (* 2.0 z0)))
 (let ((?t12 (* (- 2.0) xa)))
 (let ((?t14 (+ (- 1.0) ?t12 ?t11)))
 (and (distinct ?t14 0.0) true)))))
(assert
 (let ((?t11 (* 2.0 z0)))
 (let ((?t15 (+ 1.0 ?t11)))
 (and (distinct ?t15 0.0) true))))
(assert
 (let ((?t11 (* 2.0 z0)))
 (let ((?t16 (+ (- 3.0) ?t11)))
 (and (distinct ?t16 0.0) true))))
(assert
 (let ((?t6 (* (- 1.0) xb)))
 (let ((?t7 (+ z0 ?t6)))
 (and (distinct ?t7 0.0) true))))
(assert
 (let ((?t11 (* 2.0 z0)))
 (let ((?t17 (* (- 2.0) xb)))
 (let ((?t18 (+ 1.0 ?t17 ?t11)))
 (and (distinct ?t18 0.0) true)))))
(assert
 (let ((?t11 (* 2.0 z0)))
 (let ((?t17 (* (- 2.0) xb)))
 (let ((?t19 (+ (- 1.0) ?t17 ?t11)))
 (and (distinct ?t19 0.0) true)))))
(assert
 (let ((?t11 (* 2.0 z0)))
 (let ((?t15 (+ 1.0 ?t11)))
 (and (distinct ?t15 0.0) true))))
(assert
 (let ((?t11 (* 2.0 z0)))
 (let ((?t16 (+ (- 3.0) ?t11)))
 (and (distinct ?t16 0.0) true))))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (<= 0.0 xb))
(assert
 (>= 1.0 xb))
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
(check-sat)
(reset)
; query 53: branch 1 at x <= e^claim branch 0 at x' (expected: unsat)
; Square wave: branch 1 at x exceeds e^claim times branch 0 at x'
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(declare-fun xb () Real)
(declare-fun e_1 () Real)
(declare-fun z0 () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (<= 0.0 xb))
(assert
 (>= 1.0 xb))
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
(assert
 (let (($t0 (and (<= (+ (- 1.0) (* (- 2.0) xa) (* 2.0 z0)) 0.0) (not (<= (+ z0 (* (- 1.0) xa)) 0.0)))))
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t2 (+ z0 ?t1)))
 (let (($t3 (<= ?t2 0.0)))
 (let (($t4 (or (and $t3 (>= (+ 1.0 (* (- 2.0) xa) (* 2.0 z0)) 0.0)) $t0)))
 (let (($t5 (and (>= (+ 1.0 (* 2.0 z0)) 0.0) (<= (+ (- 3.0) (* 2.0 z0)) 0.0))))
 (and $t5 (not $t4)))))))))
(assert
 (let (($t6 (and (<= (+ (- 1.0) (* (- 2.0) xb) (* 2.0 z0)) 0.0) (not (<= (+ z0 (* (- 1.0) xb)) 0.0)))))
 (let ((?t7 (* (- 1.0) xb)))
 (let ((?t8 (+ z0 ?t7)))
 (let (($t9 (<= ?t8 0.0)))
 (or (and $t9 (>= (+ 1.0 (* (- 2.0) xb) (* 2.0 z0)) 0.0)) $t6))))))
(assert
 (let ((?t10 (* (- 1.0) (* e_1 e_1 e_1))))
 (let ((?t11 (* (- 1.0) (* e_1 e_1))))
 (let ((?t12 (+ 1.0 e_1 ?t11 ?t10)))
 (> ?t12 0.0)))))
(assert
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t2 (+ z0 ?t1)))
 (and (distinct ?t2 0.0) true))))
(assert
 (let ((?t13 (* 2.0 z0)))
 (let ((?t14 (* (- 2.0) xa)))
 (let ((?t15 (+ 1.0 ?t14 ?t13)))
 (and (distinct ?t15 0.0) true)))))
(assert
 (let ((?t13 (* 2.0 z0)))
 (let ((?t14 (* (- 2.0) xa)))
 (let ((?t16 (+ (- 1.0) ?t14 ?t13)))
 (and (distinct ?t16 0.0) true)))))
(assert
 (let ((?t13 (* 2.0 z0)))
 (let ((?t17 (+ 1.0 ?t13)))
 (and (distinct ?t17 0.0) true))))
(assert
 (let ((?t13 (* 2.0 z0)))
 (let ((?t18 (+ (- 3.0) ?t13)))
 (and (distinct ?t18 0.0) true))))
(assert
 (let ((?t7 (* (- 1.0) xb)))
 (let ((?t8 (+ z0 ?t7)))
 (and (distinct ?t8 0.0) true))))
(assert
 (let ((?t13 (* 2.0 z0)))
 (let ((?t19 (* (- 2.0) xb)))
 (let ((?t20 (+ 1.0 ?t19 ?t13)))
 (and (distinct ?t20 0.0) true)))))
(assert
 (let ((?t13 (* 2.0 z0)))
 (let ((?t19 (* (- 2.0) xb)))
 (let ((?t21 (+ (- 1.0) ?t19 ?t13)))
 (and (distinct ?t21 0.0) true)))))
(assert
 (let ((?t13 (* 2.0 z0)))
 (let ((?t17 (+ 1.0 ?t13)))
 (and (distinct ?t17 0.0) true))))
(assert
 (let ((?t13 (* 2.0 z0)))
 (let ((?t18 (+ (- 3.0) ?t13)))
 (and (distinct ?t18 0.0) true))))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (<= 0.0 xb))
(assert
 (>= 1.0 xb))
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
(check-sat)
(reset)
; query 54: branch 1 at x <= e^claim branch 1 at x' (expected: unsat)
; Square wave: branch 1 at x exceeds e^claim times branch 1 at x'
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(declare-fun xb () Real)
(declare-fun e_1 () Real)
(declare-fun z0 () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (<= 0.0 xb))
(assert
 (>= 1.0 xb))
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
(assert
 (let (($t0 (and (<= (+ (- 1.0) (* (- 2.0) xa) (* 2.0 z0)) 0.0) (not (<= (+ z0 (* (- 1.0) xa)) 0.0)))))
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t2 (+ z0 ?t1)))
 (let (($t3 (<= ?t2 0.0)))
 (let (($t4 (or (and $t3 (>= (+ 1.0 (* (- 2.0) xa) (* 2.0 z0)) 0.0)) $t0)))
 (let (($t5 (and (>= (+ 1.0 (* 2.0 z0)) 0.0) (<= (+ (- 3.0) (* 2.0 z0)) 0.0))))
 (and $t5 (not $t4)))))))))
(assert
 (let (($t6 (and (<= (+ (- 1.0) (* (- 2.0) xb) (* 2.0 z0)) 0.0) (not (<= (+ z0 (* (- 1.0) xb)) 0.0)))))
 (let ((?t7 (* (- 1.0) xb)))
 (let ((?t8 (+ z0 ?t7)))
 (let (($t9 (<= ?t8 0.0)))
 (let (($t10 (or (and $t9 (>= (+ 1.0 (* (- 2.0) xb) (* 2.0 z0)) 0.0)) $t6)))
 (let (($t5 (and (>= (+ 1.0 (* 2.0 z0)) 0.0) (<= (+ (- 3.0) (* 2.0 z0)) 0.0))))
 (and $t5 (not $t10)))))))))
(assert
 (let ((?t11 (+ 1.0 (* (- 1.0) (* e_1 e_1)))))
 (> ?t11 0.0)))
(assert
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t2 (+ z0 ?t1)))
 (and (distinct ?t2 0.0) true))))
(assert
 (let ((?t12 (* 2.0 z0)))
 (let ((?t13 (* (- 2.0) xa)))
 (let ((?t14 (+ 1.0 ?t13 ?t12)))
 (and (distinct ?t14 0.0) true)))))
(assert
 (let ((?t12 (* 2.0 z0)))
 (let ((?t13 (* (- 2.0) xa)))
 (let ((?t15 (+ (- 1.0) ?t13 ?t12)))
 (and (distinct ?t15 0.0) true)))))
(assert
 (let ((?t12 (* 2.0 z0)))
 (let ((?t16 (+ 1.0 ?t12)))
 (and (distinct ?t16 0.0) true))))
(assert
 (let ((?t12 (* 2.0 z0)))
 (let ((?t17 (+ (- 3.0) ?t12)))
 (and (distinct ?t17 0.0) true))))
(assert
 (let ((?t7 (* (- 1.0) xb)))
 (let ((?t8 (+ z0 ?t7)))
 (and (distinct ?t8 0.0) true))))
(assert
 (let ((?t12 (* 2.0 z0)))
 (let ((?t18 (* (- 2.0) xb)))
 (let ((?t19 (+ 1.0 ?t18 ?t12)))
 (and (distinct ?t19 0.0) true)))))
(assert
 (let ((?t12 (* 2.0 z0)))
 (let ((?t18 (* (- 2.0) xb)))
 (let ((?t20 (+ (- 1.0) ?t18 ?t12)))
 (and (distinct ?t20 0.0) true)))))
(assert
 (let ((?t12 (* 2.0 z0)))
 (let ((?t16 (+ 1.0 ?t12)))
 (and (distinct ?t16 0.0) true))))
(assert
 (let ((?t12 (* 2.0 z0)))
 (let ((?t17 (+ (- 3.0) ?t12)))
 (and (distinct ?t17 0.0) true))))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (<= 0.0 xb))
(assert
 (>= 1.0 xb))
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
(check-sat)
(reset)
; query 55: branch 1 at x <= e^claim branch 2 at x' (expected: unsat)
; Square wave: branch 1 at x exceeds e^claim times branch 2 at x'
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun xa () Real)
(declare-fun xb () Real)
(declare-fun e_1 () Real)
(declare-fun z0 () Real)
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (<= 0.0 xb))
(assert
 (>= 1.0 xb))
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
(assert
 (let (($t0 (and (<= (+ (- 1.0) (* (- 2.0) xa) (* 2.0 z0)) 0.0) (not (<= (+ z0 (* (- 1.0) xa)) 0.0)))))
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t2 (+ z0 ?t1)))
 (let (($t3 (<= ?t2 0.0)))
 (let (($t4 (or (and $t3 (>= (+ 1.0 (* (- 2.0) xa) (* 2.0 z0)) 0.0)) $t0)))
 (let (($t5 (and (>= (+ 1.0 (* 2.0 z0)) 0.0) (<= (+ (- 3.0) (* 2.0 z0)) 0.0))))
 (and $t5 (not $t4)))))))))
(assert
 (let (($t5 (and (>= (+ 1.0 (* 2.0 z0)) 0.0) (<= (+ (- 3.0) (* 2.0 z0)) 0.0))))
 (let (($t6 (and (<= (+ (- 1.0) (* (- 2.0) xb) (* 2.0 z0)) 0.0) (not (<= (+ z0 (* (- 1.0) xb)) 0.0)))))
 (let ((?t7 (* (- 1.0) xb)))
 (let ((?t8 (+ z0 ?t7)))
 (let (($t9 (<= ?t8 0.0)))
 (let (($t10 (or (and $t9 (>= (+ 1.0 (* (- 2.0) xb) (* 2.0 z0)) 0.0)) $t6)))
 (and true (not $t10) (not $t5)))))))))
(assert
 (let ((?t11 (+ 1.0 e_1)))
 (> ?t11 0.0)))
(assert
 (let ((?t1 (* (- 1.0) xa)))
 (let ((?t2 (+ z0 ?t1)))
 (and (distinct ?t2 0.0) true))))
(assert
 (let ((?t12 (* 2.0 z0)))
 (let ((?t13 (* (- 2.0) xa)))
 (let ((?t14 (+ 1.0 ?t13 ?t12)))
 (and (distinct ?t14 0.0) true)))))
(assert
 (let ((?t12 (* 2.0 z0)))
 (let ((?t13 (* (- 2.0) xa)))
 (let ((?t15 (+ (- 1.0) ?t13 ?t12)))
 (and (distinct ?t15 0.0) true)))))
(assert
 (let ((?t12 (* 2.0 z0)))
 (let ((?t16 (+ 1.0 ?t12)))
 (and (distinct ?t16 0.0) true))))
(assert
 (let ((?t12 (* 2.0 z0)))
 (let ((?t17 (+ (- 3.0) ?t12)))
 (and (distinct ?t17 0.0) true))))
(assert
 (let ((?t7 (* (- 1.0) xb)))
 (let ((?t8 (+ z0 ?t7)))
 (and (distinct ?t8 0.0) true))))
(assert
 (let ((?t12 (* 2.0 z0)))
 (let ((?t18 (* (- 2.0) xb)))
 (let ((?t19 (+ 1.0 ?t18 ?t12)))
 (and (distinct ?t19 0.0) true)))))
(assert
 (let ((?t12 (* 2.0 z0)))
 (let ((?t18 (* (- 2.0) xb)))
 (let ((?t20 (+ (- 1.0) ?t18 ?t12)))
 (and (distinct ?t20 0.0) true)))))
(assert
 (let ((?t12 (* 2.0 z0)))
 (let ((?t16 (+ 1.0 ?t12)))
 (and (distinct ?t16 0.0) true))))
(assert
 (let ((?t12 (* 2.0 z0)))
 (let ((?t17 (+ (- 3.0) ?t12)))
 (and (distinct ?t17 0.0) true))))
(assert
 (<= 0.0 xa))
(assert
 (>= 1.0 xa))
(assert
 (<= 0.0 xb))
(assert
 (>= 1.0 xb))
(assert
 (< (/ 55133305462969561645442905178267.0 20282409603651670423947251286016.0) e_1))
(assert
 (> (/ 27566652731484780822721452589135.0 10141204801825835211973625643008.0) e_1))
(check-sat)
