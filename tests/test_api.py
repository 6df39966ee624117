"""The public API (issue 10): everything from ``import otbound``, choices checked by value, and
units that cannot be confused."""

import ast
import importlib
import pathlib
import pkgutil
import re

import pytest
from hand_written import poisson_problem

import otbound

SETTING = otbound.Subsampling("poisson", rate=0.01)


def test_every_public_name_resolves():
    missing = [name for name in otbound.__all__ if getattr(otbound, name, None) is None]
    assert missing == []


def test_an_accountant_named_by_string_is_the_one_that_runs():
    step = otbound.subsampled_step(SETTING, otbound.gaussian(1.0), 10)
    by_name = otbound.compose([step], "pld", delta=1e-6)
    by_member = otbound.compose([step], otbound.Accountant.PLD, delta=1e-6)
    assert by_name.accountant is otbound.Accountant.PLD
    assert by_name.epsilon == by_member.epsilon
    assert by_name.epsilon != otbound.compose([step], "rdp", delta=1e-6).epsilon


@pytest.mark.parametrize("call, fragments", [
    (lambda step: otbound.compose([step], "moments", delta=1e-6),
     ["accountant must be one of", "'best', 'rdp', 'pld'", "'moments'"]),
    (lambda step: otbound.compose([step], conversion="exact", delta=1e-6),
     ["conversion must be one of", "'exact'"]),
    (lambda step: otbound.compose(step, delta=1e-6), ["steps must be a non-empty list of Step"]),
    (lambda step: otbound.rdp(SETTING, otbound.gaussian(1.0), "fast", [2]),
     ["method must be one of", "'tight', 'agnostic', 'posthoc'", "'fast'"]),
    (lambda step: otbound.adp(SETTING, "gaussian", "tight", [1]),
     ["mechanism must be a Mechanism", "str"]),
    (lambda step: otbound.Subsampling("shuffle", rate=0.1), ["scheme must be one of", "'shuffle'"]),
])
def test_misuse_names_the_argument_the_value_and_the_choices(call, fragments):
    step = otbound.subsampled_step(SETTING, otbound.gaussian(1.0), 10)
    with pytest.raises(otbound.InvalidSpecification) as raised:
        call(step)
    assert all(fragment in str(raised.value) for fragment in fragments), str(raised.value)


def test_a_probability_cannot_pass_for_a_log_probability():
    problem = poisson_problem(0.1, 0, 1)
    with pytest.raises(otbound.InvalidSpecification, match="log_probability must be a logarithm"):
        otbound.numerics.Term(0.5, problem)
    with pytest.raises(otbound.InvalidSpecification, match="probability must be in"):
        otbound.numerics.Term.of_probability(1.5, problem)
    term = otbound.numerics.Term
    assert term.of_probability(1.0, problem) == term.of_log_probability(0.0, problem)


def test_terms_must_be_terms_not_tuples():
    from otbound.numerics.one_step import tight_branches

    with pytest.raises(otbound.InvalidSpecification, match="terms must be Term objects"):
        tight_branches([(1.0, poisson_problem(0.1, 0, 1))], otbound.gaussian(1.0))


def test_a_step_becomes_a_dp_accounting_pld_that_dominates_the_step():
    step = otbound.subsampled_step(SETTING, otbound.gaussian(2.0), 1)
    pld = otbound.step_pld(step, discretisation=1e-3)
    ours = otbound.adp(SETTING, otbound.gaussian(2.0), "tight", [0.05])[0].value
    assert ours <= pld.get_delta_for_epsilon(0.05) <= ours * 1.05


# --- one call from a setting to a guarantee ---------------------------------------------------

def test_account_is_the_composition_of_the_settings_step():
    mechanism = otbound.gaussian(1.0)
    direct = otbound.account(SETTING, mechanism, 50, accountant="rdp", delta=1e-6)
    step = otbound.subsampled_step(SETTING, mechanism, 50)
    assert direct.epsilon == otbound.compose([step], "rdp", delta=1e-6).epsilon
    assert direct.details["method"] == "tight"


def test_account_takes_truncated_poisson_as_the_bundled_derivation_with_every_method():
    truncated = otbound.TruncatedPoissonSetting(0.004, 260, 60000)
    mechanism = otbound.gaussian(1.0)
    setting = truncated.derived_setting()
    assert setting.derived.name == "002-thm-3.1"
    for method in ("tight", "agnostic"):
        direct = otbound.account(truncated, mechanism, 20, method=method, accountant="rdp",
                                 delta=1e-6)
        same = otbound.account(setting, mechanism, 20, method=method, accountant="rdp",
                               delta=1e-6)
        assert direct.epsilon == same.epsilon and direct.details == same.details
    refusals = []
    for route in (truncated, setting):   # no K = 1 bound to apply group privacy to
        with pytest.raises(otbound.UnsupportedOperation, match="method='posthoc'") as refused:
            otbound.account(route, mechanism, 20, method="posthoc", delta=1e-6)
        refusals.append(str(refused.value))
    assert refusals[0] == refusals[1]
    step = otbound.subsampled_step(setting, mechanism, 20)
    tight = otbound.account(truncated, mechanism, 20, accountant="rdp", delta=1e-6)
    assert tight.epsilon == otbound.compose([step], "rdp", delta=1e-6).epsilon


def test_calibrate_returns_a_value_that_meets_the_target_next_to_one_that_does_not():
    options = {"target_epsilon": 1.0, "delta": 1e-6, "accountant": "rdp",
               "conversion": "balle2020"}
    found = otbound.calibrate(SETTING, otbound.gaussian(5.0), 100, solve_for="sigma", **options)
    assert found.guarantee.epsilon <= 1.0
    assert found.unsafe < found.value <= found.unsafe * (1 + 1e-4)
    above = otbound.account(SETTING, otbound.gaussian(found.unsafe), 100, accountant="rdp",
                            conversion="balle2020", delta=1e-6)
    assert above.epsilon > 1.0
    steps = otbound.calibrate(SETTING, otbound.gaussian(2.0), None, solve_for="steps", **options)
    assert steps.guarantee.steps == steps.value and steps.unsafe == steps.value + 1


@pytest.mark.parametrize("kwargs, fragment", [
    ({"solve_for": "scale"}, "solve_for='scale' needs the laplace mechanism, got gaussian"),
    ({"solve_for": "rate", "setting": otbound.Subsampling("wor", batch_size=1, dataset_size=9)},
     "solve_for='rate' needs Poisson sampling given by its rate"),
    ({"solve_for": "sigma", "steps": None}, "steps is needed unless solve_for='steps'"),
    ({"solve_for": "noise"}, "solve_for must be one of"),
    ({"solve_for": "sigma", "epsilon": 1.0}, "give target_epsilon with delta, or target_delta"),
])
def test_calibrate_misuse_names_the_argument(kwargs, fragment):
    arguments = {"setting": SETTING, "mechanism": otbound.gaussian(1.0), "steps": 10,
                 "target_epsilon": 1.0, "delta": 1e-6} | kwargs
    with pytest.raises(otbound.InvalidSpecification) as raised:
        otbound.calibrate(**arguments)
    assert fragment in str(raised.value)


SURFACES = ("otbound", "otbound.engine", "otbound.numerics", "otbound.accounting",
            "otbound.verify", "otbound.audit")
"""The documented import paths (docs/api.md, docs/building_blocks.md), besides the modules the
building blocks document whole."""
WHOLE_MODULES = ("otbound.engine.symbols", "otbound.engine.truncated_latent")
ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_the_top_level_is_what_users_call_each_name_with_an_example():
    """At most 40 names, each in a doctested line of docs/api.md."""
    examples = "\n".join(line for line in (ROOT / "docs" / "api.md").read_text().splitlines()
                         if line.lstrip().startswith((">>>", "...")))
    assert len(otbound.__all__) <= 40
    assert [name for name in otbound.__all__
            if not re.search(rf"\b{name}\b", examples)] == []


@pytest.mark.parametrize("package", SURFACES[1:])
def test_every_name_of_a_surface_loads_and_none_is_a_module_of_it(package):
    """A name equal to a submodule's would be shadowed by that module once it is imported."""
    surface = importlib.import_module(package)
    modules = {info.name for info in pkgutil.iter_modules(surface.__path__)}
    assert [name for name in surface.__all__ if getattr(surface, name, None) is None] == []
    assert sorted(set(surface.__all__) & modules) == []


def documented_paths() -> dict[str, set[str]]:
    paths = {package: set(importlib.import_module(package).__all__) for package in SURFACES}
    return paths | {module: set(importlib.import_module(module).__all__)
                    for module in WHOLE_MODULES}


def undocumented_imports(path: pathlib.Path, documented: dict[str, set[str]]) -> list[str]:
    """``module.name`` of each ``from otbound… import name`` that is not a documented path."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("otbound"):
            found += [f"{node.module}.{alias.name}" for alias in node.names
                      if alias.name not in documented.get(node.module, set())]
        elif isinstance(node, ast.Import):
            found += [alias.name for alias in node.names
                      if alias.name.startswith("otbound") and alias.name not in documented]
    return found


def test_bundled_derivation_and_audit_files_import_only_documented_paths():
    documented = documented_paths()
    files = [*(ROOT / "derivations").glob("*.py"), *(ROOT / "audits").glob("*.py"),
             *(ROOT / "docs" / "tutorial").glob("*.py"),
             *(ROOT / "tests" / "audit_mutants").glob("*.py")]
    assert len(files) > 50
    assert {str(path.relative_to(ROOT)): found for path in files
            if (found := undocumented_imports(path, documented))} == {}


def test_a_derivation_file_written_against_the_old_top_level_still_loads(tmp_path):
    """001 Thm. 4.1 as written before the engine's names left ``otbound``: it loads, with a
    warning naming the new surface, and derives the same bound."""
    from otbound.engine.bundled import SOURCE_TREE, load_file

    source = (SOURCE_TREE / "thm_4_1.py").read_text()
    old = tmp_path / "thm_4_1.py"
    old.write_text(source.replace("from otbound.engine import (", "from otbound import ("))
    assert old.read_text() != source
    with pytest.warns(DeprecationWarning, match="import it from otbound.engine"):
        loaded = load_file(old)
    current = load_file(SOURCE_TREE / "thm_4_1.py")
    assert loaded.name == current.name
    assert ([(v.label, repr(v.cases)) for v in loaded.variants]
            == [(v.label, repr(v.cases)) for v in current.variants])


def test_a_moved_name_warns_and_is_the_same_object():
    import otbound.engine

    with pytest.warns(DeprecationWarning, match="otbound.Poisson has moved: import it from "
                                                "otbound.engine"):
        moved = otbound.Poisson
    assert moved is otbound.engine.Poisson
    assert "Poisson" not in otbound.__all__ and "Poisson" not in dir(otbound)
    with pytest.raises(AttributeError, match="no attribute 'Poison'"):
        otbound.Poison  # noqa: B018 (the lookup itself is what must raise)
