; ldpaudit 0.1.0 certificate: k-subset: PROVED epsilon-LDP for all 2 <= d (integer), 1 <= k <= d - 1 (integer), 0 < epsilon
; re-check: z3 ksubset.smt2   (every line of output must be unsat)
; query 1: no denominator can vanish (expected: unsat)
; k-subset: epsilon-LDP: no denominator vanishes
; obligation: exp(epsilon)/(exp(epsilon)*binomial(d - 1, k - 1) + binomial(d - 1, k)) <= e^claim * 1/(exp(epsilon)*binomial(d - 1, k - 1) + binomial(d - 1, k))
; obligation: 1/(exp(epsilon)*binomial(d - 1, k - 1) + binomial(d - 1, k)) <= e^claim * exp(epsilon)/(exp(epsilon)*binomial(d - 1, k - 1) + binomial(d - 1, k))
; e^claim = exp(epsilon)
; u_epsilon = exp(epsilon)
; C_0 = binomial(d - 1, k - 1)
; C_1 = binomial(d - 1, k)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun C_1 () Real)
(declare-fun d () Real)
(declare-fun k () Real)
(declare-fun C_0 () Real)
(declare-fun u_epsilon () Real)
(assert
 (let (($t0 (>= C_1 0.0)))
 (let ((?t1 (+ (- 1.0) d)))
 (let (($t2 (>= ?t1 0.0)))
 (=> $t2 $t0)))))
(assert
 (let (($t3 (>= C_1 1.0)))
 (=> (and (>= k 0.0) (<= k (+ (- 1.0) d))) $t3)))
(assert
 (let ((?t4 (* C_1 k)))
 (= ?t4 (* C_0 (+ (- (+ (- 1.0) d) k) 1.0)))))
(assert
 (let (($t5 (>= C_0 0.0)))
 (let ((?t1 (+ (- 1.0) d)))
 (let (($t2 (>= ?t1 0.0)))
 (=> $t2 $t5)))))
(assert
 (let (($t6 (>= C_0 1.0)))
 (=> (and (>= (+ (- 1.0) k) 0.0) (<= (+ (- 1.0) k) (+ (- 1.0) d))) $t6)))
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= 2.0 d))
(assert
 (<= 1.0 k))
(assert
 (let ((?t1 (+ (- 1.0) d)))
 (<= k ?t1)))
(assert
 (let (($t7 (= (+ C_1 (* C_0 u_epsilon)) 0.0)))
(or $t7)))
(check-sat)
(reset)
; query 2: no obligation can fail (expected: unsat)
; k-subset: epsilon-LDP: some obligation fails (denominators cleared)
; obligation: exp(epsilon)/(exp(epsilon)*binomial(d - 1, k - 1) + binomial(d - 1, k)) <= e^claim * 1/(exp(epsilon)*binomial(d - 1, k - 1) + binomial(d - 1, k))
; obligation: 1/(exp(epsilon)*binomial(d - 1, k - 1) + binomial(d - 1, k)) <= e^claim * exp(epsilon)/(exp(epsilon)*binomial(d - 1, k - 1) + binomial(d - 1, k))
; e^claim = exp(epsilon)
; u_epsilon = exp(epsilon)
; C_0 = binomial(d - 1, k - 1)
; C_1 = binomial(d - 1, k)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun C_1 () Real)
(declare-fun d () Real)
(declare-fun k () Real)
(declare-fun C_0 () Real)
(declare-fun u_epsilon () Real)
(assert
 (let (($t0 (>= C_1 0.0)))
 (let ((?t1 (+ (- 1.0) d)))
 (let (($t2 (>= ?t1 0.0)))
 (=> $t2 $t0)))))
(assert
 (let (($t3 (>= C_1 1.0)))
 (=> (and (>= k 0.0) (<= k (+ (- 1.0) d))) $t3)))
(assert
 (let ((?t4 (* C_1 k)))
 (= ?t4 (* C_0 (+ (- (+ (- 1.0) d) k) 1.0)))))
(assert
 (let (($t5 (>= C_0 0.0)))
 (let ((?t1 (+ (- 1.0) d)))
 (let (($t2 (>= ?t1 0.0)))
 (=> $t2 $t5)))))
(assert
 (let (($t6 (>= C_0 1.0)))
 (=> (and (>= (+ (- 1.0) k) 0.0) (<= (+ (- 1.0) k) (+ (- 1.0) d))) $t6)))
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= 2.0 d))
(assert
 (<= 1.0 k))
(assert
 (let ((?t1 (+ (- 1.0) d)))
 (<= k ?t1)))
(assert
 (let ((?t7 (* C_0 u_epsilon)))
(let ((?t8 (+ C_1 ?t7)))
(let ((?t9 (* u_epsilon u_epsilon ?t8)))
(let ((?t10 (* 1.0 ?t8 1.0)))
(let ((?t11 (* ?t8 ?t8)))
(let (($t12 (< ?t11 0.0)))
(let (($t13 (and $t12 (< (* u_epsilon ?t8 1.0) (* u_epsilon 1.0 ?t8)))))
(let (($t14 (> ?t11 0.0)))
(let (($t15 (and $t14 (> (* u_epsilon ?t8 1.0) (* u_epsilon 1.0 ?t8)))))
(or (or $t15 $t13) (or (and $t14 (> ?t10 ?t9)) (and $t12 (< ?t10 ?t9))))))))))))))
(check-sat)
