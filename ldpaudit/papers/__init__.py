"""Papers as data: a ``paper.toml`` manifest names specs, quantities, grids, printed values,
claims and derivations; ``ldpaudit reproduce paper.toml`` builds every table, figure,
derivation and claim of it, incrementally, and compares what the paper prints (the top floor:
it uses every stage below it)."""

from ldpaudit._callable import lazy_names

_API = {
    "load_manifest": "ldpaudit.papers.manifest",
    "Manifest": "ldpaudit.papers.manifest",
    "build": "ldpaudit.papers.build",
    "BuildResult": "ldpaudit.papers.build",
    "check_manifest": "ldpaudit.papers.command",
    "compare_folders": "ldpaudit.papers.command",
}
__getattr__ = lazy_names(__name__, _API)
__all__ = sorted(_API)
