"""Verdicts, witnesses and reports: small frozen values that print as something a person can
check by hand (``REFUTED: Q(y=0|x=1)/Q(y=0|x=2) = 7/2 > e^1``)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace

import sympy as sp

from ldpaudit.verify.exact import approx, long_power
from ldpaudit.render.text import human, sstr


class Status(str, enum.Enum):
    PROVED = "PROVED"
    REFUTED = "REFUTED"
    UNKNOWN = "UNKNOWN"

    def __str__(self) -> str:
        return self.value


#: CLI exit codes by status
EXIT_CODES = {Status.PROVED: 0, Status.REFUTED: 1, Status.UNKNOWN: 3}


def _s(value) -> str:
    if isinstance(value, tuple) and len(value) > 12 and _consecutive(value):
        return f"({value[0]}, {value[1]}, …, {value[-1]})"  # a k-subset {0, ..., k-1}, exactly
    if isinstance(value, tuple):
        return "(" + ", ".join(map(_s, value)) + ("," if len(value) == 1 else "") + ")"
    return str(value)


def _consecutive(value: tuple) -> bool:
    return all(isinstance(v, int) and not isinstance(v, bool) for v in value) and all(
        b == a + 1 for a, b in zip(value, value[1:])
    )


def _exp_text(claim: sp.Basic) -> str:
    text = human(claim)
    return f"e^{text}" if (claim.is_Integer and claim >= 0) or claim.is_Symbol else f"e^({text})"


@dataclass(frozen=True)
class Witness:
    """Inputs x, x' and an output y with Q(y|x) > e^claim Q(y|x'), checked exactly.

    ``ratio`` is Q(y|x)/Q(y|x') (``oo`` when Q(y|x') = 0); ``params`` is the parameter
    binding at which it was checked (empty for a numeric mechanism). For densities ``y`` is
    the output z and the ratio is f(z|x)/f(z|x'). ``y_text`` describes y when it is too long
    to list (product channels)."""

    x: object
    x_prime: object
    y: object
    ratio: sp.Basic
    numerator: sp.Basic
    denominator: sp.Basic
    claim: sp.Basic
    params: tuple[tuple[str, sp.Basic], ...] = ()
    y_text: str = ""
    kind: str = "Q"  # 'Q' for a channel, 'f' for a density, 'P' for an atom at z of a mixture
    #: the ratio equals e^claim (a witness attaining the tightest ε, not one above a claim)
    attaining: bool = False

    def __str__(self) -> str:
        y = self.y_text or _s(self.y)
        lhs = f"{self.kind}(y={y}|x={_s(self.x)})/{self.kind}(y={y}|x={_s(self.x_prime)})"
        if self.kind in ("f", "P"):
            lhs = lhs.replace("y=", "z=")
        ratio = "oo" if self.ratio == sp.oo else human(self.ratio)
        if self.ratio != sp.oo and not self.ratio.is_Rational:
            ratio += f" ≈ {approx(self.ratio)}"
        claim = _exp_text(self.claim)
        if long_power(self.claim):  # e^claim is not built (sympy would expand q^(p/r) for a long r)
            claim += f" ≈ {approx(sp.exp(sp.Float(approx(self.claim, 30), 30)), 12)}"
        elif (bound := sp.exp(self.claim)).is_Rational:
            claim += f" = {human(bound)}"
        elif not self.claim.is_Integer:
            claim += f" ≈ {approx(bound)}"
        at = ""
        if self.params:
            at = " at " + ", ".join(f"{k}={human(v)}" for k, v in self.params)
        if self.attaining:     # the tightest ε's witness: no claim is exceeded, the bound is reached
            if self.ratio == sp.oo:
                return f"{lhs} = oo: the denominator is 0, so no finite ε{at}"
            return f"{lhs} = {ratio}, attaining e^ε* = {claim}{at}"
        return f"{lhs} = {ratio} > {claim}{at}"

    def to_json(self) -> dict:
        return {
            "x": _jsonable(self.x),
            "x_prime": _jsonable(self.x_prime),
            "y": _jsonable(self.y) if not self.y_text else self.y_text,
            "ratio": sstr(self.ratio),
            "numerator": sstr(self.numerator),
            "denominator": sstr(self.denominator),
            "claim": sstr(self.claim),
            "params": {k: sstr(v) for k, v in self.params},
            "text": str(self),
        }


def _jsonable(v):
    if isinstance(v, tuple):
        return [_jsonable(a) for a in v]
    if isinstance(v, (int, str)):
        return v
    return sstr(v)


@dataclass(frozen=True)
class Verdict:
    """The outcome of checking ε-LDP (or (ε, δ)-LDP) for a mechanism.

    UNKNOWN never counts as a pass: :attr:`passed` is true only for PROVED."""

    status: Status
    mechanism: str
    claim: sp.Basic
    delta: sp.Basic | None = None
    tight_epsilon: sp.Basic | None = None
    witness: Witness | None = None
    reason: str = ""
    method: str = ""
    scope: str = ""
    seconds: float = 0.0
    notes: tuple[str, ...] = ()
    params: tuple[tuple[str, sp.Basic], ...] = ()
    exact_delta: sp.Basic | None = None
    proof: tuple = field(default=(), compare=False, repr=False)  # (description, smt2, expected) queries

    @property
    def passed(self) -> bool:
        return self.status is Status.PROVED

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.status]

    def claim_text(self) -> str:
        text = f"{sstr(self.claim)}-LDP" if self.delta is None else f"({sstr(self.claim)}, {sstr(self.delta)})-LDP"
        return text + (f" {self.scope}" if self.scope else "")

    def __str__(self) -> str:
        if self.status is Status.REFUTED:
            detail = str(self.witness) if self.witness is not None else self.reason
            if self.delta is not None and self.exact_delta is not None:
                detail = f"δ({human(self.claim)}) = {human(self.exact_delta)} ≈ {approx(self.exact_delta)} > {human(self.delta)}"
                if self.witness is not None:
                    detail += f" (pair x={_s(self.witness.x)}, x'={_s(self.witness.x_prime)})"
            return f"REFUTED: {detail}"
        if self.status is Status.UNKNOWN:
            return f"UNKNOWN: {self.claim_text()} ({self.reason})"
        tight = ""
        if self.tight_epsilon is not None:
            tight = f"; tight ε* = {human(self.tight_epsilon)}"
        if self.delta is not None and self.exact_delta is not None:
            tight += f"; δ({human(self.claim)}) = {human(self.exact_delta)}"
        return f"PROVED: {self.claim_text()}{tight}"

    def _repr_markdown_(self) -> str:
        """Jupyter's display: verdict, claim, scope, tight ε*, the witness to check by hand, method."""
        from ldpaudit.render.notebook import verdict_markdown

        return verdict_markdown(self)

    def to_json(self) -> dict:
        return {
            "status": self.status.value,
            "mechanism": self.mechanism,
            "claim": {"epsilon": sstr(self.claim), "delta": None if self.delta is None else sstr(self.delta)},
            "scope": self.scope,
            "params": {k: sstr(v) for k, v in self.params},
            "tight_epsilon": None if self.tight_epsilon is None else sstr(self.tight_epsilon),
            "exact_delta": None if self.exact_delta is None else sstr(self.exact_delta),
            "witness": None if self.witness is None else self.witness.to_json(),
            "reason": self.reason,
            "method": self.method,
            "notes": list(self.notes),
            "seconds": round(self.seconds, 6),
            "text": str(self),
        }


@dataclass(frozen=True)
class TightEpsilon:
    """ε* = sup over x, x', y of ln(Q(y|x)/Q(y|x')) in closed form, with the proof that the
    mechanism is ε*-LDP and a witness attaining it (so every smaller ε is refuted)."""

    mechanism: str
    value: sp.Basic
    proof: Verdict | None
    witness: Witness | None
    method: str = ""

    def __post_init__(self):
        # the witness attains ε* (its ratio is e^ε*): it is not a refutation of a claim
        if self.witness is not None and not self.witness.attaining:
            object.__setattr__(self, "witness", replace(self.witness, attaining=True))

    @property
    def determined(self) -> bool:
        """Whether ε* was found (a closed form or ∞); False: the method could not decide it."""
        v = self.value
        return v is not None and v is not sp.nan and not (isinstance(v, sp.Basic) and v.has(sp.nan))

    @property
    def unbounded(self) -> bool:
        """ε* = ∞: no finite ε (some output has Q(y|x) > 0 = Q(y|x'), or the log-ratio is unbounded)."""
        return self.determined and self.value == sp.oo

    @property
    def reason(self) -> str:
        """Why ε* was not determined (the method's words), or ""."""
        return "" if self.determined else self.method.removeprefix("unknown: ")

    def __str__(self) -> str:
        if not self.determined:
            return f"ε* not determined: {self.reason or 'no method applies'}"
        if self.unbounded:
            why = self.method.removeprefix("no finite ε: ") if self.method.startswith("no finite ε: ") else ""
            return "ε* = ∞: not ε-LDP for any finite ε" + (f" ({why})" if why else "")
        text = f"ε* = {human(self.value)}"
        w = self.witness
        if w is not None:
            y = w.y_text or _s(w.y)
            out = "z" if w.kind in ("f", "P") else "y"
            text += f", attained by {w.kind}({out}={y}|x={_s(w.x)})/{w.kind}({out}={y}|x={_s(w.x_prime)}) = {human(w.ratio)}"
            if w.params:
                text += " at " + ", ".join(f"{k}={human(v)}" for k, v in w.params)
        return text

    def _repr_markdown_(self) -> str:
        """Jupyter's display: ε* in LaTeX, the ratio attaining it, its proof's verdict and the method."""
        from ldpaudit.render.notebook import tight_markdown

        return tight_markdown(self)

    def _repr_latex_(self) -> str:
        from ldpaudit.render.notebook import tight_latex

        return tight_latex(self)


@dataclass(frozen=True)
class DeltaResult:
    """δ(ε) = max over x != x' of sum_y max(0, Q(y|x) - e^ε Q(y|x')), exactly, with the
    maximizing pair and the event S = {y : Q(y|x) > e^ε Q(y|x')} that attains it."""

    mechanism: str
    epsilon: sp.Basic
    delta: sp.Basic
    pair: tuple | None
    event: tuple = ()

    def __str__(self) -> str:
        text = f"δ({human(self.epsilon)}) = {human(self.delta)}"
        if not self.delta.is_Rational:
            text += f" ≈ {approx(self.delta)}"
        if self.pair is not None and self.delta != 0:
            text += f" (x={_s(self.pair[0])}, x'={_s(self.pair[1])}, S={_s(self.event)})"
        return text


@dataclass(frozen=True)
class FloatReport:
    """What an implementation's float64 parameters really give."""

    mechanism: str
    floats: tuple[tuple[str, float], ...]
    exact: tuple[tuple[str, sp.Basic], ...]
    semantics: str
    epsilon: sp.Basic  # the ε the exact rationals give (closed form)
    claim: sp.Basic
    excess: sp.Basic  # epsilon - claim (exact)
    ulps: float  # excess in units of the last place of float64(claim)
    verdict: Verdict
    notes: tuple[str, ...] = ()

    def __str__(self) -> str:
        eps = approx(self.epsilon, 20)
        if self.excess > 0:
            tail = f"exceeds the claim {human(self.claim)} by {approx(self.excess, 6)} = {self.ulps:.3g} ulp"
        elif self.excess == 0:
            tail = f"equals the claim {human(self.claim)} exactly"
        else:
            tail = f"is below the claim {human(self.claim)} by {approx(-self.excess, 6)} = {-self.ulps:.3g} ulp"
        return f"{self.verdict.status}: float parameters give ε = {human(self.epsilon)} ≈ {eps}, which {tail}"

    def to_json(self) -> dict:
        return {
            "mechanism": self.mechanism,
            "floats": {k: repr(v) for k, v in self.floats},
            "exact": {k: sstr(v) for k, v in self.exact},
            "semantics": self.semantics,
            "epsilon": sstr(self.epsilon),
            "epsilon_approx": approx(self.epsilon, 20),
            "claim": sstr(self.claim),
            "excess": sstr(self.excess),
            "excess_approx": approx(self.excess, 6),
            "ulps": self.ulps,
            "verdict": self.verdict.to_json(),
            "notes": list(self.notes),
            "text": str(self),
        }
