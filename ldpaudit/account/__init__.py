"""Privacy accounting beyond one report, computed from the verified channel, exactly.

* :mod:`ldpaudit.account.numbers`: the exact field of a channel's entries (Q or Q(e^c)).
* :mod:`ldpaudit.account.pld`: privacy-loss distributions of a pair, convolution (composition),
  the hockey-stick divergence δ(ε) and the trade-off curve T(α).
* :mod:`ldpaudit.account.profile`: the privacy profile and f-DP curve of a channel and of K
  reports, the worst pair proved; basic and advanced composition beside the exact value.
* :mod:`ldpaudit.account.composition`: composition declarations (independent, chained and
  memoized reports, RAPPOR-style), the memoization cap checked by factorization.
* :mod:`ldpaudit.account.bounds`: proven bounds ``delta_lower`` <= δ(ε) <= ``delta_upper`` of K
  reports from the discretized PLD both ways (the losses' own lattice when they have one), where
  the exact convolution is past its work budget.
* :mod:`ldpaudit.account.discrete`: the pessimistic discretized PLD, a proven upper bound
  ``delta_upper`` for density channels and entries outside Q(e^c).
* :mod:`ldpaudit.account.density`: profiles of density channels (Laplace, Gaussian; K reports).
* :mod:`ldpaudit.account.command`: ``ldpaudit profile``.
* :mod:`ldpaudit.account.shuffle`, :mod:`ldpaudit.account.blanket`,
  :mod:`ldpaudit.account.binomials`: privacy amplification by shuffling (generic clone bound,
  the channel's own clone and privacy-blanket bounds, exact small-n values);
  :mod:`ldpaudit.account.amplify_command`: ``ldpaudit amplify``.

Small API for later stages (e.g. shuffling amplification)::

    from ldpaudit.account.profile import view, delta_at, profile
    v = view(mech, reports=2)          # pair classes with exact PLDs (budget= work units)
    delta_at(v, epsilon).delta         # exact δ(ε)
"""
