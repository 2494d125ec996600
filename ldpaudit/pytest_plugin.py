"""The pytest plugin: LDP audits as tests, registered through the ``pytest11`` entry point.

    import pytest

    @pytest.mark.ldp(epsilon=1.0, domain=range(8))
    def test_my_randomizer_is_private(ldp_audit):
        ldp_audit(my_randomizer)

The design follows pytest-benchmark (a fixture that runs the measured callable, a marker that
configures it, command-line options and ini settings for the defaults) and Hypothesis (a fixed
seed per test, a failure that shows the falsifying example and how to reproduce it):

- ``ldp_audit(randomizer, **options)`` runs :func:`ldpaudit.audit.audit` and returns its
  result. Options given in the call win over ``@pytest.mark.ldp(...)`` (the closest marker wins
  over a class's or module's), which win over ``--ldp-samples`` / ``--ldp-alpha`` (or the ini
  settings ``ldp_samples`` / ``ldp_alpha``), which win over the defaults (100,000 draws per
  input, α = 0.01).
- The seed is derived from the test's node id (the first 8 bytes of its sha256), so a test
  audits the same draws in every run and every process; ``--ldp-seed`` sets it for all tests,
  ``seed=`` for one.
- VIOLATION, or a spec's conformance test rejected, fails the test with the certified lower
  bound on ε against the claim, the confidence, how false alarms are controlled, the witness
  (pair, event, counts) and how to rerun it. NO_EVIDENCE passes: a randomizer that is truly
  ε-LDP fails with probability at most α. Bad options, a randomizer that errors, or any other
  verdict fail the test; so does a test marked ``ldp`` that never called ``ldp_audit``.

This module is loaded in every pytest session of a project that installed ldpaudit: it
imports only the standard library and pytest; the auditor (numpy, scipy) loads when a test
calls ``ldp_audit``.
"""
from __future__ import annotations

import hashlib
import inspect

import pytest

# a k-RR on 8 inputs called per draw: ~0.4 s, and ~0.7 s once per session for the auditor's imports
# (2 busy cores, CPython 3.11)
DEFAULT_SAMPLES = 100_000
DEFAULT_ALPHA = 0.01
_MARKER = ("ldp(epsilon, domain, samples=None, alpha=None, batch=False, delta=0.0, spec=None, seed=None, ...): "
           "settings of the ldp_audit fixture in this test (see ldpaudit.pytest_plugin)")

_SETTINGS = pytest.StashKey[dict]()
_AUDITS = pytest.StashKey[list]()


def seed_of(nodeid: str) -> int:
    """The audit seed of a test: stable across runs, processes and machines (not ``hash()``,
    which is salted per process)."""
    return int.from_bytes(hashlib.sha256(nodeid.encode("utf-8")).digest()[:8], "big")


# -- options ---------------------------------------------------------------------------------

def pytest_addoption(parser):
    group = parser.getgroup("ldpaudit", "local differential privacy audits (ldpaudit)")
    group.addoption("--ldp-samples", dest="ldp_samples", default=None, metavar="N",
                    help=f"draws per input of each ldp_audit unless the test sets samples= "
                         f"(default {DEFAULT_SAMPLES:,}; ini: ldp_samples)")
    group.addoption("--ldp-alpha", dest="ldp_alpha", default=None, metavar="A",
                    help=f"false-alarm probability of each ldp_audit unless the test sets alpha= "
                         f"(default {DEFAULT_ALPHA:g}; ini: ldp_alpha)")
    group.addoption("--ldp-seed", dest="ldp_seed", default=None, metavar="S",
                    help="seed of every ldp_audit unless the test sets seed= (default: derived from "
                         "each test's node id, the same in every run)")
    parser.addini("ldp_samples", f"draws per input of each ldp_audit (default {DEFAULT_SAMPLES:,})", default=None)
    parser.addini("ldp_alpha", f"false-alarm probability of each ldp_audit (default {DEFAULT_ALPHA:g})", default=None)


def _option(config, name: str):
    """(where it was given, text) of a setting: the command line over the ini file."""
    value = config.getoption(name)
    if value is not None:
        return f"--{name.replace('_', '-')}", value
    value = config.getini(name)
    if value not in (None, ""):
        return f"{name} (ini)", value
    return None, None


def _settings(config) -> dict:
    """The session's defaults, checked once: bad values stop the session (pytest's usage
    error) with the option, the value and the fix."""
    settings = {"samples": DEFAULT_SAMPLES, "alpha": DEFAULT_ALPHA, "seed": None}
    where, text = _option(config, "ldp_samples")
    if where:
        try:
            samples = int(str(text).replace("_", ""))
        except ValueError:
            samples = None
        if samples is None or samples < 100:
            raise pytest.UsageError(f"{where} {text!r}: draws per input must be an integer >= 100, e.g. 100000")
        settings["samples"] = samples
    where, text = _option(config, "ldp_alpha")
    if where:
        try:
            alpha = float(text)
        except ValueError:
            alpha = None
        if alpha is None or not 0 < alpha < 1:
            raise pytest.UsageError(f"{where} {text!r}: the false-alarm probability must lie strictly between "
                                    f"0 and 1, e.g. 0.01")
        settings["alpha"] = alpha
    text = config.getoption("ldp_seed")
    if text is not None:
        try:
            seed = int(text)
        except ValueError:
            seed = None
        if seed is None or seed < 0:
            raise pytest.UsageError(f"--ldp-seed {text!r}: the seed must be a non-negative integer, e.g. 0")
        settings["seed"] = seed
    return settings


def pytest_configure(config):
    config.addinivalue_line("markers", _MARKER)
    config.stash[_SETTINGS] = _settings(config)


def pytest_report_header(config):
    s = config.stash.get(_SETTINGS, None)
    if s is None:
        return None
    seed = f"seed {s['seed']} (--ldp-seed)" if s["seed"] is not None else "seed from each test's node id"
    return f"ldpaudit: {s['samples']:,} samples per input, alpha={s['alpha']:g}, {seed}"


# -- the fixture -----------------------------------------------------------------------------

class LdpAudit:
    """``ldp_audit(randomizer, **options)``: audit ``randomizer`` with this test's settings
    (call options over the ``ldp`` marker's over the session's) and fail the test on a
    certified violation; returns the :class:`~ldpaudit.audit.AuditResult`."""

    def __init__(self, item):
        self._item = item
        self._marks = list(item.iter_markers("ldp"))

    def __call__(self, randomizer, **options):
        __tracebackhide__ = True
        marked = {}
        for mark in reversed(self._marks):   # the closest marker last, so it wins
            if mark.args:
                pytest.fail(f"@pytest.mark.ldp{mark.args!r}: the marker takes keywords only, e.g. "
                            f"@pytest.mark.ldp(epsilon=1.0, domain=range(8))", pytrace=False)
            marked.update(mark.kwargs)
        from ldpaudit.audit import audit
        from ldpaudit.errors import LdpAuditError

        session = self._item.config.stash[_SETTINGS]
        given = {**marked, **options}
        for required in ("epsilon", "domain"):
            if given.get(required) is None:
                pytest.fail(f"ldp_audit: {required} is required: give it in @pytest.mark.ldp({required}=...) or "
                            f"ldp_audit(randomizer, {required}=...)", pytrace=False)
        if given.get("seed") is not None:
            seed, seed_from = given.pop("seed"), "set by the test"
        elif session["seed"] is not None:
            seed, seed_from = session["seed"], "--ldp-seed"
        else:
            seed, seed_from = seed_of(self._item.nodeid), f"derived from the node id {self._item.nodeid!r}"
        given.pop("seed", None)
        settings = {"samples": session["samples"], "alpha": session["alpha"], **given, "seed": seed}
        if _iterable(settings["domain"]):
            settings["domain"] = list(settings["domain"])   # a generator is read once, here
        domain = settings["domain"]
        accepted = set(inspect.signature(audit).parameters) - {"randomizer"}
        unknown = sorted(set(settings) - accepted)
        if unknown:
            pytest.fail(f"ldp_audit: unknown option {unknown[0]}={settings[unknown[0]]!r}; the options are the "
                        f"keywords of ldpaudit.audit.audit: {', '.join(sorted(accepted))}", pytrace=False)
        problem = None
        try:
            result = audit(randomizer, **settings)
        except LdpAuditError as exc:
            problem = f"ldp_audit could not audit {_name(randomizer)}: {exc}"
        if problem:
            pytest.fail(problem, pytrace=False)
        self._item.stash.setdefault(_AUDITS, []).append(result)
        text = _describe(result, randomizer, settings, domain, seed_from, self._item.nodeid)
        if result.verdict == "VIOLATION" or _conformance_failed(result.conformance):
            pytest.fail(text)
        if result.epsilon_verdict != "NO_EVIDENCE":
            pytest.fail(f"ldp_audit did not decide (verdict {result.epsilon_verdict!r}): nothing is shown either way\n{text}")
        self._item.add_report_section("call", "ldpaudit", text)   # shown with -rP
        return result


@pytest.fixture
def ldp_audit(request) -> LdpAudit:
    """Audit a randomizer for ε-LDP; see :mod:`ldpaudit.pytest_plugin`."""
    return LdpAudit(request.node)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A test marked ``ldp`` that passed without calling ``ldp_audit`` has shown nothing: it
    fails rather than pass silently."""
    outcome = yield
    report = outcome.get_result()
    if (report.when == "call" and report.passed and item.get_closest_marker("ldp") is not None
            and not item.stash.get(_AUDITS, None)):
        report.outcome = "failed"
        uses = "called" if "ldp_audit" in getattr(item, "fixturenames", ()) else "requested"
        report.longrepr = (f"{item.nodeid} is marked @pytest.mark.ldp but never {uses} the ldp_audit fixture, so "
                           f"nothing was audited: add the argument ldp_audit and call ldp_audit(randomizer)")


# -- the message -----------------------------------------------------------------------------

def _describe(result, randomizer, settings, domain, seed_from, nodeid) -> str:
    """The verdict as Hypothesis shows a falsifying example: what was shown, at what
    confidence, the witness a person can check, and how to get the same run again."""
    eps, alpha, samples, seed = result.epsilon_claimed, settings["alpha"], settings["samples"], settings["seed"]
    delta = result.delta
    claim = f"({eps:g}, {delta:g})-LDP" if delta else f"{eps:g}-LDP"
    conformance = result.conformance
    lines, w = [], result.witness
    if result.epsilon_verdict == "VIOLATION":
        lines.append(f"VIOLATION: {_name(randomizer)} is not {claim}")
    elif _conformance_failed(conformance):
        lines.append(f"NONCONFORMING: {_name(randomizer)} does not match its spec")
    else:
        lines.append(f"{result.verdict}: no evidence that {_name(randomizer)} is not {claim}")
    relation = " >" if result.epsilon_lower_bound > eps else ", not above the"
    at = f" at δ = {delta:g}" if delta else ""
    lines.append(f"Certified: ε >= {result.epsilon_lower_bound:.4f}{relation} claimed ε = {eps:g}{at}, at confidence "
                 f"{result.confidence:g} (the largest bound these draws can certify: {result.detectable_epsilon:.4g})")
    k = f"the k = {w['candidates_confirmed']}" if w and "candidates_confirmed" in w else "the k"
    lines.append(f"False alarms: a randomizer that is truly {claim} is reported as a VIOLATION with probability "
                 f"at most α = {alpha:g} (events chosen before the confirmation draws; one-sided exact Clopper-Pearson "
                 f"bounds at α/(2k), Bonferroni over {k} confirmed candidate(s) × 2 bounds)")
    if w:
        x, y = w["pair"]
        label = "Falsifying witness" if result.epsilon_verdict == "VIOLATION" else "Best event"
        lines.append(f"{label}: x={x!r}, x'={y!r}, S = {w['event']}: {w['counts'][0]}/{w['samples'][0]} "
                     f"under x vs {w['counts'][1]}/{w['samples'][1]} under x' (P(S|x) >= {w['p_lower']:.5g}, "
                     f"P(S|x') <= {w['q_upper']:.5g})")
        if w.get("example"):
            lines.append(f"  example: {w['example']}")
    if isinstance(conformance, dict):
        lines.append(f"Conformance to the spec: {'passed' if conformance.get('passed') else 'REJECTED'}; "
                     f"{conformance.get('method', '')}")
        d = conformance.get("discrepancy")
        if d:
            lines.append(f"  discrepancy: input {d['input']!r}, S = {d['event']}: {d['count']}/{d['trials']} observed "
                         f"(frequency {d['observed_frequency']:.5g}) vs probability {d['expected_probability']:.5g} "
                         f"expected, p = {d['p_value']:.3g}")
    lines.append(f"Settings: {samples:,} samples per input, α = {alpha:g}, seed {seed} ({seed_from})")
    lines.append(f"Reproduce: pytest '{nodeid}' repeats this audit exactly (same seed, same draws); "
                 f"pytest --ldp-seed={seed} sets the seed for every test")
    if settings.get("spec") is None and callable(randomizer):
        from ldpaudit.testing import reproduce_command

        command = reproduce_command(randomizer, domain, eps, samples, alpha, seed, bool(settings.get("batch")), delta)
        if command:
            lines.append(f"  or: {command}")
    return "\n".join(lines)


def _conformance_failed(conformance) -> bool:
    from ldpaudit.audit.engine import conformance_failed

    return conformance_failed(conformance)


def _name(randomizer) -> str:
    return getattr(randomizer, "__qualname__", None) or getattr(randomizer, "__name__", None) or repr(randomizer)


def _iterable(value) -> bool:
    try:
        iter(value)
    except TypeError:
        return False
    return not isinstance(value, (str, bytes))


# -- papers ----------------------------------------------------------------------------------


def assert_paper_reproduces(manifest, committed=None) -> None:
    """A paper's repository tests its build in one line::

        def test_paper():
            assert_paper_reproduces("paper.toml")

    rebuilds the manifest into a temporary folder (``ldpaudit reproduce paper.toml --check``)
    and fails, listing them, on a printed value that DIFFERs (not a known misprint), a claim
    not PROVED, or a file that differs in meaning from the committed output folder."""
    from ldpaudit.papers.command import check_manifest

    result, differences = check_manifest(manifest, committed)
    problems = [f"{r.item.key}: {r.status}" for r in result.items if r.status != "OK"] + differences
    if problems:
        pytest.fail(f"{manifest} does not reproduce ({len(problems)} problem(s)):\n  " + "\n  ".join(problems),
                    pytrace=False)
