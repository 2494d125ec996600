"""Real library code through ``extract`` (issue 36, item 4): multi-freq-ldpy 0.2.5's clients,
copied verbatim in tests/fixtures (read, never imported: numba is not installed here)."""
from __future__ import annotations

from pathlib import Path

import pytest
import sympy as sp

from ldpaudit.extract.channel import extract
from ldpaudit.extract.spec import spec_text
from ldpaudit.mechanism import loads_spec
from ldpaudit.verify import tight_epsilon, verify

CLIENTS = str(Path(__file__).resolve().parent / "fixtures" / "multi_freq_ldpy_clients.py")


def _mechanism(name: str, d: int, args: dict, epsilon=None):
    ex = extract(f"{CLIENTS}:{name}", list(range(d)), {"k": str(d), **args})
    return ex, loads_spec(spec_text(ex, epsilon=epsilon))


@pytest.mark.parametrize(("name", "args", "form"), [
    ("GRR_Client", {}, "structured"),                    # np.random.binomial(1, p), choice(domain[domain != x])
    ("UE_Client", {}, "product"),                        # OUE: p = 1/2, q = 1/(e^ε + 1)
    ("UE_Client", {"optimal": "false"}, "product"),      # SUE: p = e^(ε/2)/(e^(ε/2) + 1)
])
def test_multi_freq_ldpy_clients_are_proved_with_tight_epsilon(name, args, form):
    ex, mech = _mechanism(name, 3, args)
    assert mech.channel.form == form and "@jit(nopython=True)" in ex.notes[0]
    assert verify(mech).status.value == "PROVED"
    tight = tight_epsilon(mech)
    assert tight.determined and str(tight.value) == "epsilon"


def test_ss_client_reports_the_input_first_so_its_order_leaks():
    """SS_Client puts the true value at position 0 of the array when it is included: as an
    ordered report, (0, 1) comes from x = 0 but never from x = 1 (ε* = ∞); as a set it is the
    k-subset channel."""
    ex, mech = _mechanism("SS_Client", 4, {"epsilon": "1/2"}, epsilon="1/2")
    assert {len(y) for y in ex.outputs} == {1} or ex.rows[1].get((0, 1), 0) == 0
    verdict = verify(mech)
    assert verdict.status.value == "REFUTED" and verdict.witness.ratio == sp.oo


@pytest.mark.slow  # each case has a fast twin in tests/test_extract.py
def test_bench_record_of_bugs_proved_from_code_holds():
    """Each bug the bench record lists as proved from code is REFUTED with that tight ε."""
    from ldpaudit.bench.from_code import PROVED_FROM_CODE, PROVED_FROM_CODE_ONLY
    from ldpaudit.bench.suite import bugs

    keys = {bug.key for bug in bugs()}
    assert set(PROVED_FROM_CODE) <= keys
    root = Path(__file__).resolve().parents[1]
    for target, args, domain, tight in (*PROVED_FROM_CODE.values(), *PROVED_FROM_CODE_ONLY.values()):
        path, name = target.split(":")
        low, high = map(int, domain.split(".."))
        where = f"{root / path}:{name}" if path.endswith(".py") else target     # a file, or a module
        ex = extract(where, list(range(low, high + 1)), args)
        mech = loads_spec(spec_text(ex, epsilon=args.get("epsilon")))
        assert verify(mech).status.value == "REFUTED"
        value = tight_epsilon(mech).value
        assert sp.simplify(sp.sympify(str(value)) - sp.sympify(tight)) == 0 if tight != "oo" else value == sp.oo
