"""An LDP check for your own test suite.

    from ldpaudit.testing import assert_ldp

    def test_my_randomizer_is_private():
        assert_ldp(my_randomizer, domain=range(8), epsilon=1.0, samples=200_000, seed=0)

``assert_ldp`` audits the randomizer and raises ``AssertionError`` carrying the witness when
the audit certifies, at confidence 1 - alpha, that the true ε exceeds the claim. With a fixed
seed (0 by default) the check is deterministic, so a CI run gives the same answer every
time; a correct randomizer fails it with probability at most alpha (0.01 by default). The
failure message states α, the seed and how to rerun the same audit.

With ldpaudit installed, pytest also loads :mod:`ldpaudit.pytest_plugin`: the ``ldp_audit``
fixture does the same audit with settings from ``@pytest.mark.ldp(...)`` and ``--ldp-samples`` /
``--ldp-alpha``, and a seed derived from each test's node id.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable


def assert_ldp(
    randomizer: Callable,
    *,
    domain: Iterable,
    epsilon: float,
    samples: int = 200_000,
    alpha: float = 0.01,
    seed: int = 0,
    batch: bool = False,
    spec=None,
    **options,
):
    """Fail (``AssertionError`` with the witness) if ``randomizer`` is certified to violate
    ε-LDP, or, when a ``spec`` mechanism is given, does not conform to it. Returns the audit
    result otherwise, so a test can look further (e.g. at ``detectable_epsilon``)."""
    from ldpaudit.audit import audit
    from ldpaudit.audit.engine import conformance_failed

    result = audit(
        randomizer,
        domain=list(domain),
        epsilon=epsilon,
        samples=samples,
        alpha=alpha,
        seed=seed,
        batch=batch,
        spec=spec,
        **options,
    )
    settings = f"α = {alpha:g}, seed {seed}, {samples:,} samples per input"
    if result.epsilon_verdict == "VIOLATION":
        raise AssertionError(
            f"randomizer is not {epsilon}-LDP: certified epsilon >= {result.epsilon_lower_bound:.4f} "
            f"at confidence {result.confidence:g} ({settings}). "
            f"Witness: {_witness_text(result.witness)}. {_reproduce(randomizer, domain, epsilon, samples, alpha, seed, batch)}"
        )
    conformance = getattr(result, "conformance", None)
    if conformance_failed(conformance):
        raise AssertionError(
            f"randomizer does not match its spec ({settings}): {_witness_text(conformance)}. "
            f"{_reproduce(randomizer, domain, epsilon, samples, alpha, seed, batch)}"
        )
    return result


def _reproduce(randomizer, domain, epsilon, samples, alpha, seed, batch) -> str:
    """How to rerun exactly this audit: the command line when the randomizer is importable by
    name, else the same call."""
    command = reproduce_command(randomizer, domain, epsilon, samples, alpha, seed, batch)
    if command:
        return f"Reproduce: {command}"
    return f"Reproduce: the same assert_ldp call (seed={seed}) gives the same result."


def reproduce_command(randomizer, domain, epsilon, samples, alpha, seed, batch, delta=0.0) -> str | None:
    """The ``ldpaudit audit`` command line that reruns this audit, or None when the randomizer
    is not importable by name (a lambda, a closure, a function of ``__main__``). In this process
    (``--no-isolate``), like the call: an isolated per-call target draws other values from the seed."""
    module, name = getattr(randomizer, "__module__", None), getattr(randomizer, "__qualname__", "")
    if not (module and name and "<" not in name and module != "__main__"):
        return None
    values = list(domain)
    contiguous = bool(values) and all(isinstance(v, int) for v in values) and values == list(
        range(values[0], values[-1] + 1))
    dom = f"{values[0]}..{values[-1]}" if contiguous else ",".join(map(str, values))
    return (f"ldpaudit audit {module}:{name} --domain {dom} --epsilon {epsilon} --samples {samples} "
            f"--alpha {alpha:g} --seed {seed}{' --batch' if batch else ''}{f' --delta {delta:g}' if delta else ''} "
            f"--no-isolate")


def _witness_text(witness) -> str:
    if witness is None:
        return "(none)"
    describe = getattr(witness, "describe", None)
    if callable(describe):
        return describe()
    if hasattr(witness, "to_json"):
        witness = witness.to_json()
    if isinstance(witness, dict):
        return "; ".join(f"{k}={v}" for k, v in witness.items())
    return str(witness)
