"""Independent cases on every core (``otbound.parallel``): the same results as one after the
other, errors passed on, and nothing forked where forking is unsafe."""

import subprocess
import sys
import threading

import pytest

from otbound import parallel

FORKED = """
import os
from otbound import parallel
from otbound.errors import InvalidSpecification
from otbound.numerics.mechanisms import gaussian
from otbound.numerics.one_step import rdp, cases_log_psi
from otbound.numerics.settings import Subsampling

assert parallel._may_fork()
items = list(range(40))
assert parallel.mapped(lambda i: i * i, items) == [i * i for i in items]
if parallel._cores() >= 2:   # the work was done in other processes
    assert os.getpid() not in set(parallel.mapped(lambda i: os.getpid(), items))

def refuse(i):
    if i == 33:
        raise InvalidSpecification("item 33", parameter="x")
    return i
try:
    parallel.mapped(refuse, items)
except InvalidSpecification as error:
    assert str(error) == "item 33" and error.parameter == "x"
else:
    raise AssertionError("no error")
print([b.value for b in rdp(Subsampling("poisson", rate=0.02, group=40), gaussian(1.5), "tight",
                            [1.5, 4.0, 32.0])])
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks on Linux only")
def test_forked_workers_give_what_one_process_gives():
    """In a fresh single-threaded process (where it forks) the group's curve equals the one this
    threaded test process computes one case after the other."""
    from otbound.numerics.mechanisms import gaussian
    from otbound.numerics.one_step import rdp
    from otbound.numerics.settings import Subsampling

    run = subprocess.run([sys.executable, "-c", FORKED], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    here = [b.value for b in rdp(Subsampling("poisson", rate=0.02, group=40), gaussian(1.5),
                                 "tight", [1.5, 4.0, 32.0])]
    assert run.stdout.strip() == str(here)


def test_nothing_is_forked_from_a_threaded_process():
    blocker = threading.Event()
    thread = threading.Thread(target=blocker.wait)
    thread.start()
    try:
        assert not parallel._may_fork()
        assert parallel.mapped(lambda i: i + 1, list(range(50))) == list(range(1, 51))
    finally:
        blocker.set()
        thread.join()


SCOUTED = """
import otbound
from otbound import parallel
from otbound.accounting import pld
from otbound.accounting.running import RunningAccountant

prefetched = []
prefetch = pld.prefetch_plds
pld.prefetch_plds = lambda steps, scouts, kept: (prefetched.append(len(scouts)),
                                                 prefetch(steps, scouts, kept))[1]
setting, noise = otbound.Subsampling("poisson", rate=0.001, group=40), otbound.gaussian(5.0)
running = RunningAccountant("pld")
running.step(setting, noise, 100)
first = running.guarantee(delta=1e-6)
assert max(prefetched) >= parallel.MIN_ITEMS, prefetched   # scouted in forked workers
running.step(setting, noise, 20)
print([first.epsilon, first.details["cases composed"], running.guarantee(delta=1e-6).epsilon])
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks on Linux only")
def test_cases_scouted_in_forked_workers_give_what_one_process_gives():
    """A group of 40 (41 cases, 33 of them scouted together): the PLD accountant's ε, and the
    running accountant's after 20 more steps (extending what the workers composed), equal
    those of this threaded process, which scouts one case after the other."""
    import otbound
    from otbound.accounting.running import RunningAccountant

    run = subprocess.run([sys.executable, "-c", SCOUTED], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    setting, noise = otbound.Subsampling("poisson", rate=0.001, group=40), otbound.gaussian(5.0)
    running = RunningAccountant("pld")
    running.step(setting, noise, 100)
    first = running.guarantee(delta=1e-6)
    running.step(setting, noise, 20)
    assert run.stdout.strip() == str([first.epsilon, first.details["cases composed"],
                                      running.guarantee(delta=1e-6).epsilon])
