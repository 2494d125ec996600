; ldpaudit 0.1.0 certificate: k-RAPPOR: PROVED epsilon-LDP for all 2 <= d (integer), 0 < epsilon
; re-check: z3 krappor.smt2   (every line of output must be unsat)
; query 1: no obligation can fail (expected: unsat)
; k-RAPPOR: epsilon-LDP: some obligation fails (denominators cleared)
; obligation: exp(epsilon/2)/(exp(epsilon/2) + 1)**2 <= e^claim * exp(epsilon/2)/(exp(epsilon/2) + 1)**2
; obligation: (exp(epsilon/2) + 1)**(-2) <= e^claim * exp(epsilon)/(exp(epsilon/2) + 1)**2
; obligation: exp(epsilon)/(exp(epsilon/2) + 1)**2 <= e^claim * (exp(epsilon/2) + 1)**(-2)
; obligation: exp(epsilon/2)/(exp(epsilon/2) + 1)**2 <= e^claim * exp(epsilon/2)/(exp(epsilon/2) + 1)**2
; e^claim = exp(epsilon)
; u_epsilon = exp(epsilon/2)
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun u_epsilon () Real)
(assert
 (> u_epsilon 0.0))
(assert
 (< 1.0 u_epsilon))
(assert
 (let ((?x5 (+ 1.0 u_epsilon)))
(let ((?x18 (* ?x5 ?x5)))
(let ((?x27 (* u_epsilon u_epsilon)))
(let ((?x16 (* ?x27 u_epsilon ?x18)))
(let ((?x11 (* u_epsilon ?x18 1.0)))
(let (($x38 (> ?x11 ?x16)))
(let (($x32 (> (* ?x27 ?x18 1.0) (* ?x27 1.0 ?x18))))
(let (($x35 (> (* 1.0 ?x18 1.0) (* ?x27 ?x27 ?x18))))
(or $x38 $x35 $x32 $x38))))))))))
(check-sat)
