"""The table of bundled bounds (``otbound.numerics.bound_table``): exactly what the engine derives,
and what lets a process evaluate the built-in settings without sympy.

The closed forms become expression trees (``closed_forms``) whose logarithms are evaluated
without sympy; they are checked here against sympy's exact values.
"""

import subprocess
import sys
from fractions import Fraction

import mpmath as mp
import pytest
import sympy as sp

from otbound.numerics import bound_table, derived, group_bounds
from otbound.numerics.closed_forms import LogValues, from_sympy, symbols_of, to_sympy
from otbound.numerics.settings import Subsampling

r, q, N = sp.symbols("r q N", positive=True)


def test_the_table_is_what_the_engine_derives_now():
    """Regenerate with ``python -m otbound.numerics.bound_table`` after changing a derivation."""
    assert bound_table.DATA.read_text(encoding="utf-8") == bound_table.source()


@pytest.mark.parametrize("name, structural", [("wor-group-substitution", {"K": 2}),
                                              ("001-prop-E.5", {"K": 8})])
def test_a_bound_read_from_the_table_equals_the_derived_one(name, structural):
    read = derived.from_table(name, structural)
    assert read is not None and read.bound is None
    engine = derived.derived_bundled(name, **structural)
    assert read == engine and read.symbols == engine.symbols
    assert derived.bundled(name, **structural) == engine


def test_settings_outside_the_table_are_derived():
    assert derived.from_table("wor-group-substitution", {"K": 9}) is None
    assert derived.from_table("wor-group-substitution", {"K": "1"}) is None
    nine = Subsampling("wor", batch_size=3, dataset_size=20, substitutions=9)
    assert len(nine.cases()) == 1


SHAPES = [(plus, minus) for plus in range(group_bounds.ENGINE_CHECKED + 1)
          for minus in range(group_bounds.ENGINE_CHECKED + 1)
          if 1 <= plus + minus <= group_bounds.ENGINE_CHECKED]


@pytest.mark.parametrize("plus, minus", SHAPES)
def test_the_written_down_poisson_bound_is_what_the_engine_derives(plus, minus):
    """003 Thm. 3.7 written down for any (K₊, K₋) (``group_bounds``): the engine's components,
    constraints and weights (to 35 digits, at three rates), its labels and its proof."""
    written = group_bounds.insert_remove_bound(plus, minus)
    engine = derived.derived_bundled("003-thm-3.7", K_plus=plus, K_minus=minus)
    assert derived.bundled("003-thm-3.7", K_plus=plus, K_minus=minus) is written
    described = ("name", "label", "loose", "proof", "batch_relation", "shapes", "scheme_kind",
                 "symbols")
    assert [getattr(written, k) for k in described] == [getattr(engine, k) for k in described]
    ((mine, theirs),) = [(case.terms, other.terms) for case, other in zip(written.cases,
                                                                           engine.cases)]
    assert len(mine) == len(theirs) == 1 and mine[0][0] == theirs[0][0] == ("number", 1, 1)
    ours, problem = mine[0][1], theirs[0][1]
    assert ours.constraints == problem.constraints
    for rate in (Fraction(1, 3), Fraction(1, 10 ** 6), Fraction(0)):
        with mp.workdps(45):
            a, b = LogValues({"r": rate}), LogValues({"r": rate})
            for (label, weight), (other, expected) in zip(ours.left + ours.right,
                                                          problem.left + problem.right):
                assert label == other
                x, y = a.log(weight), b.log(expected)
                assert x == y or abs(x - y) < mp.mpf(10) ** -35


def test_a_poisson_bound_beyond_the_engine_checked_sizes_says_what_it_rests_on():
    assert group_bounds.insert_remove_bound(3, 5).proof == "every N (type level)"
    big = derived.bundled("003-thm-3.7", K_plus=200, K_minus=56)
    assert "003 Thm. 3.7" in big.proof and big.shapes == ((200, 56),)
    (case,) = big.cases
    ((_, problem),) = case.terms
    assert len(problem.left) == 57 and len(problem.right) == 201
    assert problem.constraints.parameters == (200, 56, 1.0, 1.0)


@pytest.mark.parametrize("plus, minus", [(12, 0), (7, 7), (3, 13)])
def test_the_written_down_poisson_bound_holds_beyond_the_checked_sizes(plus, minus):
    """The engine still derives the same form a little past ``ENGINE_CHECKED``."""
    written = group_bounds.insert_remove_bound(plus, minus)
    engine = derived.derived_bundled("003-thm-3.7", K_plus=plus, K_minus=minus)
    ((_, ours),), ((_, theirs),) = written.cases[0].terms, engine.cases[0].terms
    assert ours.constraints == theirs.constraints
    assert [label for label, _ in ours.left + ours.right] == \
        [label for label, _ in theirs.left + theirs.right]
    values = {"r": Fraction(1, 7)}
    assert [LogValues(values).log(w) for _, w in ours.left + ours.right] == pytest.approx(
        [LogValues(values).log(w) for _, w in theirs.left + theirs.right], abs=1e-25)


def test_a_built_in_setting_is_evaluated_without_sympy_or_scipy():
    code = ("import sys\n"
            "from otbound.numerics.settings import Subsampling\n"
            "from otbound.numerics.mechanisms import gaussian\n"
            "from otbound.numerics.one_step import rdp\n"
            "for s in (Subsampling('poisson', rate=0.01, group=3),\n"
            "          Subsampling('wor', batch_size=10, dataset_size=100, substitutions=2)):\n"
            "    rdp(s, gaussian(1.0), 'agnostic', [2, 8])\n"
            "rdp(Subsampling('poisson', rate=0.01), gaussian(1.0), 'tight', [2, 8])\n"
            "print(sorted(m for m in ('sympy', 'scipy') if m in sys.modules))\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert run.stdout.strip() == "[]"


EXPRESSIONS = [1 - r, r ** 3 * (1 - r) ** 5, sp.binomial(7, 3) * r ** 3 * (1 - r) ** 4,
               sp.binomial(N - 2, q - 1) / sp.binomial(N, q), 2 * r - r ** 2,
               (1 - r) ** sp.Rational(1, 2), sp.Rational(3, 7) - r]


@pytest.mark.parametrize("expr", EXPRESSIONS, ids=str)
def test_a_tree_evaluates_to_sympys_exact_logarithm(expr):
    values = {"r": Fraction(1, 3), "q": Fraction(12), "N": Fraction(50)}
    tree = from_sympy(expr)
    assert symbols_of(tree) == {str(s) for s in expr.free_symbols}
    assert sp.simplify(to_sympy(tree).subs({sp.Symbol(k): v for k, v in values.items()})
                       - expr.subs({r: values["r"], q: values["q"], N: values["N"]})) == 0
    exact = expr.subs({r: sp.Rational(1, 3), q: 12, N: 50})
    with mp.workdps(40):
        found = LogValues(values).log(tree)
        assert abs(found - mp.log(mp.mpf(sp.N(exact, 60)))) < mp.mpf(10) ** -35


def test_a_tree_without_a_value_says_so():
    values = {"r": Fraction(1, 2)}
    assert LogValues(values).log(from_sympy(r - 1)) is None           # negative
    assert LogValues(values).log(from_sympy(1 - 2 * r)) == -mp.inf    # zero
    assert LogValues(values).log(from_sympy(sp.sin(r))) is None       # not a closed form here
    assert LogValues({}).log(from_sympy(r)) is None                   # no value
