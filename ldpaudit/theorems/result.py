"""What deciding a claim returns: PROVED, REFUTED (with a witness point checked exactly) or
UNKNOWN (with the pieces of the region left open), as a :class:`ClaimResult`.
"""

from __future__ import annotations

from dataclasses import dataclass

PROVED, REFUTED, UNKNOWN = "PROVED", "REFUTED", "UNKNOWN"


@dataclass(frozen=True)
class Witness:
    point: dict               # parameter name -> exact value (text)
    lhs: str                  # exact expression of each side at the point
    rhs: str
    lhs_value: str            # decimals (20 digits)
    rhs_value: str
    part: str                 # which inequality of the statement fails


@dataclass(frozen=True)
class ClaimResult:
    name: str
    statement: str
    status: str
    reason: str
    seconds: float
    boxes: int
    witness: Witness | None = None
    left: tuple = ()
    note: str = ""
    method: str = ""

    @property
    def exit_code(self) -> int:
        return {PROVED: 0, REFUTED: 1}.get(self.status, 3)

    def as_dict(self) -> dict:
        out = {"name": self.name, "statement": self.statement, "status": self.status, "reason": self.reason,
               "seconds": round(self.seconds, 3), "boxes": self.boxes, "method": self.method}
        if self.witness is not None:
            out["witness"] = self.witness.__dict__
        if self.left:
            out["left"] = list(self.left)
        if self.note:
            out["note"] = self.note
        return out
