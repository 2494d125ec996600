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
 (let (($x35 (>= C_1 0.0)))
 (let ((?x76 (+ (- 1.0) d)))
 (let (($x105 (>= ?x76 0.0)))
 (=> $x105 $x35)))))
(assert
 (let (($x80 (>= C_1 1.0)))
 (=> (and (>= k 0.0) (<= k (+ (- 1.0) d))) $x80)))
(assert
 (= (* C_1 k) (* C_0 (+ (- (+ (- 1.0) d) k) 1.0))))
(assert
 (let (($x38 (>= C_0 0.0)))
 (let ((?x76 (+ (- 1.0) d)))
 (let (($x105 (>= ?x76 0.0)))
 (=> $x105 $x38)))))
(assert
 (let (($x18 (>= C_0 1.0)))
 (=> (and (>= (+ (- 1.0) k) 0.0) (<= (+ (- 1.0) k) (+ (- 1.0) d))) $x18)))
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= 2.0 d))
(assert
 (<= 1.0 k))
(assert
 (let ((?x76 (+ (- 1.0) d)))
 (<= k ?x76)))
(assert
 (or (= (+ C_1 (* C_0 u_epsilon)) 0.0)))
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
 (let (($x35 (>= C_1 0.0)))
 (let ((?x76 (+ (- 1.0) d)))
 (let (($x105 (>= ?x76 0.0)))
 (=> $x105 $x35)))))
(assert
 (let (($x80 (>= C_1 1.0)))
 (=> (and (>= k 0.0) (<= k (+ (- 1.0) d))) $x80)))
(assert
 (= (* C_1 k) (* C_0 (+ (- (+ (- 1.0) d) k) 1.0))))
(assert
 (let (($x38 (>= C_0 0.0)))
 (let ((?x76 (+ (- 1.0) d)))
 (let (($x105 (>= ?x76 0.0)))
 (=> $x105 $x38)))))
(assert
 (let (($x18 (>= C_0 1.0)))
 (=> (and (>= (+ (- 1.0) k) 0.0) (<= (+ (- 1.0) k) (+ (- 1.0) d))) $x18)))
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= 2.0 d))
(assert
 (<= 1.0 k))
(assert
 (let ((?x76 (+ (- 1.0) d)))
 (<= k ?x76)))
(assert
 (let ((?x53 (* C_0 u_epsilon)))
(let ((?x5 (+ C_1 ?x53)))
(let ((?x58 (* u_epsilon u_epsilon ?x5)))
(let ((?x46 (* 1.0 ?x5 1.0)))
(let ((?x184 (* ?x5 ?x5)))
(let (($x65 (< ?x184 0.0)))
(let (($x14 (or (and (> ?x184 0.0) (> ?x46 ?x58)) (and $x65 (< ?x46 ?x58)))))
(let (($x55 (and $x65 (< (* u_epsilon ?x5 1.0) (* u_epsilon 1.0 ?x5)))))
(let (($x34 (> ?x184 0.0)))
(let (($x31 (and $x34 (> (* u_epsilon ?x5 1.0) (* u_epsilon 1.0 ?x5)))))
(let (($x29 (or $x31 $x55)))
(or $x29 $x14)))))))))))))
(check-sat)
