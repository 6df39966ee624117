"""The lowest dp-accounting release of pyproject.toml's range passes the tests of what otbound
takes from dp_accounting (issue 46 item 7: the pin is a range, tested), in a virtual
environment of its own: its own dp-accounting (and what that release requires of its
dependencies) first, then this environment's packages (a ``.pth`` line; pip does not uninstall
what lies outside its environment).

Slow (pip installs from the index): marked ``install``, run by the README's test command (and
so by ``.ci/run``) after the main suite. The upper end of the range is the release the main
suite runs with.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest

pytestmark = pytest.mark.install

ROOT = Path(__file__).resolve().parent.parent
LOWEST = "0.5.1"
"""The first release with every event :class:`otbound.DpEventAccountant` reads (0.5.0 has no
``TruncatedSubsampledGaussianDpEvent``)."""
TESTS = ["tests/test_dense_pld.py", "tests/test_step_pld.py", "tests/test_dp_events.py",
         "tests/test_architecture.py"]
"""What otbound takes from dp_accounting: its PLD classes (otbound's PLDs against them, handed
over to them), its events and accountant interface, and its private names (none read)."""
TIMEOUT = 1800


def _requirement() -> str:
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    (found,) = [d for d in dependencies if d.startswith("dp-accounting")]
    return found


def test_the_range_starts_at_the_lowest_release_tested():
    assert _requirement() == f"dp-accounting>={LOWEST},<0.7"


def _environment(folder: Path) -> str:
    """A virtual environment in ``folder`` that also sees this one's packages, after its own;
    its python."""
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
    python = str(folder / "bin" / "python")
    own = subprocess.run([python, "-c", "import sysconfig; "
                          "print(sysconfig.get_paths()['purelib'])"],
                         check=True, capture_output=True, text=True).stdout.strip()
    outer = {sysconfig.get_paths()[kind] for kind in ("purelib", "platlib")}
    (Path(own) / "outer-environment.pth").write_text("".join(f"{path}\n" for path in outer))
    return python


def test_the_lowest_release_passes_the_tests_of_what_otbound_takes_from_it(tmp_path):
    python = _environment(tmp_path / "venv")
    subprocess.run([python, "-m", "pip", "install", "--quiet", f"dp-accounting=={LOWEST}"],
                   check=True, timeout=TIMEOUT)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env["PYTHONPATH"] = str(ROOT)   # this tree's otbound, whatever is installed
    found = subprocess.run([python, "-c", "import importlib.metadata as m, dp_accounting; "
                            "print(m.version('dp-accounting'), dp_accounting.__file__)"],
                           env=env, check=True, capture_output=True, text=True).stdout.split()
    assert found[0] == LOWEST and found[1].startswith(str(tmp_path))
    result = subprocess.run([python, "-m", "pytest", *TESTS, "-q", "-p", "no:cacheprovider"],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-2000:]
