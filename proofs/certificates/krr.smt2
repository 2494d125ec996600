; ldpaudit 0.1.0 certificate: k-RR: PROVED epsilon-LDP for all 2 <= d (integer), 0 < epsilon
; re-check: z3 krr.smt2   (every line of output must be unsat)
; query 1: no denominator can vanish (expected: unsat)
; k-RR: epsilon-LDP: no denominator vanishes
; obligation: exp(epsilon)/(d + exp(epsilon) - 1) <= e^claim * 1/(d + exp(epsilon) - 1)
; obligation: 1/(d + exp(epsilon) - 1) <= e^claim * exp(epsilon)/(d + exp(epsilon) - 1)
; e^claim = exp(epsilon)
; u_epsilon = exp(epsilon)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(declare-fun d () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= 2.0 d))
(assert
 (or (= (+ (- 1.0) u_epsilon d) 0.0)))
(check-sat)
(reset)
; query 2: no obligation can fail (expected: unsat)
; k-RR: epsilon-LDP: some obligation fails (denominators cleared)
; obligation: exp(epsilon)/(d + exp(epsilon) - 1) <= e^claim * 1/(d + exp(epsilon) - 1)
; obligation: 1/(d + exp(epsilon) - 1) <= e^claim * exp(epsilon)/(d + exp(epsilon) - 1)
; e^claim = exp(epsilon)
; u_epsilon = exp(epsilon)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(declare-fun d () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (<= 2.0 d))
(assert
 (let ((?x83 (+ (- 1.0) u_epsilon d)))
(let ((?x103 (* u_epsilon u_epsilon ?x83)))
(let ((?x67 (* 1.0 ?x83 1.0)))
(let ((?x71 (* ?x83 ?x83)))
(let (($x59 (< ?x71 0.0)))
(let (($x31 (or (and (> ?x71 0.0) (> ?x67 ?x103)) (and $x59 (< ?x67 ?x103)))))
(let (($x91 (and $x59 (< (* u_epsilon ?x83 1.0) (* u_epsilon 1.0 ?x83)))))
(let (($x90 (> ?x71 0.0)))
(let (($x87 (and $x90 (> (* u_epsilon ?x83 1.0) (* u_epsilon 1.0 ?x83)))))
(let (($x32 (or $x87 $x91)))
(or $x32 $x31))))))))))))
(check-sat)
