"""Errors in a user's audit entry are the user's (issue 24, A): whatever an entry's formula,
reference, confirmation, domain or grid raises is an AuditFileError naming the file, the entry
and what failed (exit 2, one line), in this process and in worker processes alike; a failure
inside otbound's own reference code stays an internal error (exit 1), never the user's."""

import sysconfig
import textwrap
from pathlib import Path

import pytest
from cli_runs import run_cli

import otbound
from otbound.audit.blame import OTBOUND_FOLDER, raised_by_otbound
from otbound.audit.catalog import load_claim_file
from otbound.errors import AuditFileError, InternalError

HEADER = """
from otbound.audit.claims import Claim, Reference, grid
from otbound.audit.references import subsampled
from otbound.audit.reference_wor import gaussian_group
from otbound.choices import Quantity
from otbound.numerics.mechanisms import gaussian
from otbound.numerics.settings import Subsampling


class Oops(Exception):
    pass


def fails():
    raise Oops("the entry's own exception")


POINTS = grid(r=[0.1], sigma=[1.0, 2.0], alpha=[2.0, 4.0])
"""


def _entry(points="POINTS", claimed="lambda p: 1.0",
           reference="lambda p: Reference(2.0, 0.5)") -> str:
    return (f'CLAIM = Claim(name="my-claim", title="t", citation="c", setting="s", domain="d", '
            f'quantity=Quantity.RDP, points={points}, claimed={claimed}, '
            f'reference={reference})\n')


BROKEN = {
    # (the entry, what the one-line message says after the file's name)
    "misspelt key in the formula": (
        _entry(claimed='lambda p: p["sigmaa"]'),
        "): its formula raised KeyError: 'sigmaa' at point {'r': 0.1, 'sigma': 1.0, "
        "'alpha': 2.0}"),
    "division by zero in the formula": (
        _entry(claimed="lambda p: 1 / (p['r'] - 0.1)"),
        "): its formula raised ZeroDivisionError: float division by zero at point {"),
    "the entry's own exception class": (
        _entry(claimed="lambda p: fails()"),
        "): its formula raised Oops: the entry's own exception at point {'r': 0.1"),
    "a formula that gives no number": (
        _entry(claimed="lambda p: 'large'"),
        "): its formula gave 'large', not a number, at point {"),
    "misspelt key in a reference built on otbound's": (
        _entry(reference='lambda p: subsampled(Subsampling("poisson", rate=p["rate"]), '
                         'gaussian(p["sigma"]), Quantity.RDP, p["alpha"])'),
        "): its reference raised KeyError: 'rate' at point {"),
    "invalid input passed to otbound's reference": (
        _entry(reference='lambda p: gaussian_group(1, gaussian(-p["sigma"]), p["alpha"])'),
        "): its reference raised InvalidSpecification: "),
    "a reference that is not a Reference": (
        _entry(reference="lambda p: 2.0"),
        "): its reference returned float, not an otbound Reference, at point {"),
    "a failing confirmation of a witness": (
        _entry(reference="lambda p: Reference(None, 2.0, 'w', lambda: 1 / 0)"),
        "): its reference's confirmation raised ZeroDivisionError: division by zero at point {"),
}
"""Entries that load but fail at a point: the message names the entry and its file."""

UNLOADABLE = {
    "reference=None": (_entry(reference="None"),
                       "could not be loaded: InvalidSpecification: claim my-claim: reference "
                       "must be a function of the point, got None"),
    "a grid value that is no number": (_entry(points="grid(alpha=['two'])"),
                                       "could not be loaded: InvalidSpecification: claim "
                                       "my-claim: parameter alpha must be a finite number"),
    "a grid that cannot be built": (_entry(points="grid(alpha=[2.0], r=POINTS[9])"),
                                    "could not be loaded: IndexError: tuple index out of range"),
}
"""Entries whose claim (formula, reference, domain or grid) fails as the file is loaded."""


def _write(tmp_path: Path, entry: str) -> Path:
    path = tmp_path / "my_claim.py"
    path.write_text(textwrap.dedent(HEADER) + entry, encoding="utf-8")
    return path


def _one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("otbound: error: "), err
    return lines[0]


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_failing_entry_is_the_users_error_naming_file_entry_and_failure(tmp_path, capsys,
                                                                          case):
    entry, message = BROKEN[case]
    path = _write(tmp_path, entry)
    code, out, err = run_cli(capsys, "audit", path, "--workers", "1")
    line = _one_error_line(err)
    assert code == 2 and out == ""
    assert f"otbound: error: audit entry 'my-claim' ({path}" + message in line
    with pytest.raises(AuditFileError) as raised:
        otbound.run_audits([(path, load_claim_file(path))], workers=1)
    assert f"audit entry 'my-claim' ({path}" + message in str(raised.value)


@pytest.mark.parametrize("case", sorted(UNLOADABLE))
def test_an_entry_that_fails_to_load_is_the_users_error(tmp_path, capsys, case):
    entry, message = UNLOADABLE[case]
    path = _write(tmp_path, entry)
    code, _, err = run_cli(capsys, "audit", path)
    line = _one_error_line(err)
    assert code == 2 and f"audit file {str(path)!r} {message}" in line
    with pytest.raises(AuditFileError, match="could not be loaded"):
        load_claim_file(path)


def test_the_error_comes_back_from_worker_processes_with_its_message(tmp_path, capsys):
    entry, message = BROKEN["misspelt key in the formula"]
    path = _write(tmp_path, entry)
    with pytest.raises(AuditFileError) as raised:
        otbound.run_audits([(path, load_claim_file(path))], workers=2)
    assert f"audit entry 'my-claim' ({path}): its formula raised KeyError: 'sigmaa'" in str(
        raised.value)
    code, _, err = run_cli(capsys, "audit", path, "--workers", "2")
    assert code == 2 and "its formula raised KeyError: 'sigmaa'" in _one_error_line(err)


def test_the_error_comes_back_from_a_dask_worker_with_its_message(tmp_path):
    distributed = pytest.importorskip("distributed")
    path = _write(tmp_path, BROKEN["misspelt key in the formula"][0])
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            with pytest.raises(AuditFileError, match=r"its formula raised KeyError: 'sigmaa'"):
                otbound.run_audits([(path, load_claim_file(path))], scheduler=client)


def test_a_failure_of_otbounds_own_reference_code_stays_internal(tmp_path, capsys,
                                                                 monkeypatch):
    # a defect of otbound, simulated: the Gaussian's group divergence returns nothing, so
    # otbound's gaussian_group fails in its own code on a valid request of the entry
    from otbound.numerics.mechanisms import AdditiveNoise

    monkeypatch.setattr(AdditiveNoise, "group_log_psi", lambda self, distance, alphas: None)
    path = _write(tmp_path, _entry(reference='lambda p: gaussian_group(1, gaussian(p["sigma"]), '
                                             'p["alpha"])'))
    with pytest.raises(InternalError, match="otbound's own code failed while evaluating its "
                                            "reference of audit entry 'my-claim'"):
        otbound.run_audits([(path, load_claim_file(path))], workers=1)
    code, _, err = run_cli(capsys, "audit", path, "--workers", "1")
    assert code == 1 and err.startswith("otbound: internal error (not a problem with your input")


def _functions(tmp_path: Path) -> dict:
    """``user → otbound → library`` call chains, each function compiled under a file name of its
    kind: the entry's (a temporary file), otbound's (in the package) and a library's (stdlib)."""
    namespace: dict = {}
    kinds = {"user": tmp_path / "entry.py", "otbound": OTBOUND_FOLDER / "audit" / "pretend.py",
             "library": Path(sysconfig.get_paths()["stdlib"]) / "pretend.py"}
    for kind, filename in kinds.items():
        source = (f"def {kind}(chain):\n"
                  f"    if not chain:\n"
                  f"        raise RuntimeError('{kind}')\n"
                  f"    return globals()[chain[0]](chain[1:])\n")
        exec(compile(source, str(filename), "exec"), namespace)
    return namespace


@pytest.mark.parametrize("chain, otbounds", [
    (("user",), False),                          # the entry's formula itself
    (("user", "library"), False),                # a library the entry called
    (("user", "otbound"), True),                 # otbound's own code
    (("user", "otbound", "library"), True),      # a library otbound called (mpmath, numpy)
    (("user", "otbound", "library", "user"), False),   # the entry's callback, called by otbound
    (("library",), False),                       # a library function given as the callable
])
def test_blame_goes_to_the_deepest_frame_outside_library_code(tmp_path, chain, otbounds):
    functions = _functions(tmp_path)
    with pytest.raises(RuntimeError) as raised:
        functions[chain[0]](chain[1:])
    assert raised_by_otbound(raised.value.__traceback__.tb_next) is otbounds
