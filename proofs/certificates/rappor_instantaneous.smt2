; ldpaudit 0.1.0 certificate: RAPPOR instantaneous: PROVED log(q*(1 - p)/(p*(1 - q)))-LDP for all 0 < p < 1, p < q < 1
; re-check: z3 rappor_instantaneous.smt2   (every line of output must be unsat)
; query 1: no denominator can vanish (expected: unsat)
; RAPPOR instantaneous: log(q*(1 - p)/(p*(1 - q)))-LDP: no denominator vanishes
; obligation: 1 - p <= e^claim * 1 - q
; obligation: 1 - q <= e^claim * 1 - p
; obligation: p <= e^claim * q
; obligation: q <= e^claim * p
; obligation: 1 <= e^claim * 1
; e^claim = q*(1 - p)/(p*(1 - q))
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun p () Real)
(declare-fun q () Real)
(assert
 (< 0.0 p))
(assert
 (> 1.0 p))
(assert
 (> q p))
(assert
 (> 1.0 q))
(assert
 (or (= (* p (+ 1.0 (* (- 1.0) q))) 0.0)))
(check-sat)
(reset)
; query 2: no obligation can fail (expected: unsat)
; RAPPOR instantaneous: log(q*(1 - p)/(p*(1 - q)))-LDP: some obligation fails (denominators cleared)
; obligation: 1 - p <= e^claim * 1 - q
; obligation: 1 - q <= e^claim * 1 - p
; obligation: p <= e^claim * q
; obligation: q <= e^claim * p
; obligation: 1 <= e^claim * 1
; e^claim = q*(1 - p)/(p*(1 - q))
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun p () Real)
(declare-fun q () Real)
(assert
 (< 0.0 p))
(assert
 (> 1.0 p))
(assert
 (> q p))
(assert
 (> 1.0 q))
(assert
 (let ((?t0 (* (- 1.0) p)))
(let ((?t1 (+ 1.0 ?t0)))
(let ((?t2 (* q ?t1)))
(let ((?t3 (* ?t2 1.0 1.0)))
(let ((?t4 (* (- 1.0) q)))
(let ((?t5 (+ 1.0 ?t4)))
(let ((?t6 (* p ?t5)))
(let ((?t7 (* 1.0 1.0 ?t6)))
(let (($t8 (< ?t6 0.0)))
(let (($t9 (or (and (> ?t6 0.0) (> (* q 1.0 ?t6) (* ?t2 p 1.0))) (and $t8 (< (* q 1.0 ?t6) (* ?t2 p 1.0))))))
(let (($t10 (or (and (> ?t6 0.0) (> (* p 1.0 ?t6) (* ?t2 q 1.0))) (and $t8 (< (* p 1.0 ?t6) (* ?t2 q 1.0))))))
(let (($t11 (or (and (> ?t6 0.0) (> (* ?t5 1.0 ?t6) (* ?t2 ?t1 1.0))) (and $t8 (< (* ?t5 1.0 ?t6) (* ?t2 ?t1 1.0))))))
(let (($t12 (or (and (> ?t6 0.0) (> (* ?t1 1.0 ?t6) (* ?t2 ?t5 1.0))) (and $t8 (< (* ?t1 1.0 ?t6) (* ?t2 ?t5 1.0))))))
(or $t12 $t11 $t10 $t9 (or (and (> ?t6 0.0) (> ?t7 ?t3)) (and $t8 (< ?t7 ?t3))))))))))))))))))
(check-sat)
