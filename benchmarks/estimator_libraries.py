"""Adapters for ``ldpaudit audit-estimator`` on three libraries' clients and servers.

pure-ldp 1.2.0 (classes: ``XClient(epsilon, d, ...).privatise(item)``, ``XServer`` with
``aggregate`` and ``estimate``, items 1..d, estimated counts), multi-freq-ldpy 0.2.5
(functions: ``X_Client(x, k, epsilon)``, ``X_Aggregator_MI(reports, k, epsilon)``, items 0..k-1,
normalized frequencies) and ldp-toolbox 0.1.3 (below). Each client here is a batch target
``f(x, n, rng)`` for input x in 0..d-1 that seeds the library's generators (``random``,
``numpy.random`` and numba's own, which ``numpy.random.seed`` does not reach) from ``rng``, so
runs are reproducible. Each server takes the list of reports and returns one estimate per input
0..d-1 (pure-ldp's: counts, so run with ``--counts``). Install the libraries in their own
environment and put its site-packages on PYTHONPATH (they need ``xxhash<4``, numba,
scikit-learn and statsmodels)::

    python -m venv /tmp/libs && /tmp/libs/bin/pip install 'xxhash<4' pure-ldp multi-freq-ldpy scikit-learn statsmodels
    PYTHONPATH=/tmp/libs/lib/python3.11/site-packages:benchmarks ldpaudit audit-estimator \\
        estimator_libraries:mfl_client estimator_libraries:mfl_server --batch \\
        --target-arg name=GRR --target-arg d=8 --target-arg epsilon=1 \\
        --server-arg name=GRR --server-arg d=8 --server-arg epsilon=1 \\
        --spec krr -p d=8 -p epsilon=1 --n 50 --trials 1000 --alpha 0.05
"""
from __future__ import annotations

import math
import random

import numpy as np

_numba_seed = None


def _seed(rng: np.random.Generator) -> None:
    """Seed the generators a library may draw from, from ``rng``."""
    global _numba_seed
    s = int(rng.integers(0, 2**32))
    random.seed(s)
    np.random.seed(s)
    try:
        if _numba_seed is None:
            import numba

            @numba.njit
            def seed(value):
                np.random.seed(value)

            _numba_seed = seed
        _numba_seed(s)
    except ImportError:
        pass


def _batch(one):
    def client(x, n, rng):
        _seed(rng)
        return [one(int(x)) for _ in range(n)]

    return client


# --- pure-ldp ---------------------------------------------------------------------------------


def pure_client(*, name: str, d, epsilon, g=None):
    """pure-ldp's DE, UE (SUE), OUE, LH (BLH, g = 2) or OLH client, on inputs 0..d-1."""
    from pure_ldp import frequency_oracles as F

    d, epsilon = int(d), float(epsilon)
    client = {"DE": lambda: F.DEClient(epsilon, d), "UE": lambda: F.UEClient(epsilon, d),
              "OUE": lambda: F.UEClient(epsilon, d, use_oue=True),
              "LH": lambda: F.LHClient(epsilon, d, g=int(g or 2)),
              "OLH": lambda: F.LHClient(epsilon, d, use_olh=True)}[name]()
    return _batch(lambda x: client.privatise(x + 1))


def pure_server(*, name: str, d, epsilon, g=None):
    """pure-ldp's server of the same name: aggregate every report, estimate items 1..d (counts)."""
    from pure_ldp import frequency_oracles as F

    d, epsilon = int(d), float(epsilon)
    make = {"DE": lambda: F.DEServer(epsilon, d), "UE": lambda: F.UEServer(epsilon, d),
            "OUE": lambda: F.UEServer(epsilon, d, use_oue=True),
            "LH": lambda: F.LHServer(epsilon, d, g=int(g or 2)),
            "OLH": lambda: F.LHServer(epsilon, d, use_olh=True)}[name]

    def server(reports):
        s = make()
        s.aggregate_all(reports)
        return [s.estimate(i, suppress_warnings=True) for i in range(1, d + 1)]

    return server


# --- multi-freq-ldpy --------------------------------------------------------------------------


def mfl_client(*, name: str, d, epsilon):
    """multi-freq-ldpy's GRR, SUE, OUE, SS or OLH client (LH with optimal=True)."""
    from multi_freq_ldpy.pure_frequency_oracles import GRR, LH, SS, UE

    d, epsilon = int(d), float(epsilon)
    one = {"GRR": lambda x: GRR.GRR_Client(x, d, epsilon),
           "SUE": lambda x: UE.UE_Client(x, d, epsilon, optimal=False),
           "OUE": lambda x: UE.UE_Client(x, d, epsilon, optimal=True),
           "SS": lambda x: SS.SS_Client(x, d, epsilon),
           "OLH": lambda x: tuple(int(v) for v in LH.LH_Client(x, d, epsilon, optimal=True))}[name]
    return _batch(one)


def mfl_server(*, name: str, d, epsilon):
    """multi-freq-ldpy's matrix-inversion aggregator (``*_Aggregator_MI``) of the same name."""
    from multi_freq_ldpy.pure_frequency_oracles import GRR, LH, SS, UE

    d, epsilon = int(d), float(epsilon)
    return {"GRR": lambda r: GRR.GRR_Aggregator_MI(np.asarray(r), d, epsilon),
            "SUE": lambda r: UE.UE_Aggregator_MI(np.asarray(r), epsilon, optimal=False),
            "OUE": lambda r: UE.UE_Aggregator_MI(np.asarray(r), epsilon, optimal=True),
            "SS": lambda r: SS.SS_Aggregator_MI(r, d, epsilon),
            "OLH": lambda r: LH.LH_Aggregator_MI(r, d, epsilon, optimal=True)}[name]


def ss_size(d, epsilon) -> int:
    """multi-freq-ldpy's subset size: max(1, round(d/(e^ε + 1)))."""
    return max(1, int(round(int(d) / (math.exp(float(epsilon)) + 1))))


# --- ldp-toolbox ------------------------------------------------------------------------------
#
# ldp-toolbox 0.1.3 (classes ``X(k, epsilon, ...)`` in ``ldp_toolbox.protocols.frequency``, with
# ``obfuscate(x)`` for one user and ``estimate(reports)`` for the server, items 0..k-1,
# frequencies clipped at 0 and normalized to sum to 1). Its clients draw from numba's and numpy's
# global generators (seeded by ``_seed``); LocalHashing.estimate hashes in
# ``joblib.Parallel(n_jobs=-1)``, run here with joblib's sequential backend (the same sums, one
# core, no process pool per trial). Install with ``pip install ldp-toolbox 'xxhash<4'`` in its
# own venv (numpy and scipy pinned to ldpaudit's; it pulls dash, ray and matplotlib, which the
# protocols do not import; LocalHashing hashes a ``str``, which xxhash 4 rejects). THE's spec:
# benchmarks/ldp_toolbox_the.toml, with ``-p theta=60/97`` (``ltb_the_parameters`` gives θ).


def _ltb_protocol(name: str, d, epsilon):
    from ldp_toolbox.protocols.frequency import grr, he, lh, ss, ue

    d, epsilon = int(d), float(epsilon)
    return {"GRR": lambda: grr.GeneralizedRandomizedResponse(d, epsilon),
            "SUE": lambda: ue.UnaryEncoding(d, epsilon, optimal=False),
            "OUE": lambda: ue.UnaryEncoding(d, epsilon, optimal=True),
            "SS": lambda: ss.SubsetSelection(d, epsilon),
            "BLH": lambda: lh.LocalHashing(d, epsilon, optimal=False),
            "OLH": lambda: lh.LocalHashing(d, epsilon, optimal=True),
            "HE": lambda: he.HistogramEncoding(d, epsilon, thresholding=False),
            "THE": lambda: he.HistogramEncoding(d, epsilon, thresholding=True)}[name]()


def ltb_client(*, name: str, d, epsilon):
    """ldp-toolbox's GRR, SUE, OUE, SS, BLH, OLH, HE or THE ``obfuscate``, on inputs 0..d-1."""
    protocol = _ltb_protocol(name, d, epsilon)
    if name in ("BLH", "OLH"):
        return _batch(lambda x: tuple(int(v) for v in protocol.obfuscate(x)))
    return _batch(protocol.obfuscate)


def ltb_server(*, name: str, d, epsilon):
    """ldp-toolbox's ``estimate`` of the same protocol (frequencies, one per input 0..d-1)."""
    protocol = _ltb_protocol(name, d, epsilon)

    def server(reports):
        import joblib

        with joblib.parallel_config(backend="sequential"):
            return protocol.estimate(list(reports))

    return server


def ltb_the_parameters(epsilon) -> tuple[float, float, float]:
    """ldp-toolbox's THE threshold θ and its bit probabilities p = P(1 | on), q = P(1 | off)."""
    from ldp_toolbox.protocols.frequency import he

    h = he.HistogramEncoding(2, float(epsilon), thresholding=True)
    return float(h.threshold), float(h.p), float(h.q)
