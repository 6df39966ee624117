"""The peers' published values (:mod:`peer_values`) as directional tests: never below a value that is
exact or a sound lower bound, never above a sound upper bound by more than the row's tolerance."""

import functools
import importlib
import math
import pkgutil

import pytest

import otbound
import peer_values
from peer_values import PeerValue

SOURCES = tuple(sorted(info.name for info in pkgutil.iter_modules(peer_values.__path__)))
ROWS: tuple[PeerValue, ...] = tuple(
    row for name in SOURCES for row in importlib.import_module(f"peer_values.{name}").ROWS)
COMPARED = tuple(row for row in ROWS if row.direction != "none")


def _mechanism(spec: tuple):
    family, *parameters = spec
    build = {"gaussian": otbound.gaussian, "laplace": otbound.laplace,
             "randomized_response": otbound.randomized_response}[family]
    return build(*parameters)


def _setting(spec: dict):
    spec = dict(spec)
    scheme = spec.pop("scheme")
    if scheme == "random-allocation":
        return otbound.RandomAllocation(spec.pop("steps"), spec.pop("selected", 1), **spec)
    if scheme == "balls-in-bins":
        return otbound.BallsInBins(spec.pop("batch_size"), spec.pop("dataset_size"), **spec)
    return otbound.Subsampling(scheme, **spec)


def _key(row: PeerValue) -> tuple:
    return (tuple(sorted(row.setting.items())), row.mechanism, row.steps, row.quantity, row.at,
            row.accountant, row.conversion)


@functools.lru_cache(maxsize=None)
def _ours(key: tuple) -> float:
    setting, mechanism, steps, quantity, at, accountant, conversion = key
    setting, mechanism = _setting(dict(setting)), _mechanism(mechanism)
    if quantity == "rdp":
        bound = otbound.rdp(setting, mechanism, "tight", [at])[0]
        total = (bound.value + bound.error) * steps
        return math.nextafter(total, math.inf) if total else 0.0   # 0 is exact: P = Q
    target = {"delta": {"epsilon": at}, "epsilon": {"delta": at}}[quantity]
    guarantee = otbound.account(setting, mechanism, steps, accountant=accountant,
                                conversion=conversion, lower_end=False, **target)
    return guarantee.delta if quantity == "delta" else guarantee.epsilon


def _row_id(row: PeerValue) -> str:
    return f"{row.source}:{row.where.rsplit('/', 1)[-1]}:{row.quantity}@{row.at:g}"


@pytest.mark.parametrize("row", COMPARED, ids=[_row_id(row) for row in COMPARED])
def test_peer_value(row: PeerValue):
    ours = _ours(_key(row))
    context = f"{row.source} {row.where}: ours {ours!r}, theirs {row.value!r} ({row.direction})"
    assert math.isfinite(ours), context
    if row.direction in ("exact", "lower"):
        assert ours >= row.value - row.peer_tolerance, "below the peer's value: " + context
    if row.direction in ("exact", "upper"):
        slack = row.tolerance * abs(row.value) + row.peer_tolerance
        assert ours <= row.value + slack, "looser than the peer's value: " + context


def test_the_peers_suite_is_several_hundred_rows_from_five_sources():
    assert len(COMPARED) >= 300
    assert len({row.source for row in COMPARED}) >= 5


@pytest.mark.parametrize("row", [row for row in ROWS if row.direction == "none"],
                         ids=lambda row: _row_id(row))
def test_a_row_not_compared_says_why_and_is_refused(row: PeerValue):
    """A row otbound cannot compare names its reason, and otbound refuses it cleanly (a scheme
    or relation it does not have) rather than print a number for another setting."""
    assert row.reason
    if row.extra.get("refused"):
        with pytest.raises(otbound.OtboundError):
            _ours(_key(row))
