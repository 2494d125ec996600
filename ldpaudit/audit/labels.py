"""Input label maps: the target's own inputs onto the spec's (``--input-map``).

A library may count its inputs otherwise than the spec: pure-ldp's items are 1..d where a spec's
domain is 0..d−1. The audit then runs on the spec's inputs and calls the target with the label it
knows for each: ``--domain 1..8 --spec krappor -p d=8`` maps 1..8 onto 0..7 in order. Maps:

- ``auto`` (default): the identity when every ``--domain`` input is one of the spec's, else
  ``order`` when ``--domain`` has as many inputs as the spec's domain, else one line of bad input;
- ``identity``: the target takes the spec's inputs as they are;
- ``order``: the i-th input of ``--domain`` is the spec's i-th input (as the spec lists them);
- ``T=S,T=S,...``: explicit pairs, target input T for spec input S (one to one).

The map relabels inputs only, never outputs: an output that is an input label (k-RR's) is read as
the target gives it (use ``--feature`` to relabel outputs). The result says which map was used.
"""

from __future__ import annotations

from dataclasses import dataclass

from ldpaudit.errors import InvalidParameter

_RULES = ("auto", "identity", "order")


@dataclass(frozen=True)
class InputMap:
    """Which target input stands for each spec input the audit draws from: ``pairs`` holds
    (spec input, target input) in the spec's order; ``rule`` is identity, order or explicit."""

    rule: str
    pairs: tuple[tuple, ...]

    @property
    def to_target(self) -> dict:
        return dict(self.pairs)

    def describe(self) -> str:
        if self.rule == "identity":
            return "the target takes the spec's inputs as they are"
        spec = _span([s for s, _ in self.pairs])
        target = _span([t for _, t in self.pairs])
        how = "in order" if self.rule == "order" else "as named by --input-map"
        return f"the target's inputs {target} stand for the spec's inputs {spec} ({how})"

    def to_json(self) -> dict:
        shown = [[s, t] for s, t in self.pairs]
        return {"rule": self.rule, "spec_to_target": shown if self.rule != "identity" else None,
                "text": self.describe()}


def _span(values: list) -> str:
    if len(values) > 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in values) \
            and values == list(range(values[0], values[0] + len(values))):
        return f"{values[0]}..{values[-1]}"
    shown = ", ".join(map(repr, values[:6])) + (", ..." if len(values) > 6 else "")
    return "{" + shown + "}"


def _value(text: str):
    text = text.strip()
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            continue
    return text


def _explicit(text: str, spec_inputs: list) -> tuple[tuple, ...]:
    pairs, targets, specs = [], set(), set()
    for item in (p for p in text.split(",") if p.strip()):
        target, sep, spec = item.partition("=")
        if not sep or not target.strip() or not spec.strip():
            raise InvalidParameter(f"--input-map {text}: {item.strip()!r} is not TARGET=SPEC; write e.g. "
                                   f"--input-map 1=0,2=1 (the target's input 1 is the spec's 0), or order")
        t, s = _value(target), _value(spec)
        if s not in spec_inputs:
            raise InvalidParameter(f"--input-map {text}: {s!r} is not one of the spec's inputs ({_span(spec_inputs)}); "
                                   f"the right side of each pair is a spec input")
        if t in targets or s in specs:
            twice = t if t in targets else s
            raise InvalidParameter(f"--input-map {text}: {twice!r} is paired twice; the map must be one to one")
        targets.add(t)
        specs.add(s)
        pairs.append((s, t))
    if len(pairs) < 2:
        raise InvalidParameter(f"--input-map {text}: name at least two pairs TARGET=SPEC, e.g. 1=0,2=1")
    order = {s: i for i, s in enumerate(spec_inputs)}
    return tuple(sorted(pairs, key=lambda p: order[p[0]]))


def input_map(text: str | None, domain: list | None, spec_inputs: list) -> InputMap:
    """The map of ``--input-map TEXT`` (None: auto) between the target's ``--domain`` inputs
    (None: not given) and the spec's inputs; one line naming the option, the value and the fix
    when it cannot be made."""
    rule = (text or "auto").strip()
    if rule not in _RULES:
        pairs = _explicit(rule, spec_inputs)
        if domain is not None:
            missing = [x for x in domain if x not in {t for _, t in pairs}]
            if missing:
                raise InvalidParameter(f"--domain input {missing[0]!r} is not paired by --input-map {rule}; pair "
                                       f"every --domain input, or drop --domain (the map's inputs are audited)")
            pairs = tuple(p for p in pairs if p[1] in set(domain))
        return InputMap("explicit", pairs)
    if domain is None:
        if rule == "order":
            raise InvalidParameter("--input-map order maps the target's --domain onto the spec's inputs; give "
                                   "--domain (the target's inputs, e.g. --domain 1..8)")
        return InputMap("identity", tuple((x, x) for x in spec_inputs))
    outside = [x for x in domain if x not in set(spec_inputs)]
    if rule == "identity" or (rule == "auto" and not outside):
        if outside:
            raise InvalidParameter(f"input {outside[0]!r} is not in the spec's domain {_span(spec_inputs)} "
                                   f"(--input-map identity); map the target's inputs with --input-map order")
        return InputMap("identity", tuple((x, x) for x in domain))
    if len(domain) != len(spec_inputs):
        raise InvalidParameter(
            f"input {outside[0]!r} is not in the spec's domain {_span(spec_inputs)}; --domain has {len(domain)} "
            f"inputs and the spec {len(spec_inputs)}: give as many to map them onto the spec's in order, or name "
            f"the map, e.g. --input-map {domain[0]!r}={spec_inputs[0]!r},{domain[1]!r}={spec_inputs[1]!r},...")
    if len(set(domain)) != len(domain):
        raise InvalidParameter("--domain repeats an input; each of the target's inputs must stand for one of the "
                               "spec's")
    return InputMap("order", tuple(zip(spec_inputs, domain)))


class Relabeled:
    """A randomizer called with the target's label of each spec input (``to_target``); the
    isolated randomizer's fast paths (``draw_block``, ``draw_counts``) are relabeled alike,
    everything else (``close``, ``describe``...) is the randomizer's own."""

    def __init__(self, randomizer, to_target: dict):
        self.randomizer, self.to_target = randomizer, dict(to_target)
        self.__name__ = getattr(randomizer, "__name__", type(randomizer).__name__)

    def __call__(self, x, *rest):
        return self.randomizer(self.to_target[x], *rest)

    def __getattr__(self, name):
        if name in ("randomizer", "to_target"):     # not set yet (a copy being made)
            raise AttributeError(name)
        inner = getattr(self.randomizer, name)
        if name == "draw_counts":
            return lambda x, *rest: inner(self.to_target[x], *rest)
        if name == "draw_block":
            return lambda tasks, **kw: inner([(self.to_target[t[0]], *t[1:]) for t in tasks], **kw)
        return inner
