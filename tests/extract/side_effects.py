"""A randomizer whose module-level code and body write a file: extraction must run neither."""
import os
import random

_MARK = os.environ.get("LDPAUDIT_EXTRACT_MARK", "extract-ran.txt")
with open(_MARK, "w") as _f:
    _f.write("module-level code ran\n")


def rr(x, *, epsilon=1.0):
    open(_MARK, "a").write("body ran\n")
    return x if random.random() < 0.75 else 1 - x
