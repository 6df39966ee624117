"""What a user gets from the README's set-up: ``pip install`` of a clean copy of the repository
with no extras, in a fresh virtual environment, then every ``otbound …`` command that README.md
and docs/*.md show, read from the pages (:mod:`documented_commands`), with its documented exit
code; and ``otbound verify`` of every bundled derivation.

Slow (the install and the commands take minutes): marked ``install``, run by the README's test
command (and so by ``.ci/run``) after the main suite. The environment is built once, shared by
the xdist workers through a lock.
"""

from __future__ import annotations

import fcntl
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from documented_commands import ROOT, Documented, all_commands

pytestmark = pytest.mark.install

TIMEOUT = 1800
"""Seconds one command may take (``otbound audit --all`` is the longest, several minutes)."""


@pytest.fixture(scope="session")
def user_install(tmp_path_factory) -> Path:
    """A clean copy of the repository installed without extras; the copy's folder (the
    environment is its ``venv/``)."""
    shared = tmp_path_factory.getbasetemp().parent / "user-install"
    shared.mkdir(exist_ok=True)
    with open(shared / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (shared / "ready").exists():
            _install(shared)
            (shared / "ready").touch()
    return shared


def _install(folder: Path) -> None:
    tree = folder / "tree"
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard",
                             "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in filter(None, listed.decode().split("\0")):
        source, target = ROOT / name, tree / name
        if source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
    subprocess.run([sys.executable, "-m", "venv", str(tree / "venv")], check=True)
    subprocess.run([str(tree / "venv" / "bin" / "pip"), "install", "--quiet", str(tree)],
                   check=True, timeout=TIMEOUT)


def _run(folder: Path, argv: list[str]) -> subprocess.CompletedProcess:
    """``argv`` in the installed environment, from the copy's root, as a user's shell runs it."""
    tree = folder / "tree"
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OTBOUND_", "PYTHON", "VIRTUAL_ENV"))}
    env["PATH"] = f"{tree / 'venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(argv, cwd=tree, env=env, capture_output=True, text=True,
                          timeout=TIMEOUT)


def _stderr_is_clean(stderr: str) -> None:
    for sign in ("Traceback", "Warning", "internal error"):
        assert sign not in stderr, stderr


@pytest.mark.parametrize("documented", all_commands(), ids=lambda d: f"{d.page}:{d.command[8:70]}")
def test_every_documented_command_exits_as_documented(user_install, documented: Documented):
    done = _run(user_install, shlex.split(documented.command))
    _stderr_is_clean(done.stderr)
    if documented.extra:
        assert done.returncode == 2, done.stderr
        assert f"pip install 'otbound[{documented.extra}]'" in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
        return
    assert done.returncode == documented.exit_code, done.stderr[-2000:]
    if "--json" in documented.command:
        json.loads(done.stdout)
    else:
        assert done.stdout.strip()


def _bundled_names() -> list[str]:
    from otbound.engine.bundled import bundled_derivations

    return [derivation.name for _, derivation in bundled_derivations()]


@pytest.mark.parametrize("name", _bundled_names())
def test_verify_passes_for_every_bundled_derivation(user_install, name: str):
    done = _run(user_install, ["otbound", "verify", name])
    _stderr_is_clean(done.stderr)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


def test_a_missing_extra_is_an_otbound_error_in_the_api(user_install):
    script = ("import otbound\n"
              "from otbound.optional import optional_module\n"
              "try:\n"
              "    optional_module('matplotlib.figure', 'drawing plots')\n"
              "except otbound.UnsupportedOperation as error:\n"
              "    print(error)\n")
    done = _run(user_install, ["python", "-c", script])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ("drawing plots needs matplotlib: "
                                   "pip install 'otbound[plots]'")


def test_a_users_type_checker_sees_the_public_types(user_install, tmp_path):
    """``py.typed`` and the surfaces' stubs ship with the install: mypy, pointed at the user's
    interpreter, knows ``otbound.account``'s result and flags a call missing its arguments."""
    user = tmp_path / "user.py"
    user.write_text("import otbound\n"
                    "found = otbound.account(otbound.Subsampling('poisson', rate=0.01),\n"
                    "                        otbound.discrete_gaussian(2.0), 10, delta=1e-5)\n"
                    "reveal_type(found.epsilon)\n"
                    "otbound.account(otbound.gaussian(1.0))\n")
    python = user_install / "tree" / "venv" / "bin" / "python"
    done = subprocess.run([sys.executable, "-m", "mypy", "--python-executable", str(python),
                           "--cache-dir", str(tmp_path / "cache"), str(user)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=TIMEOUT)
    # without the stubs: "Any" and no error; without py.typed: otbound not found
    assert 'Revealed type is "float"' in done.stdout, done.stdout + done.stderr
    assert ('Missing positional arguments "mechanism", "steps" in call to "account"'
            in done.stdout), done.stdout
