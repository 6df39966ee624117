"""Noise families are objects behind one protocol (otbound.numerics.noise): no code outside
the family modules asks which family it holds, and a family added through the protocol alone
runs through every numeric path."""

from __future__ import annotations

import ast
import math
import pathlib

import mpmath as mp
import numpy as np
import pytest
from scipy.special import log_ndtr

import otbound
from otbound.errors import OtboundError
from otbound.numerics.families import FAMILIES, GAUSSIAN, family_named
from otbound.numerics.mechanisms import AdditiveNoise, gaussian
from otbound.numerics.density_family import DensityFamily
from otbound.numerics.noise import Shape

PACKAGE = pathlib.Path(otbound.__file__).parent
FAMILY_MODULES = {PACKAGE / "numerics" / "families", PACKAGE / "verify" / "noise_references.py",
                  PACKAGE / "verify" / "noise_families"}
NAMES = set(FAMILIES)


def _is_family(node: ast.AST) -> bool:
    """Whether an operand of a comparison is a family or its name: ``x.family``,
    ``x.family.name``, ``family``, ``GAUSSIAN``/``LAPLACE`` or a family name as a string."""
    if isinstance(node, ast.Attribute):
        if node.attr == "name" and _is_family(node.value):
            return True
        return node.attr in ("family", "GAUSSIAN", "LAPLACE")
    if isinstance(node, ast.Name):
        return node.id in ("family", "GAUSSIAN", "LAPLACE")
    return isinstance(node, ast.Constant) and node.value in NAMES


def family_branches(source: str) -> list[int]:
    """Lines that compare a family, or key a dictionary by a family's name."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare) and any(map(_is_family, [node.left, *node.comparators])):
            lines.append(node.lineno)
        elif isinstance(node, ast.Dict) and any(
                isinstance(key, ast.Constant) and key.value in NAMES for key in node.keys):
            lines.append(node.lineno)
    return lines


def _outside_family_modules() -> list[pathlib.Path]:
    return [path for path in sorted(PACKAGE.rglob("*.py"))
            if not any(path == module or module in path.parents for module in FAMILY_MODULES)]


def test_no_code_outside_the_family_modules_branches_on_the_family():
    found = {str(path.relative_to(PACKAGE)): family_branches(path.read_text())
             for path in _outside_family_modules()}
    assert {path: lines for path, lines in found.items() if lines} == {}


@pytest.mark.parametrize("source", [
    "if pair.family is GAUSSIAN:\n    pass",
    "x = 1 if mechanism.family == LAPLACE else 2",
    "ok = mechanism.family.name != 'laplace'",
    "ok = args.mechanism == 'gaussian'",
    "FLAGS = {'gaussian': 'sigma'}",
])
def test_the_branch_count_sees_each_spelling_of_a_branch(source):
    assert family_branches(source) == [1]


def test_asking_a_family_for_a_capability_is_not_a_branch():
    assert family_branches("if pair.family.shape is Shape.QUADRATIC and family.three_point:\n"
                           "    pass") == []


def test_every_family_is_a_command_line_choice_with_its_parameter_flag():
    from otbound.command_line.arguments import build_parser

    parser = build_parser()
    account = parser._subparsers._group_actions[0].choices["account"]
    options = {action.dest: action for action in account._actions}
    assert set(FAMILIES) <= set(options["mechanism"].choices)
    assert all(family.parameter in options for family in FAMILIES.values())


def test_an_unknown_family_name_is_refused_with_the_choices():
    with pytest.raises(OtboundError, match="mechanism must be one of .*gaussian, laplace"):
        family_named("cauchy")


class SecondGaussian(DensityFamily):
    """The Gaussian written again from scratch, under another name and with none of the
    Gaussian's theorems declared: a family added through the protocol alone."""

    name = "second-gaussian"
    parameter = "sd"
    shape = Shape.QUADRATIC
    worst_case_source = "the Gaussian's, restated (test family)"

    def log_density(self, z, scale):
        return -(z * z) / (2 * scale * scale) - math.log(scale) - 0.5 * math.log(2 * math.pi)

    def relative_log(self, means, z, scale):
        return means[:, None] * (z[None, :] - means[:, None] / 2) / (scale * scale)

    def relative_log_slope(self, means, z, scale):
        return means[:, None] / (scale * scale) + 0 * z[None, :]

    def log_survival(self, x):
        return log_ndtr(-x)

    def reach(self, log_budget):
        return math.sqrt(2 * log_budget)

    def log_sup_ratio(self, p_means, p_log_weights, q_means, q_log_weights, scale):
        if p_means.max() > q_means.max():
            return math.inf
        p = np.logaddexp.reduce(p_log_weights[p_means == p_means.max()])
        return float(p - np.logaddexp.reduce(q_log_weights[q_means == q_means.max()]))

    def standard_sample(self, rng, size):
        return rng.normal(size=size)

    def shift_log_psi(self, gap, alphas):
        value = alphas * (alphas - 1) * gap * gap / 2
        return value, 1e-15 * value

    def survival_mp(self, x):
        return mp.ncdf(-x)

    def norm_ball(self, scale):
        from flint import arb
        return 1 / (scale * (2 * arb.pi()).sqrt())

    def kernel_ball(self, offset, scale, sign=None):
        return (-(offset / scale) ** 2 / 2).exp()

    def survival_ball(self, distance, scale):
        from flint import arb
        return (distance / (scale * arb(2).sqrt())).erfc() / 2

    def log_kernel_float(self, distance, sign):
        return -distance * distance / 2

    def linear_part_ball(self, mean, scale, sign):
        from flint import arb
        return mean / (scale * scale), (-(arb(mean) ** 2) / (2 * scale * scale)
                                        - (scale * (2 * arb.pi()).sqrt()).log())

    def log_kernel_ratio_ball(self, z, mean, top, scale, sign, top_sign):
        return (mean - top) * (2 * z - mean - top) / (2 * scale * scale)

    def shape_part_ball(self, z, slope, intercept, scale):
        s2 = scale * scale
        return -(z - slope * s2) ** 2 / (2 * s2) + intercept + slope * slope * s2 / 2


SECOND = SecondGaussian()


def _same(ours, theirs, relative=1e-9):
    ours = np.array([b.value for b in ours])
    theirs = np.array([b.value for b in theirs])
    return np.allclose(ours, theirs, rtol=relative, atol=1e-300)


@pytest.mark.parametrize("setting", [
    otbound.Subsampling("poisson", rate=0.1),
    otbound.Subsampling("poisson", rate=0.05, group=2),
])
def test_a_family_added_through_the_protocol_alone_gives_the_gaussian_numbers(setting):
    ours, theirs = AdditiveNoise(1.5, 1.0, SECOND), gaussian(1.5)
    alphas, epsilons = [2, 3.5, 16], [0.1, 1.0]
    for method in ("tight", "agnostic"):
        assert _same(otbound.rdp(setting, ours, method, alphas),
                     otbound.rdp(setting, theirs, method, alphas))
        assert _same(otbound.adp(setting, ours, method, epsilons),
                     otbound.adp(setting, theirs, method, epsilons))
    assert _same(otbound.rdp(setting, ours, "tight", [3], certified=True),
                 otbound.rdp(setting, theirs, "tight", [3], certified=True), 1e-12)
    assert _same(otbound.adp(setting, ours, "tight", [0.5], certified=True),
                 otbound.adp(setting, theirs, "tight", [0.5], certified=True), 1e-12)


def test_the_added_family_keeps_only_the_theorems_it_declares():
    """Truncated Poisson under zero-out: the truncated branch is a pattern of two chains of
    unequal lengths (2 and 1), whose worst case (002 Thm. 3.3) the Gaussian declares
    (``unequal_chains``) and the test family does not; its branch is relaxed further (to equal
    stretches), so the same noise gets a larger, still sound, ε."""
    setting = otbound.TruncatedPoissonSetting(0.01, 20, 1000, "zero-out")
    ours = otbound.account(setting, gaussian(2.0), 10, delta=1e-5, accountant="rdp")
    theirs = otbound.account(setting, AdditiveNoise(2.0, 1.0, SECOND), 10, delta=1e-5,
                             accountant="rdp")
    assert theirs.epsilon > ours.epsilon * (1 + 1e-4)


def test_the_verifier_refuses_a_family_it_has_no_independent_implementation_of():
    from otbound.verify.noise_references import reference

    assert reference(GAUSSIAN) is reference("gaussian")
    with pytest.raises(OtboundError, match="second-gaussian"):
        reference(SECOND)


DENSITIES = sorted(name for name, family in FAMILIES.items()
                   if isinstance(family, DensityFamily))
"""The families with a density on the line (a family on another support has its own tests)."""


@pytest.mark.parametrize("name", DENSITIES)
def test_each_family_agrees_with_the_verifiers_own_implementation(name):
    """The production family and the verifier's independent one (written apart) give the same
    density and tails: a slip in either shows here."""
    from otbound.verify.noise_references import density_reference

    family, independent = FAMILIES[name], density_reference(name)
    z = np.array([-7.5, -1.0, -0.2, 0.0, 0.3, 2.0, 9.0])
    for scale in (0.4, 1.0, 3.0):
        assert np.allclose(family.log_density(z, scale), independent.log_density(z, scale),
                           rtol=1e-14, atol=0)
    for x in (-3.0, -0.5, 0.0, 0.7, 6.0):
        with mp.workdps(30):
            exact = independent.precise_survival(mp.mpf(x))
            assert abs(family.survival_mp(mp.mpf(x)) / exact - 1) < mp.mpf(10) ** -25
        assert family.log_survival(np.array([x]))[0] == pytest.approx(float(mp.log(exact)),
                                                                      rel=1e-13, abs=1e-15)
    draws = family.sample(np.random.default_rng(7), 200_000, 1.0)
    assert abs(draws.mean()) < 0.02 and abs(np.mean(draws > 1.0) - float(exact_tail(name))) < 0.01


def exact_tail(name: str):
    """``P(D > 1)`` of the standardised family, from the verifier's mpmath survival function."""
    from otbound.verify.noise_references import density_reference

    return density_reference(name).precise_survival(mp.mpf(1))
