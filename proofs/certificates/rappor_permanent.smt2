; ldpaudit 0.1.0 certificate: RAPPOR permanent: PROVED 2*log(2*(1 - f/2)/f)-LDP for all 2 <= d (integer), 0 < f < 1
; re-check: z3 rappor_permanent.smt2   (every line of output must be unsat)
; query 1: no obligation can fail (expected: unsat)
; RAPPOR permanent: 2*log(2*(1 - f/2)/f)-LDP: some obligation fails (denominators cleared)
; obligation: f*(1 - f/2)/2 <= e^claim * f*(1 - f/2)/2
; obligation: f**2/4 <= e^claim * (1 - f/2)**2
; obligation: (1 - f/2)**2 <= e^claim * f**2/4
; obligation: f*(1 - f/2)/2 <= e^claim * f*(1 - f/2)/2
; obligation: 1 <= e^claim * 1
; e^claim = 4*(1 - f/2)**2/f**2
(set-option :smt.random_seed 0)
; benchmark generated from python API
(set-info :status unknown)
(declare-fun f () Real)
(assert
 (< 0.0 f))
(assert
 (> 1.0 f))
(assert
 (let ((?t0 (* (- 1.0) f)))
(let ((?t1 (+ 2.0 ?t0)))
(let ((?t2 (* ?t1 ?t1)))
(let (($t3 (> (* (* f ?t1) 4.0 (* f f)) (* ?t2 (* f ?t1) 4.0))))
(or $t3 (> (* (* f f) 4.0 (* f f)) (* ?t2 ?t2 4.0)) (> (* ?t2 4.0 (* f f)) (* ?t2 (* f f) 4.0)) $t3 (> (* 1.0 1.0 (* f f)) (* ?t2 1.0 1.0))))))))
(check-sat)
