"""``ldpaudit new PATH --from NAME``: start a spec for a new mechanism from a bundled one.

The new file is a catalog mechanism written out as TOML (:func:`~ldpaudit.mechanism.loader.dumps_spec`)
or a copy of a spec file, renamed, with a header saying what to edit and how to check it. It is
loaded before the command returns, so what it writes is a valid spec to start from; an existing
file is never overwritten.
"""

from __future__ import annotations

import re
from pathlib import Path

from ldpaudit.errors import InvalidParameter

HEADER = """# {name}: started from {source} by `ldpaudit new`.
# Edit [mechanism] (name, claimed_epsilon, source), [parameters], [inputs] and [channel] to
# describe your mechanism (the spec language: docs/reference/spec-language.md), then run
#     ldpaudit check {path}
# to validate it, prove its claim, derive its estimator and audit it.
"""


def add_parser(subparsers) -> None:
    from ldpaudit.mechanism.catalog import CATALOG

    p = subparsers.add_parser(
        "new", help="start a spec for a new mechanism from a bundled one",
        description="Write a spec file for a new mechanism, started from a bundled mechanism or a spec file.",
        epilog=f"catalog names: {', '.join(CATALOG)}; or a path to a .toml spec. The file is loaded before the "
               "command returns (a valid spec to edit); an existing file is never overwritten (exit 2).")
    p.add_argument("path", help="the spec file to write, e.g. specs/my_mechanism.toml")
    p.add_argument("--from", dest="source", default="krr", metavar="NAME",
                   help="a catalog name such as krr, oue, ksubset, laplace_mean, or a spec file (default krr)")
    p.add_argument("--name", default=None, help="mechanism.name of the new spec (default: from the file name)")
    p.set_defaults(func=cmd_new)


def scaffold(path: str | Path, source: str = "krr", name: str | None = None) -> Path:
    """Write the new spec and return its path (InvalidParameter: the file exists, the source is
    unknown, or the name is unusable)."""
    from ldpaudit.mechanism.catalog import CATALOG
    from ldpaudit.mechanism.loader import dumps_spec, load_spec, loads_spec

    from ldpaudit.mechanism.options import check_output_path, write_output

    target = Path(path)
    if target.suffix != ".toml":
        raise InvalidParameter(f"path {str(path)[:80]!r} must end in .toml, e.g. specs/my_mechanism.toml")
    target = check_output_path(path, "path", force=None, make_parents=True)  # force=None: new never overwrites
    title = name if name is not None else target.stem.replace("_", " ").strip() or "my mechanism"
    if not title.strip() or len(title) > 200 or any(c in title for c in '"\\\n'):
        raise InvalidParameter(f"--name {title!r} must be 1..200 characters without quotes, backslashes or newlines")
    if source in CATALOG:
        from dataclasses import replace

        text = dumps_spec(replace(CATALOG[source](), name=title))
    else:
        src = Path(source)
        if not src.is_file():
            raise InvalidParameter(f"--from {source!r} is neither a catalog name ({', '.join(CATALOG)}) nor a spec file")
        load_spec(src)  # a valid source
        text = _renamed(src.read_text(encoding="utf-8"), title)
    text = HEADER.format(name=title, source=source, path=target) + text
    loads_spec(text, source=str(target))  # what is written loads
    write_output(target, text, "path", make_parents=True)  # "x": never overwrite, even in a race
    return target


def _renamed(text: str, title: str) -> str:
    """A spec's text with ``name = "..."`` of [mechanism] replaced (the first such line)."""
    return re.sub(r'(?m)^name\s*=\s*".*"$', f'name = "{title}"', text, count=1)


def cmd_new(args) -> int:
    target = scaffold(args.path, args.source, args.name)
    print(f"wrote {target}: a valid spec started from {args.source}; edit it, then run `ldpaudit check {target}`")
    return 0
