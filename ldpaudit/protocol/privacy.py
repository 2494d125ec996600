"""The privacy of a protocol from the privacy of its local randomizers.

A sequentially interactive protocol (every user sends one message) is ε-LDP when every local
randomizer is an ε-local randomizer for every value of its public parameters: the analyst's
choice of public values depends only on other users' messages (Joseph et al., Definition 2.2
and Theorem 3.2). So each round's mechanism is verified with its public parameters left free
(universally quantified by :func:`ldpaudit.verify.verify`). A user who answers in several
rounds (``users_from``) pays the sum of those rounds' ε (basic composition); the report names
the rounds that witness the largest sum.

The protocol's verdict (what ``ldpaudit simulate --privacy`` exits on) checks the claim that the
protocol is ε-LDP at its per-message budget (:attr:`Protocol.epsilon`): REFUTED when a round's
randomizer is refuted, UNKNOWN when one is undecided (and none refuted), REFUTED when a user
answers several rounds whose budgets sum past the claim (the protocol is not sequentially
interactive: the witness names those rounds; basic composition is tight when they rerun one
tight randomizer on the same input), and PROVED only when every round is PROVED and no user
spends more than the claim.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from ldpaudit.protocol.model import Protocol


@dataclass(frozen=True)
class RoundPrivacy:
    round: str
    randomizer: str
    status: str                 # PROVED / REFUTED / UNKNOWN
    epsilon: sp.Basic           # the ε this round's randomizer is proved at (its claim)
    public: tuple[str, ...]
    detail: str                 # the verify verdict's one-line text (scope, witness or reason)
    interaction_round: int


@dataclass(frozen=True)
class PrivacyReport:
    protocol: str
    status: str                 # PROVED only when every round is PROVED
    epsilon: sp.Basic           # the protocol's ε: max over users of the sum over rounds they answer
    sequential: bool            # every user sends one message
    witness: tuple[str, ...]    # the rounds one user answers whose budgets sum to ε
    rounds: tuple[RoundPrivacy, ...]
    interaction_rounds: int
    claim: sp.Basic = None      # the protocol's per-message budget (Protocol.epsilon)
    over_budget: bool = False   # a user's rounds sum past the claim

    @property
    def verdict(self) -> str:
        """PROVED / REFUTED / UNKNOWN for the claim "ε-LDP at the per-message budget"."""
        return protocol_verdict([r.status for r in self.rounds], over_budget=self.over_budget)

    def reason(self) -> str:
        """One line saying why the verdict is what it is (the round or rounds that decide it)."""
        failed = [r for r in self.rounds if r.status == "REFUTED"] or [r for r in self.rounds if r.status == "UNKNOWN"]
        if failed:
            return "; ".join(f"round {r.round} ({r.randomizer}): {r.detail}" for r in failed)
        if self.over_budget:
            return (f"not sequentially interactive: a user answers rounds {' + '.join(self.witness)} and spends "
                    f"{sp.sstr(self.epsilon)} > {sp.sstr(self.claim)} (basic composition)")
        return self.summary()

    def verdict_dict(self) -> dict:
        """:meth:`as_dict` with the protocol's verdict, its reason and the claim it checks."""
        return {"verdict": self.verdict, "reason": self.reason(), "claimed_epsilon": sp.sstr(self.claim),
                **self.as_dict()}

    def as_dict(self) -> dict:
        return {"protocol": self.protocol, "status": self.status, "epsilon": sp.sstr(self.epsilon),
                "sequentially_interactive": self.sequential, "witness_rounds": list(self.witness),
                "interaction_rounds": self.interaction_rounds,
                "rounds": [{"round": r.round, "randomizer": r.randomizer, "status": r.status,
                            "epsilon": sp.sstr(r.epsilon), "public": list(r.public), "verdict": r.detail,
                            "interaction_round": r.interaction_round} for r in self.rounds]}

    def summary(self) -> str:
        how = "sequentially interactive: one message per user" if self.sequential else \
            f"users answer in rounds {' + '.join(self.witness)}: basic composition"
        return f"{self.status}: {self.protocol} is {sp.sstr(self.epsilon)}-LDP ({how}; {self.interaction_rounds} interaction round(s))"


def privacy_report(protocol: Protocol, *, verify_fn=None) -> PrivacyReport:
    """Verify every round's randomizer for all public values and compose over each user's rounds."""
    if verify_fn is None:
        from ldpaudit.verify import verify as verify_fn
    depth = protocol.depth()
    rounds = []
    for r in protocol.rounds:
        mech = r.randomizer.mechanism()
        verdict = verify_fn(mech)
        detail = str(verdict)
        rounds.append(RoundPrivacy(r.name, r.randomizer.name, verdict.status.name, verdict.claim,
                                   r.randomizer.public_parameters(), detail, depth[r.name]))
    by_name = {rp.round: rp for rp in rounds}
    # the rounds each user answers: a fresh round starts a chain; users_from extends it
    chains: dict[str, tuple[str, ...]] = {}
    for r in protocol.rounds:
        chains[r.name] = (*chains[r.users_from], r.name) if r.users_from is not None else (r.name,)
    # a chain's users are those of its first round; the longest chain through each user is the one
    # ending at the last round that reuses them
    best, best_eps = (), sp.Integer(0)
    for chain in chains.values():
        eps = sp.Add(*[by_name[name].epsilon for name in chain])
        if not best or _larger(eps, best_eps, len(chain), len(best)):
            best, best_eps = chain, eps
    sequential = all(r.users_from is None for r in protocol.rounds)
    statuses = {rp.status for rp in rounds}
    status = "PROVED" if statuses == {"PROVED"} else "REFUTED" if "REFUTED" in statuses else "UNKNOWN"
    total = sp.simplify(best_eps)
    claim = _claim(protocol, rounds)
    return PrivacyReport(protocol.name, status, total, sequential, best, tuple(rounds), protocol.interaction_rounds,
                         claim, _larger(total, claim, 0, 0))


def protocol_verdict(statuses, *, over_budget: bool) -> str:
    """A refuted round refutes the protocol; else an undecided round leaves it UNKNOWN (never a
    pass); else a user spending more than the claim refutes it; else it is PROVED."""
    statuses = set(statuses)
    if "REFUTED" in statuses:
        return "REFUTED"
    if statuses - {"PROVED"}:
        return "UNKNOWN"
    return "REFUTED" if over_budget else "PROVED"


def _claim(protocol: Protocol, rounds) -> sp.Basic:
    """The protocol's per-message budget, parsed (never evaluated) with the rounds' ε symbols."""
    from ldpaudit.mechanism.expr import parse_expression

    symbols = {s.name: s for r in rounds for s in sp.sympify(r.epsilon).free_symbols}
    return parse_expression(protocol.epsilon, symbols, field=f"protocol {protocol.name!r} epsilon")


def _larger(a, b, len_a, len_b) -> bool:
    """a > b for nonnegative budgets that may be symbolic in ε: compare numerically at ε = 1
    when symbolic (all claims here are nonnegative multiples of the same budgets), else exactly."""
    diff = sp.simplify(a - b)
    if diff.is_number:
        return bool(diff > 0) or (diff == 0 and len_a > len_b)
    free = {s: 1 for s in diff.free_symbols}
    value = diff.subs(free)
    return bool(value > 0) or (value == 0 and len_a > len_b)
