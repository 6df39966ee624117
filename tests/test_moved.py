"""Issue 46 item 1: a module path that moved keeps working, with a DeprecationWarning naming the
new one (files users wrote import by path)."""

import importlib
import subprocess
import sys

import pytest

import otbound
from otbound.moved import MOVED


@pytest.mark.parametrize("old, new", sorted(MOVED.items()))
def test_an_old_path_is_the_new_module_with_a_warning(old, new):
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=f"{old} has moved to {new}"):
        module = importlib.import_module(old)
    assert module is importlib.import_module(new)


def test_an_audit_file_of_an_earlier_main_loads():
    """The case of the issue: ``from otbound.numerics.methods import adp`` is otbound.adp."""
    sys.modules.pop("otbound.numerics.methods", None)
    with pytest.warns(DeprecationWarning):
        from otbound.numerics.methods import adp
    assert adp is otbound.adp


def test_a_path_that_never_existed_is_still_an_error_and_real_modules_win():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("otbound.numerics.no_such_module")
    assert not set(MOVED) & {name for name in sys.modules if name.startswith("otbound.")
                             and getattr(sys.modules[name], "__name__", name) == name}


def test_a_fresh_process_gets_the_moved_path_without_importing_otbound_first():
    found = subprocess.run([sys.executable, "-W", "error::DeprecationWarning", "-c",
                            "import otbound.numerics.methods"], capture_output=True, text=True)
    assert found.returncode != 0 and "has moved to otbound.numerics.one_step" in found.stderr
