"""Large explicit channels (issue 21, item 5): Mechanism.from_matrix and verify on integer weight
matrices, against the obvious baseline in the same run: the same channel built entry by entry as
sympy Rationals through the explicit form (only at 1000 x 1000; at 10^4 x 10^4 the baseline would
take hours). Records CPU seconds and peak memory (ru_maxrss) beside them.

    python benchmarks/bench_matrix.py
"""

from __future__ import annotations

import resource
import time

import numpy as np


def _cpu() -> float:
    return time.process_time()


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    import sympy as sp

    from ldpaudit.mechanism.core import Mechanism
    from ldpaudit.mechanism.explicit import ExplicitChannel
    from ldpaudit.mechanism.spaces import FiniteDomain
    from ldpaudit.verify import verify

    rng = np.random.default_rng(0)
    for n in (1000, 10_000):
        W = rng.integers(1, 1000, size=(n, n), dtype=np.int32)
        t = _cpu()
        mech = Mechanism.from_matrix(W, epsilon="log(1000)")
        build = _cpu() - t
        t = _cpu()
        v = verify(mech, tight=True)
        check = _cpu() - t
        Q = W / W.sum(axis=1, keepdims=True, dtype=np.int64)
        float_eps = float(np.log((Q.max(axis=0) / Q.min(axis=0)).max()))
        del Q
        print(f"{n} x {n}: from_matrix {build:.3f} s CPU, verify {check:.2f} s CPU ({v.status.value}, "
              f"ε* = {float(v.tight_epsilon):.6f}; float check {float_eps:.6f}); peak RSS {_peak_mb():.0f} MB")
        if n == 1000:
            rows = W.tolist()
            t = _cpu()
            entries = tuple(tuple(sp.Rational(w, sum(row)) for w in row) for row in rows)
            baseline = Mechanism(name="explicit", parameters=(), inputs=FiniteDomain(sp.Integer(n), tuple(range(n))),
                                 channel=ExplicitChannel(tuple(range(n)), tuple(range(n)), entries),
                                 claimed_epsilon=sp.log(1000))
            base = _cpu() - t
            print(f"  baseline (explicit form, sympy Rationals): build {base:.1f} s CPU; ratio {base / max(build, 1e-9):.0f}x")
            del baseline, entries


if __name__ == "__main__":
    main()
