"""`ldpaudit.spec` was renamed `ldpaudit.mechanism`: the old name still imports, warns, and is the
same modules (issue 19)."""

import subprocess
import sys
from pathlib import Path

import ldpaudit

PACKAGE = Path(ldpaudit.__file__).parent


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-W", "always::DeprecationWarning", "-c", code],
                          capture_output=True, text=True, timeout=60)


def test_no_spec_package_directory_remains():
    assert not (PACKAGE / "spec").is_dir()
    assert (PACKAGE / "mechanism" / "__init__.py").is_file()


def test_old_name_imports_warns_and_is_the_same_modules():
    proc = _run(
        "import ldpaudit.spec as old\n"
        "from ldpaudit.spec.loader import load_spec\n"
        "from ldpaudit.spec.randomizers import krr\n"
        "import ldpaudit.mechanism.loader as new_loader, ldpaudit.mechanism.randomizers as new_r\n"
        "import ldpaudit.spec.loader as old_loader\n"
        "assert old_loader is new_loader and load_spec is new_loader.load_spec and krr is new_r.krr\n"
        "assert old.k_rr is __import__('ldpaudit.mechanism', fromlist=['k_rr']).k_rr\n"
        "print('ok')\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"
    assert "DeprecationWarning: ldpaudit.spec was renamed ldpaudit.mechanism" in proc.stderr


def test_old_name_of_a_missing_submodule_is_still_an_import_error():
    proc = _run("import ldpaudit.spec.nope")
    assert proc.returncode == 1
    assert "ModuleNotFoundError: No module named 'ldpaudit.spec.nope'" in proc.stderr


def test_old_target_path_still_audits():
    from ldpaudit.audit.adapters import load_target

    sampler = load_target("ldpaudit.spec.randomizers:krr", {"d": "4", "epsilon": "1"}, batch=True)
    assert callable(sampler)


def test_nothing_inside_the_package_imports_the_old_name():
    offenders = [str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
                 if p.name != "spec.py" and "ldpaudit.spec" in p.read_text().replace("ldpaudit.specs", "")]
    assert offenders == []
