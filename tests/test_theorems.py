"""ldpaudit prove: the seed papers' inequalities over their regions (issue 20, items 1-2).

Verdicts are checked against independent recomputation: a refutation's witness is recomputed
from the reference formulas (shared/reference/formulas.md), in exact arithmetic, here."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
import sympy as sp

from ldpaudit.errors import InvalidSpec
from ldpaudit.theorems.claims import load_claims, loads_claims
from ldpaudit.theorems.prover import PROVED, REFUTED, UNKNOWN, prove_claim, prove_file
from ldpaudit.theorems.intervals import point_sign
from ldpaudit.verify import exact


def sign(e):
    """Exact sign: outward-rounded point intervals, else the verify stage's rational enclosures."""
    s = point_sign(e)
    return s if s is not None else exact.sign(e)

ROOT = Path(__file__).resolve().parents[1]
THEOREMS = ROOT / "proofs" / "theorems"


def false_variant(tmp_path, bound="2/5") -> Path:
    text = (THEOREMS / "yebarg_l2.toml").read_text().replace("<= 1/2\"", f"<= {bound}\"")
    assert f"<= {bound}" in text
    path = tmp_path / "yebarg_l2_false.toml"
    path.write_text(text)
    return path


def reference_ratio_l2(d: int, eps) -> sp.Basic:
    """Ye & Barg's ratio from the reference formulas (not the derivation): k-subset's i.i.d.
    worst-case l2^2 risk = its fixed-population total + (1 - 1/d) (the non-private term at the
    uniform p), over the smaller of k-RR's and k-RAPPOR's; k = ceiling(d/(e^eps + 1))."""
    t, s = sp.exp(eps), sp.exp(eps / 2)
    k = sp.ceiling(d / (t + 1))
    g = k * t / (k * t + d - k)
    h = g * (k - 1) / (d - 1) + ((d - k) / (k * t + d - k)) * k / (d - 1)
    subset = (g * (1 - g) + (d - 1) * h * (1 - h)) / (g - h) ** 2 + (1 - sp.Rational(1, d))
    krr = ((t + d - 1) / (t - 1)) ** 2 * (1 - sp.Rational(1, d))
    krappor = (1 - sp.Rational(1, d)) * (1 + d**2 * s / ((d - 1) * (s - 1) ** 2))
    return subset, krr, krappor, k


def test_yebarg_l2_half_is_proved_over_the_whole_region():
    cf = load_claims(THEOREMS / "yebarg_l2.toml")
    assert "1/2" in (THEOREMS / "yebarg_l2.toml").read_text()
    (r,) = prove_file(cf, seconds=60)
    assert r.status == PROVED, r.as_dict()
    assert "coordinates" in r.method and "θ" in r.method


@pytest.mark.slow
def test_yebarg_l1_seven_tenths_is_proved():
    (r,) = prove_file(load_claims(THEOREMS / "yebarg_l1.toml"), seconds=60)
    assert r.status == PROVED, r.as_dict()


def test_two_fifths_variant_is_refuted_with_a_witness_recomputed_exactly(tmp_path):
    (r,) = prove_file(load_claims(false_variant(tmp_path)), seconds=60)
    assert r.status == REFUTED
    d = int(r.witness.point["d"])
    eps = sp.Rational(r.witness.point["epsilon"])
    # the point lies in the region, exactly
    assert sign(eps - sp.Rational(19, 5)) == 1 and sign(sp.log(sp.Rational(d, 9)) - eps) == 1
    subset, krr, krappor, k = reference_ratio_l2(d, eps)
    assert int(r.witness.point["k"]) == k
    best = krr if sign(krr - krappor) < 0 else krappor
    assert sign(subset - sp.Rational(2, 5) * best) == 1      # ratio above 2/5 ...
    assert sign(subset - sp.Rational(1, 2) * best) == -1     # ... and below the paper's 1/2
    assert float(r.witness.lhs_value) == pytest.approx(float(subset / best), rel=1e-12)


@pytest.mark.slow
def test_a_bound_just_above_the_true_maximum_is_proved_and_just_below_refuted(tmp_path):
    # the asymptotic sup of the l2 ratio is 4s/(1+s)^2 at s = e^1.9 (d -> oo, eps -> 3.8): ~0.4526
    sup = 4 * math.exp(1.9) / (1 + math.exp(1.9)) ** 2
    assert 0.452 < sup < 0.453
    (hi,) = prove_file(load_claims(false_variant(tmp_path, "46/100")), seconds=60)
    assert hi.status == PROVED
    (lo,) = prove_file(load_claims(false_variant(tmp_path, "44/100")), seconds=60)
    assert lo.status == REFUTED


@pytest.mark.slow
def test_wang_i1_is_proved_for_all_epsilon():
    results = prove_file(load_claims(THEOREMS / "wang_i1.toml"), seconds=60)
    assert [r.status for r in results] == [PROVED, PROVED]
    assert any("monotonicity" in r.method for r in results)


def test_wang_ibeta_is_an_identity_in_d():
    cf = load_claims(THEOREMS / "wang_ibeta.toml")
    r = prove_claim(cf, cf.claims[0], seconds=30)
    assert r.status == PROVED and r.method == "symbolic identity"


def reference_information(d, k, eps):
    t = sp.exp(eps)
    return (k * t * sp.log(d * t / (k * t + d - k)) + (d - k) * sp.log(sp.Integer(d) / (k * t + d - k))) / (k * t + d - k)


@pytest.mark.slow
def test_mrr_converse_is_refuted_with_an_exact_witness():
    cf = load_claims(THEOREMS / "wang_mrr_converse.toml")
    r = prove_claim(cf, cf.claims[0], seconds=60)
    assert r.status == REFUTED
    d, eps = int(r.witness.point["d"]), sp.Rational(r.witness.point["epsilon"])
    t = sp.exp(eps)
    assert sign((t - 1) ** 2 / (eps * t - t + 1) - sp.Rational(d, 2)) == 1   # the paper's condition fails
    assert sign(reference_information(d, 2, eps) - reference_information(d, 1, eps)) == 1  # yet I_2 > I_1


BAD = [
    ("region.where", "d >= 5", "d <= 3", "ksubset.l2_worst <= 1", "the region is empty"),
    ("unknown result", "d >= 2", "epsilon > 0", "krr.l3_worst <= 1", r"krr.l3_worst is not a derived result of krr; available: .*l2_worst"),
    ("unknown spec", "d >= 2", "epsilon > 0", "foo.l2_worst <= 1", r"names the spec 'foo', which \[specs\] does not declare"),
    ("equation", "d >= 2", "epsilon > 0", "krr.l2_worst == 1", r"claim\[0\].statement = .* is an equation, not an inequality"),
    ("number", "d >= 2", "epsilon > 0", "krr.l2_worst + 1", r"claim\[0\].statement = .*this is a number, which is not a condition"),
    ("symbol", "d >= 2", "epsilon > 0", "krr.l2_worst <= m", r"unknown symbol 'm'"),
]


@pytest.mark.parametrize("what, w1, w2, statement, message", BAD, ids=[b[0] for b in BAD])
def test_bad_claims_are_one_line_errors_naming_the_field(what, w1, w2, statement, message):
    text = f"""
[specs]
krr = "krr"
ksubset = "ksubset"
[region]
parameters = {{ d = "integer", k = "integer", epsilon = "real" }}
where = ["{w1}", "{w2}"]
let = {{ k = "1" }}
[[claim]]
statement = "{statement}"
"""
    with pytest.raises(InvalidSpec, match=message) as info:
        loads_claims(text)
    assert "\n" not in str(info.value)


def test_missing_file_and_unknown_keys():
    with pytest.raises(InvalidSpec, match="does not exist"):
        load_claims("no/such/claims.toml")
    with pytest.raises(InvalidSpec, match="unknown key 'regoin'"):
        loads_claims("[regoin]\n")
    with pytest.raises(InvalidSpec, match=r"region.parameters.d = 'natural'; use \"integer\" or \"real\""):
        loads_claims('[region]\nparameters = { d = "natural" }\n[[claim]]\nstatement = "d <= 1"\n')


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "ldpaudit", *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_cli_exit_codes_and_json(tmp_path, capsys):
    """In process (the subprocess route is test_startup's): PROVED 0 with the JSON envelope,
    REFUTED 1 with the exact check, an empty region 2 in one line. (The refuted claim is a quick
    one on the same region; the false Ye & Barg variant's refutation and its witness are checked
    in test_two_fifths_variant_is_refuted_with_a_witness_recomputed_exactly.)"""
    from ldpaudit import cli

    head = ('title = "quick"\nsource = "test"\n[specs]\nkrr = "krr"\n[region]\n'
            'parameters = { d = "integer", epsilon = "real" }\n'
            'where = ["d >= 2", "d <= 40", "epsilon >= 1", "epsilon <= 2"]\n')
    quick = tmp_path / "quick.toml"
    quick.write_text(head + '[[claim]]\nname = "positive risk"\nstatement = "krr.l2_worst >= 0"\n')
    assert cli.main(["prove", str(quick), "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["command"] == "prove" and body["verdict"] == "PROVED"
    false = tmp_path / "false.toml"   # krr's worst-case l2^2 risk is above 1 at d = 40, epsilon = 1
    false.write_text(head + '[[claim]]\nname = "small risk"\nstatement = "krr.l2_worst <= 1"\n')
    assert cli.main(["prove", str(false)]) == 1
    out = capsys.readouterr().out
    assert "REFUTED" in out and "checked exactly" in out
    empty = tmp_path / "empty.toml"
    empty.write_text('[specs]\nkrr = "krr"\n[region]\nparameters = { d = "integer", epsilon = "real" }\n'
                     'where = ["d >= 2", "epsilon > 0", "epsilon < log(d) - log(d) - 1"]\n'
                     '[[claim]]\nstatement = "krr.l2_worst >= 0"\n')
    assert cli.main(["prove", str(empty)]) == 2
    err = capsys.readouterr().err
    assert "region" in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_reproduce_theorems_long_claims():
    cf = load_claims(THEOREMS / "wang_ibeta.toml")
    r = prove_claim(cf, cf.claims[1], seconds=60)
    assert r.status == PROVED                     # the inequality holds (series -e^4/576)
    cf = load_claims(THEOREMS / "wang_mrr.toml")
    r = prove_claim(cf, cf.claims[0], seconds=60)
    assert r.status == PROVED                     # the paper's MRR direction, every d >= 3, 0 < eps < 1000
    assert "log y >= 1 - 1/y" in r.method


@pytest.mark.slow
def test_concavity_of_i_k_is_refuted_with_an_exact_witness():
    cf = load_claims(THEOREMS / "wang_concave.toml")
    r = prove_claim(cf, cf.claims[0], seconds=60)
    assert r.status == REFUTED
    pt = {k: sp.Rational(v) for k, v in r.witness.point.items()}
    d, a, b, eps = int(pt["d"]), pt["a"], pt["b"], pt["epsilon"]
    assert 0 <= a <= d and 0 <= b <= d and eps > 0
    mid = reference_information(d, (a + b) / 2, eps)
    assert sign(reference_information(d, a, eps) + reference_information(d, b, eps) - 2 * mid) == 1


# --- Prop. III.3: the risks at k near d/(e^eps + 1) (proofs/theorems/yebarg_prop33.toml) ---

def reference_subset_l2(d: int, k, eps) -> sp.Basic:
    """k-subset's i.i.d. worst-case l2^2 risk at real k from the reference formulas (fixed-population
    total + (1 - 1/d)), not the derivation."""
    t = sp.exp(eps)
    g = k * t / (k * t + d - k)
    h = g * (k - 1) / (d - 1) + ((d - k) / (k * t + d - k)) * k / (d - 1)
    return (g * (1 - g) + (d - 1) * h * (1 - h)) / (g - h) ** 2 + (1 - sp.Rational(1, d))


def prop33_bounds(d, eps):
    t = sp.exp(eps)
    low = 4 * t * (d - 1) ** 2 / (d * (t - 1) ** 2)
    return low, low * (1 + (t + 1) ** 4 / (4 * t * (d + t + 1) * (d * t - t - 1)))


@pytest.mark.slow
def test_prop33_l2_bounds_are_proved_for_every_d_and_epsilon():
    cf = load_claims(THEOREMS / "yebarg_prop33.toml")
    for claim in cf.claims[:2]:
        r = prove_claim(cf, claim, seconds=60)
        assert r.status == PROVED, (claim.name, r.left)
    # both bounds are attained: the lower where d/(t + 1) is an integer, the upper one step above it
    d, eps = 12, sp.log(3)                    # d/(t + 1) = 3
    low, up = prop33_bounds(d, eps)
    assert sp.simplify(reference_subset_l2(d, 3, eps) - low) == 0
    assert sp.simplify(reference_subset_l2(d, 4, eps) - up) == 0
    low, up = prop33_bounds(13, eps)         # k = ceiling(13/4) = 4, strictly inside
    assert sign(reference_subset_l2(13, 4, eps) - low) == 1 and sign(up - reference_subset_l2(13, 4, eps)) == 1


@pytest.mark.slow
def test_prop33_l1_bounds_are_proved():
    cf = load_claims(THEOREMS / "yebarg_prop33.toml")
    for claim in cf.claims[2:]:
        assert prove_claim(cf, claim, seconds=60).status == PROVED


def test_prop33_with_half_the_excess_is_refuted_with_a_witness_recomputed_exactly(tmp_path):
    text = (THEOREMS / "yebarg_prop33.toml").read_text()
    head = text[:text.index("[[claim]]")]
    claim = text[text.index("[[claim]]"):].split("[[claim]]")[1]
    claim = claim.replace("(4*exp(epsilon)*(d + exp", "(8*exp(epsilon)*(d + exp")
    assert "(8*exp(epsilon)" in claim
    path = tmp_path / "half.toml"
    path.write_text(head + "[[claim]]" + claim)
    cf = load_claims(path)
    r = prove_claim(cf, cf.claims[0], seconds=60)
    assert r.status == REFUTED
    pt = {k: sp.Rational(v) for k, v in r.witness.point.items()}
    d, k, eps = int(pt["d"]), pt["k"], pt["epsilon"]
    t = sp.exp(eps)
    assert d >= 3 and sign(k - d / (t + 1)) >= 0 and sign(d / (t + 1) + 1 - k) >= 0   # inside the region
    low, _ = prop33_bounds(d, eps)
    half = low * (1 + (t + 1) ** 4 / (8 * t * (d + t + 1) * (d * t - t - 1)))
    assert sign(reference_subset_l2(d, k, eps) - half) == 1
