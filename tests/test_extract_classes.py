"""``ldpaudit extract`` and ``verify --from-code`` on class targets (issue 36): ``module:Class(args).method``.

pure-ldp 1.2.0's clients keep their parameters on ``self``, set in ``__init__`` through
``update_params`` and a base class of another module. Read from verbatim copies
(tests/fixtures/pure_ldp_1_2_0, put on sys.path; never imported or run), DE's ``_perturb`` is
k-RR entry by entry, at a bound d and generic in d, PROVED at ε and REFUTED just below; UE's
OUE and SUE variants are their bundled product specs. A bug planted in a constructor (SUE's p
from ε, not ε/2) is REFUTED with tight ε* = 2ε and the witness names the constructor's line; a
client whose state carries from one call to the next exits 3 naming the line that changes it;
constructs outside the subset exit 3 naming theirs, and bad targets exit 2 saying the fix.
"""
from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest
import sympy as sp

from ldpaudit.cli import main
from ldpaudit.errors import InvalidParameter, Unextractable
from ldpaudit.extract.channel import extract
from ldpaudit.extract.spec import spec_text
from ldpaudit.mechanism import load_spec, loads_spec

ROOT = Path(__file__).resolve().parents[1]
PURE_LDP = ROOT / "tests" / "fixtures" / "pure_ldp_1_2_0"
CLASSES = ROOT / "tests" / "extract" / "classes.py"
DE = "pure_ldp.frequency_oracles.direct_encoding:DEClient"
UE = "pure_ldp.frequency_oracles.unary_encoding:UEClient"
D, EPS = sp.symbols("d epsilon")


@pytest.fixture
def pure_ldp_copy(monkeypatch):
    """The verbatim copy of pure-ldp 1.2.0 first on sys.path (read by extract, never imported)."""
    monkeypatch.syspath_prepend(str(PURE_LDP))


def _plain(expr) -> sp.Basic:
    expr = sp.sympify(expr)
    return expr.xreplace({s: sp.Symbol(s.name) for s in expr.free_symbols})


def _equal(a, b) -> bool:
    return sp.simplify(_plain(a) - _plain(b)) == 0


def _line(text: str) -> int:
    """The line of tests/extract/classes.py holding ``text`` (once)."""
    lines = [i for i, line in enumerate(CLASSES.read_text().splitlines(), 1) if text in line]
    assert len(lines) == 1, text
    return lines[0]


@functools.cache
def _krr_classes() -> dict:
    return {c.condition: _plain(c.weight) for c in load_spec(ROOT / "specs" / "krr.toml").channel.classes}


def _krr(x, y, d):
    """Q(y|x) of specs/krr.toml at size d (its classes, read from the file)."""
    return _krr_classes()["y == x" if x == y else "y != x"].subs(D, d)


def _verify(capsys, *argv) -> tuple[int, dict]:
    code = main(["verify", "--from-code", *argv, "--json", "--tight"])
    return code, json.loads(capsys.readouterr().out)


def test_de_client_at_a_bound_d_is_krr_entry_by_entry(pure_ldp_copy):
    """DEClient(epsilon, d): __init__ (via FreqOracleClient.__init__ in core/, then update_params
    and super().update_params) sets p = e^ε/(e^ε + d - 1); _perturb draws randint(0, d - 2) and
    swaps the input for d - 1. privatise maps the items 1..d to 0..d-1 first (x - 1)."""
    ex = extract(f"{DE}(epsilon, d)._perturb", [0, 1, 2, 3], {"d": "4"})
    assert [p.name for p in ex.params] == ["epsilon"] and ex.function == "DEClient._perturb"
    for x in range(4):
        for y in range(4):
            assert _equal(ex.rows[x][y], _krr(x, y, 4)), (x, y)
    assert any(name.startswith("FreqOracleClient.__init__ in ") and name.endswith("_freq_oracle_client.py")
               for name, _, _ in ex.helpers)
    assert "self.p = exp(epsilon)/(exp(epsilon) + 3) (set at " in "\n".join(ex.notes)
    mapped = extract(f"{DE}(epsilon, d).privatise", [1, 2, 3, 4], {"d": "4"})
    for x in range(1, 5):
        for y in range(4):
            assert _equal(mapped.rows[x][y], _krr(x - 1, y, 4)), (x, y)


def test_de_client_generic_in_d_equals_the_bundled_krr_class_by_class(pure_ldp_copy):
    ex = extract(f"{DE}(epsilon, d)._perturb", "0..d-1", {})
    assert ex.family is not None and ex.path_count == 3  # keep; other = the draw; the draw was x: d - 1
    ours, theirs = loads_spec(spec_text(ex)), load_spec(ROOT / "specs" / "krr.toml")
    mine = {c.condition: (_plain(c.count), _plain(c.weight)) for c in ours.channel.classes}
    bundled = {c.condition: (_plain(c.count), _plain(c.weight)) for c in theirs.channel.classes}
    assert set(mine) == set(bundled) == {"y == x", "y != x"}
    for when in bundled:
        assert _equal(mine[when][0], bundled[when][0]) and _equal(mine[when][1], bundled[when][1]), when
    assert [p.describe() for p in ours.parameters] == ["0 < epsilon", "2 <= d (integer)"]


def test_de_client_is_proved_at_its_epsilon_and_refuted_just_below(capsys, pure_ldp_copy):
    target = f"{DE}(epsilon, d)._perturb"
    code, out = _verify(capsys, target, "--domain", "0..d-1")
    assert code == 0 and out["verdict"] == "PROVED" and out["tight"]["epsilon"] == "epsilon"
    assert out["scope"] == "for all 0 < epsilon, 2 <= d (integer)"
    code, out = _verify(capsys, target, "--domain", "0..d-1", "--epsilon", "99*epsilon/100")
    assert code == 1 and out["verdict"] == "REFUTED"
    literal = f"{DE}(log(9), 4)._perturb"  # literal arguments: bound, as --target-arg binds them
    code, out = _verify(capsys, literal, "--domain", "0..3")
    assert code == 0 and out["tight"]["epsilon"] == "log(9)"
    code, out = _verify(capsys, literal, "--domain", "0..3", "--epsilon", "log(8999/1000)")
    assert code == 1 and out["verdict"] == "REFUTED"


@pytest.mark.parametrize(("arguments", "spec"), [("epsilon, d, use_oue=True", "oue"), ("epsilon, d", "krappor")])
def test_ue_client_oue_and_sue_are_their_product_specs(pure_ldp_copy, arguments, spec):
    """UEClient: np.random.choice([1, 0], size=d, p=[q, 1 - q]), then the input's bit set to 1
    w.p. p; OUE's p = 1/2, q = 1/(e^ε + 1), SUE's p = e^(ε/2)/(e^(ε/2) + 1), q = 1 - p. With d
    bound (3): the product form, each law equal to the bundled spec's."""
    ex = extract(f"{UE}({arguments})._perturb", [0, 1, 2], {"d": "3"})
    ours, theirs = loads_spec(spec_text(ex)), load_spec(ROOT / "specs" / f"{spec}.toml")
    assert ours.channel.form == theirs.channel.form == "product"
    for law in ("on", "off"):
        for bit in (0, 1):
            mine, bundled = (getattr(m.channel, law).probability(bit) for m in (ours, theirs))
            assert _equal(mine, bundled), (law, bit, mine, bundled)


def test_ue_client_is_not_read_generically_in_d(pure_ldp_copy):
    """Its draw np.random.choice(..., size=self.d) has a symbolic size: exit 3 naming the line,
    asking for d to be bound (DE's _perturb, one element out, is read for every d)."""
    with pytest.raises(Unextractable, match=r"ue_client\.py:54: size = d needs a concrete integer.*bind d with "
                                            r"--target-arg"):
        extract(f"{UE}(epsilon, d, use_oue=True)._perturb", "0..d-1", {})


def test_a_bug_planted_in_the_constructor_is_refuted_naming_its_line(capsys, pure_ldp_copy):
    """SUEHalvingBug: pure-ldp's SUE with p computed from ε in update_params (run by __init__):
    2ε-LDP; the witness's paths name the line where the constructor set p."""
    code, out = _verify(capsys, f"{CLASSES}:SUEHalvingBug(epsilon, d)._perturb", "--domain", "0..2",
                        "--target-arg", "d=3")
    assert code == 1 and out["verdict"] == "REFUTED" and out["tight"]["epsilon"] == "2*epsilon"
    line = _line("self.p = const / (const + 1)")
    shown = "\n".join(out["from_code"]["witness_paths"])
    assert re.search(rf"self\.p = exp\(epsilon\)/\(exp\(epsilon\) \+ 1\), set at \S*classes\.py:{line}\b", shown)


@pytest.mark.parametrize(("name", "changed", "read"), [
    ("CountingKRR", "self.reports += 1", "self.reports += 1"),
    ("RememberingKRR", "self.seen.append(x)", "if x in self.seen:"),
])
def test_state_that_carries_across_calls_exits_3_naming_the_line(capsys, pure_ldp_copy, name, changed, read):
    code = main(["extract", f"{CLASSES}:{name}(epsilon, d).privatise", "--domain", "0..2", "--target-arg", "d=3"])
    err = capsys.readouterr().err
    assert code == 3
    attribute = changed.split()[0].split(".")[1]
    assert f"classes.py:{_line(changed)}: {name}.privatise changes self.{attribute}, which a call reads before " \
           f"writing it (" in err and f"classes.py:{_line(read)})" in err and "not one fixed channel" in err


def test_an_attribute_written_before_it_is_read_is_scratch(pure_ldp_copy):
    """ScratchKRR keeps its coin in self.last_keep through a helper method: every call writes it
    first, so every call has k-RR's channel."""
    ex = extract(f"{CLASSES}:ScratchKRR(epsilon, 4).privatise", [0, 1, 2, 3], {})
    assert all(_equal(ex.rows[x][y], _krr(x, y, 4)) for x in range(4) for y in range(4))
    assert any("writes self.last_keep" in note and "never reads it before" in note for note in ex.notes)


@pytest.mark.parametrize(("target", "match"), [
    ("SeededInit(epsilon, 3)", r"classes\.py:{seed}: building SeededInit draws a random value once"),
    ("WithProperty(epsilon)", r"classes\.py:{prop}: the property WithProperty\.p runs code on access"),
    ("DataclassRR()", r"classes\.py:{dataclass}: the class decorator @dataclass of DataclassRR"),
    ("FromUnreadable()", (r"classes\.py:{unreadable}: the base class Unreadable of FromUnreadable is not a class "
                         r"whose source is found")),
    ("SetsByName(epsilon)", r"classes\.py:{setattr}: setattr\(\) is I/O or reflection"),
    ("CapturedCache(epsilon)", (r"classes\.py:{captured}: CapturedCache\.privatise changes seen, a container the "
                               r"function defined here captured and every call reads")),
    ("ChangesItsHelper(epsilon)", (r"classes\.py:{inner}: a write to \.d of an instance of ScratchKRR made before "
                                  r"the call")),
])
def test_outside_the_subset_exits_3_naming_file_line_and_construct(pure_ldp_copy, target, match):
    lines = {"seed": _line("self.other = random.randrange(d)"), "prop": _line("def p(self):"),
             "dataclass": _line("@dataclass"), "unreadable": _line("class FromUnreadable(Unreadable):"),
             "inner": _line("self.inner.d = 3"), "setattr": _line('setattr(self, "p"'),
             "captured": _line("self.remember = lambda")}
    with pytest.raises(Unextractable, match=match.format(**lines)):
        extract(f"{CLASSES}:{target}.privatise", [0, 1], {})


@pytest.mark.parametrize(("target", "args", "match"), [
    ("Nope(epsilon).privatise", {}, r"no class 'Nope' in .*classes\.py \(its classes: .*CountingKRR"),
    ("ScratchKRR(epsilon).nope", {}, r"ScratchKRR has no method 'nope' \(its methods: _keep, privatise\)"),
    ("ScratchKRR(epsilon, [1]).privatise", {}, r"the argument d=\[1\] is neither a literal nor a parameter's name"),
    ("ScratchKRR(epsilon, e=3).privatise", {}, r"ScratchKRR\(\) has no parameter 'e' \(its parameters: epsilon, d\)"),
    ("CountingKRR(epsilon).privatise", {}, r"CountingKRR\(\) needs d: give it in the target"),
    ("ScratchKRR(epsilon, d=4).privatise", {"d": "3"}, r"--target-arg d: the target gives d a value already \(d=4\)"),
    ("ScratchKRR(epsilon, epsilon).privatise", {}, r"the name epsilon stands for both epsilon and d"),
])
def test_bad_class_targets_name_the_fix(pure_ldp_copy, target, args, match):
    with pytest.raises(InvalidParameter, match=match):
        extract(f"{CLASSES}:{target}", [0, 1], args)


def test_class_method_form_makes_every_constructor_parameter_a_spec_parameter(pure_ldp_copy):
    """module:Class.method: the constructor's parameters by their own names; d's default (4) is
    the example, --target-arg binds it like a function's."""
    ex = extract(f"{CLASSES}:ScratchKRR.privatise", [0, 1, 2], {"d": "3"})
    assert [p.name for p in ex.params] == ["epsilon"] and ("d", 3, "--target-arg") in ex.bound
    assert all(_equal(ex.rows[x][y], _krr(x, y, 3)) for x in range(3) for y in range(3))


def _real_pure_ldp() -> Path | None:
    """The installed pure-ldp's directory, found without importing it (None when absent)."""
    saved = list(sys.path)
    try:
        spec = importlib.util.find_spec("pure_ldp")
    finally:
        sys.path[:] = saved
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


@pytest.mark.slow  # the fast twins above read the verbatim copy
def test_the_installed_pure_ldp_clients_extract_and_verify():
    """Against the real package when it is on sys.path (pip install pure-ldp, or PYTHONPATH at
    an unpacked wheel): the copies are the same files, and DE (generic in d), OUE and SUE (d = 4)
    are PROVED with tight ε* = ε, privatise on the items 1..d too."""
    real = _real_pure_ldp()
    if real is None:
        pytest.skip("pure-ldp is not on sys.path (pip download pure-ldp --no-deps, unpack, put it on PYTHONPATH)")
    for copy in (PURE_LDP / "pure_ldp").rglob("*.py"):
        original = real / copy.relative_to(PURE_LDP / "pure_ldp")
        assert hashlib.sha256(original.read_bytes()).digest() == hashlib.sha256(copy.read_bytes()).digest(), copy
    cases = [(f"{DE}(epsilon, d)._perturb", "0..d-1", {}), (f"{DE}(epsilon, d).privatise", [1, 2, 3, 4], {"d": "4"}),
             (f"{UE}(epsilon, d, use_oue=True)._perturb", [0, 1, 2, 3], {"d": "4"}),
             (f"{UE}(epsilon, d)._perturb", [0, 1, 2, 3], {"d": "4"}),
             (f"{UE}(epsilon, d, use_oue=True).privatise", [1, 2, 3, 4], {"d": "4"})]
    from ldpaudit.verify import tight_epsilon, verify

    for target, domain, args in cases:
        mech = loads_spec(spec_text(extract(target, domain, args)))
        assert verify(mech).status.value == "PROVED", target
        tight = tight_epsilon(mech)
        assert tight.determined and str(tight.value) == "epsilon", target
