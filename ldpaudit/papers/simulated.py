"""Simulated points beside a figure's derived curve (issue 33, item 1): the ℓ2² risk of the
spec's unbiased estimator measured on reports of the mechanism's reference sampler, seeded.

A curve ``value = "M.l2_worst"`` may carry ``simulate = { n = 1000, trials = 200, seed = 1 }``.
At each x of the figure, n users hold inputs from the uniform distribution p = 1/d, as the
figure's model says: drawn i.i.d. (``iid``: the derived risk includes the inputs' own sampling),
or spread evenly by largest remainder (``fixed``: the truth is the population's frequencies).
Each user draws one report from the reference sampler of M bound at that row, and the spec's
estimator (:func:`ldpaudit.audit.estimator.spec_server_for`) gives p̂; the point is the mean
over the trials of Σ_j (p̂_j − p_j)², scaled from n users to the row's n (1 when the row has
none): the risk of an unbiased frequency estimator is exactly ∝ 1/n. The ℓ2² risk of k-RR and
of the unary encodings, Σ_j f_j(1 − f_j)/(n (P − Q)²) with f_j affine in p_j, is concave and
symmetric in p, so its worst case is at the uniform distribution: the points estimate the curve.
Each point carries its standard error."""

from __future__ import annotations

import math

import numpy as np

from ldpaudit.errors import InvalidSpec

#: most reports one figure may draw (n x trials x points)
MAX_DRAWS = 2 * 10**8
_KEYS = {"n", "trials", "seed"}


def parse(entry, where: str, value_text: str, mechanisms) -> dict:
    """The ``simulate`` table of a curve, checked: one-line errors that name the key."""
    import re

    if not isinstance(entry, dict):
        raise InvalidSpec(f"{where} must be a table such as {{ n = 1000, trials = 200, seed = 1 }}")
    unknown = sorted(set(entry) - _KEYS)
    if unknown:
        raise InvalidSpec(f"{where}.{unknown[0]} is not a key of simulate; the keys are n, trials, seed")
    m = re.fullmatch(r"\s*([A-Za-z_]\w*)\.l2_worst\s*", value_text)
    if m is None or m.group(1) not in mechanisms:
        raise InvalidSpec(f"{where}: simulated points are drawn for a curve whose value is one mechanism's "
                          f"l2_worst (e.g. value = \"krr.l2_worst\"), not {value_text!r}")
    out = {"mechanism": m.group(1)}
    for key, low, high, default in (("n", 1, 10**7, None), ("trials", 2, 10**5, None), ("seed", 0, 2**63 - 2, 0)):
        value = entry.get(key, default)
        if value is None:
            raise InvalidSpec(f"{where}.{key} is missing; write e.g. simulate = {{ n = 1000, trials = 200 }}")
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise InvalidSpec(f"{where}.{key} = {value!r} must be a whole number in [{low}, {high}]")
        out[key] = value
    return out


def check_size(options: dict, points: int, where: str) -> None:
    draws = options["n"] * options["trials"] * points
    if draws > MAX_DRAWS:
        raise InvalidSpec(f"{where}: {options['n']} users x {options['trials']} trials x {points} points = {draws:,} "
                          f"reports, more than {MAX_DRAWS:,}; lower n or trials")


def l2_points(mechs: list, options: dict, row_n: list, field: str, model: str = "iid") -> list[tuple[float, float]]:
    """(mean, standard error) of the simulated ℓ2² risk at each bound mechanism, scaled to the
    row's n users."""
    from ldpaudit.audit.estimator import spec_server_for
    from ldpaudit.errors import InvalidParameter
    from ldpaudit.mechanism.randomizers import reference_for

    out = []
    for i, (mech, n_row) in enumerate(zip(mechs, row_n)):
        try:
            sampler, server = reference_for(mech), spec_server_for(mech)
        except InvalidParameter as exc:
            raise InvalidSpec(f"{field}: {exc}") from None
        d = int(mech.inputs.size)
        n = options["n"]
        even = [n // d + (1 if j < n % d else 0) for j in range(d)]
        rng = np.random.default_rng([options["seed"], i])
        losses = np.empty(options["trials"])
        for t in range(options["trials"]):
            counts = rng.multinomial(n, [1.0 / d] * d) if model == "iid" else even
            truth = np.full(d, 1.0 / d) if model == "iid" else np.array(even, dtype=float) / n
            reports = np.concatenate([np.asarray(sampler(x, c, rng)) for x, c in enumerate(counts) if c])
            est = np.asarray(server(reports), dtype=float)
            losses[t] = float(((est - truth) ** 2).sum())
        scale = n / float(n_row)
        mean = float(losses.mean()) * scale
        se = float(losses.std(ddof=1) / math.sqrt(len(losses))) * scale
        out.append((mean, se))
    return out
