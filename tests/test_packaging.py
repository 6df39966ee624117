"""Packaging (issue 10): the bundled derivations ship with the package, and the catalogue finds
them whether otbound runs from the source tree or from an installed wheel."""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from otbound.engine import bundled as catalog

ROOT = Path(__file__).resolve().parents[1]
DERIVATION_FILES = sorted(p.name for p in (ROOT / "derivations").glob("*.py")
                          if not p.name.startswith("_"))
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build", "dist")


@pytest.fixture(scope="module")
def wheel_names(tmp_path_factory) -> set[str]:
    """The files of a wheel built (without dependencies) from a copy of the source tree.

    A copy, so that the build neither writes into the working tree nor picks up stale files
    from an earlier ``build/`` folder."""
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    for folder in ("otbound", "derivations", "audits"):
        shutil.copytree(ROOT / folder, source / folder, ignore=IGNORED)
    out = tmp_path_factory.mktemp("wheel")
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet",
         "--disable-pip-version-check", "--wheel-dir", str(out), str(source)],
        capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    (wheel,) = out.glob("otbound-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def test_the_source_tree_holds_the_eighteen_derivation_files():
    assert len(DERIVATION_FILES) == 18


def test_the_wheel_ships_the_bundled_derivations(wheel_names):
    shipped = sorted(name.removeprefix("otbound/derivations/") for name in wheel_names
                     if name.startswith("otbound/derivations/")
                     and not name.removeprefix("otbound/derivations/").startswith("_"))
    assert shipped == DERIVATION_FILES
    assert "otbound/derivations/__init__.py" in wheel_names


def test_the_wheel_ships_every_module_of_the_package(wheel_names):
    """pyproject.toml lists the subpackages by hand: a new one must be added there."""
    modules = sorted(path.relative_to(ROOT).as_posix() for path in (ROOT / "otbound").rglob("*.py")
                     if "__pycache__" not in path.parts)
    assert [m for m in modules if m not in wheel_names] == []
    assert not any(name.startswith(("derivations/", "tests/")) for name in wheel_names)


def test_the_catalogue_does_not_depend_on_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.delenv(catalog.ENVIRONMENT_VARIABLE, raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "derivations").mkdir()  # a stray folder of that name must not be picked up
    directory = catalog.catalogue_directory()
    assert directory.resolve() == (ROOT / "derivations").resolve()
    assert len(catalog.bundled_derivations()) == 18


def test_the_environment_variable_overrides_the_catalogue(tmp_path, monkeypatch):
    shutil.copy2(ROOT / "derivations" / "thm_3_6.py", tmp_path / "thm_3_6.py")
    monkeypatch.setenv(catalog.ENVIRONMENT_VARIABLE, str(tmp_path))
    assert catalog.catalogue_directory() == tmp_path
    assert [d.name for _, d in catalog.bundled_derivations()] == ["001-thm-3.6"]
