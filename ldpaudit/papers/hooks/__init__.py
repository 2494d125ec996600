"""The named hooks: the parts of a paper that need code of their own (Monte-Carlo experiments,
multi-round simulations), called from a manifest by name, all listed here::

    [[hook]]
    name = "open_alphabet"
    hook = "kairouz2016_open_alphabet"
    options = { sweep = "full" }

A hook is ``f(*, out, manifest, **options) -> (payload, files)``: it writes its files into
``out`` and returns a small JSON payload; its seeds are fixed inside it, so its files are a
function of its options alone. ``reproduce(..., hook_options=...)`` overrides options for one
build (the tests run the reduced sweeps).

The modules of this package are the papers' code, in one place: the hooks' own
(kairouz_open, wang2017 and its simulate), and the results still reproduced by code, each a
target of ``ldpaudit reproduce NAME`` (:data:`ldpaudit.papers.reproduce.TARGETS`): duchi2013
(+ duchi2013_sim), joseph2018, gaussian, optimality, accounting, theorems and derivations."""

from __future__ import annotations

from pathlib import Path


def kairouz2016_open_alphabet(*, out: Path, manifest, sweep: str = "full") -> tuple[dict, list]:
    """O-RR and O-RAPPOR on open and closed alphabets, simulated (:mod:`ldpaudit.papers.hooks.kairouz_open`)."""
    from ldpaudit.papers.hooks.kairouz_open import reproduce_open

    if sweep not in ("full", "reduced"):
        from ldpaudit.errors import InvalidSpec

        raise InvalidSpec(f"hook kairouz2016_open_alphabet: options.sweep = {sweep!r}; use 'full' or 'reduced'")
    paths, _ = reproduce_open(out, sweep=sweep)
    return {"summary": "O-RR and O-RAPPOR on open and closed alphabets, simulated: open_alphabet.md "
                       "(the full sweep also draws closed_alphabet.png)"}, list(paths)


def wang2017_simulation(*, out: Path, manifest, repetitions: int = 100) -> tuple[dict, list]:
    """Wang et al.'s Table 1 simulation re-run (n = 10,000 users, seeded), next to the published
    errors (:mod:`ldpaudit.papers.hooks.wang2017`): table1.{md,tex,json,png}."""
    from ldpaudit.papers.hooks.wang2017 import reproduce

    if isinstance(repetitions, bool) or not isinstance(repetitions, int) or not 1 <= repetitions <= 10_000:
        from ldpaudit.errors import InvalidSpec

        raise InvalidSpec(f"hook wang2017_simulation: options.repetitions = {repetitions!r}; give an integer 1..10000")
    paths, payload = reproduce(out.parent, reps=repetitions, folder=out)
    return {"summary": f"the simulation re-run, {repetitions} repetitions: table1.md",
            "k_rows_matching": payload["k_rows_matching"]}, list(paths)


#: hook name -> function; a manifest names one with hook = "..."
HOOKS = {
    "kairouz2016_open_alphabet": kairouz2016_open_alphabet,
    "wang2017_simulation": wang2017_simulation,
}

__all__ = ["HOOKS"]
