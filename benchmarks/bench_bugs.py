"""The public suite of real LDP bugs (ldpaudit/bench/suite.py), scored: the table of
benchmarks/README.md. A thin wrapper around ``ldpaudit bench`` (ldpaudit/bench/runner.py),
which documents the columns.

    python benchmarks/bench_bugs.py            # the table (about 10 minutes on 2 cores)
    python benchmarks/bench_bugs.py --quick    # up to 10^6 draws, counterparts at 10^5
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ldpaudit.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(["bench", *sys.argv[1:]]))
