"""Claims over regions: inequalities between derived quantities, proved for a whole region of
the parameters or refuted at an exact point (``ldpaudit prove CLAIMS.toml``)."""

from ldpaudit._callable import lazy_names

_API = {
    "load_claims": "ldpaudit.theorems.claims",
    "loads_claims": "ldpaudit.theorems.claims",
    "prove_claim": "ldpaudit.theorems.prover",
    "prove_file": "ldpaudit.theorems.prover",
    "ClaimResult": "ldpaudit.theorems.prover",
}
__getattr__ = lazy_names(__name__, _API)
__all__ = sorted(_API)
