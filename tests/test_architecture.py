"""The layout's rules (issue 10): layers import only downwards, the verifier stays out of
production code, no import cycles, and every public name means one thing across the package."""

import ast
import pathlib
from collections import Counter

import grimp
import pytest

import otbound

LAYERS = ["otbound.engine", "otbound.numerics", "otbound.accounting", "otbound.verify",
          "otbound.audit", "otbound.plots", "otbound.command_line", "otbound.cli",
          "otbound.integrations"]
"""Lowest first: a layer may import the layers before it, never those after it, except that
the verifier and the accountants are siblings that do not import each other. The bridges to
other libraries come last: no module imports them, so ``import otbound`` and the command line
never load torch or opacus."""
SIBLINGS = {("otbound.verify", "otbound.accounting"), ("otbound.accounting", "otbound.verify")}
VERIFIER_USERS = {"otbound", "otbound.cli"}
"""Besides the verifier itself and the audit (which confirms its witnesses with the verifier's
high-precision oracle): the CLI and the public facade (which loads it lazily)."""
CHECKERS = {"otbound.verify", "otbound.audit"}


def _layer(module: str) -> str | None:
    return next((layer for layer in LAYERS
                 if module == layer or module.startswith(layer + ".")), None)


def layer_violations(graph: grimp.ImportGraph) -> list[str]:
    """Every direct import that breaks a rule, as ``importer -> imported``."""
    violations = []
    for importer in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            source, target = _layer(importer), _layer(imported)
            upward = (source and target and source != target
                      and (LAYERS.index(target) > LAYERS.index(source)
                           or (source, target) in SIBLINGS))
            verifier = (target == "otbound.verify" and source not in CHECKERS
                        and importer not in VERIFIER_USERS)
            if upward or verifier:
                violations.append(f"{importer} -> {imported}")
    return violations


def import_cycles(graph: grimp.ImportGraph) -> list[tuple[str, str]]:
    """Pairs of modules that import each other, directly or through others."""
    return sorted({tuple(sorted((module, imported)))
                   for module in graph.modules
                   for imported in graph.find_modules_directly_imported_by(module)
                   if graph.chain_exists(importer=imported, imported=module)})


def build() -> grimp.ImportGraph:
    """Every import, those made for type checking only included (a cycle through them is a
    cycle of the design)."""
    return grimp.build_graph("otbound", exclude_type_checking_imports=False)


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return build()


def test_the_package_is_split_into_its_layers(graph):
    assert {_layer(m) for m in graph.modules} >= set(LAYERS)
    loose = sorted(m for m in graph.modules if _layer(m) is None)
    assert loose == ["otbound", "otbound.choices", "otbound.errors", "otbound.moved",
                     "otbound.optional", "otbound.parallel", "otbound.progress",
                     "otbound.surface"]


def test_layers_import_only_downwards(graph):
    assert layer_violations(graph) == []


def test_an_engine_module_importing_the_numerics_is_caught():
    graph = build()
    graph.add_import(importer="otbound.engine.bound", imported="otbound.numerics.pairs")
    assert layer_violations(graph) == ["otbound.engine.bound -> otbound.numerics.pairs"]


def test_a_module_importing_an_integration_is_caught():
    graph = build()
    graph.add_import(importer="otbound.cli", imported="otbound.integrations.opacus")
    assert layer_violations(graph) == ["otbound.cli -> otbound.integrations.opacus"]


def test_production_code_importing_the_verifier_is_caught():
    graph = build()
    graph.add_import(importer="otbound.numerics.renyi",
                     imported="otbound.verify.high_precision")
    assert layer_violations(graph) == [
        "otbound.numerics.renyi -> otbound.verify.high_precision"]


def test_there_are_no_import_cycles(graph):
    assert import_cycles(graph) == []


def test_a_cycle_through_a_type_checking_import_is_caught():
    graph = build()
    graph.add_import(importer="otbound.engine.bound", imported="otbound.engine.derivation")
    assert ("otbound.engine.bound", "otbound.engine.derivation") in import_cycles(graph)


def test_module_names_are_unique_across_the_package():
    root = pathlib.Path(otbound.__file__).parent
    counts = Counter(path.name for path in root.rglob("*.py") if path.name != "__init__.py")
    assert sorted(name for name, count in counts.items() if count > 1) == []


def _public_names(path: pathlib.Path) -> set[str]:
    names = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return {name for name in names if not name.startswith("_") and name != "main"}


def test_public_names_are_unique_across_the_package():
    root = pathlib.Path(otbound.__file__).parent
    counts = Counter(name for path in root.rglob("*.py") if path.name != "__init__.py"
                     for name in _public_names(path))
    assert sorted(name for name, count in counts.items() if count > 1) == []


def test_the_commands_are_flags_then_one_call_then_text():
    """cli.py runs the commands; the parser, the reading of flags and the text output live in
    otbound/command_line, and the library does the work (issue 25: at most 450 lines)."""
    cli = pathlib.Path(otbound.__file__).parent / "cli.py"
    assert len(cli.read_text().splitlines()) <= 450


MAX_MODULE_LINES = 600
"""The most lines a module may have (issue 46 item 6): one concept per module, split by concept
before it grows into a catalogue (../shared/STYLE.md, "What to avoid" 8)."""


def test_no_module_is_longer_than_the_limit():
    root = pathlib.Path(otbound.__file__).parent
    lengths = {str(path.relative_to(root)): len(path.read_text().splitlines())
               for path in sorted(root.rglob("*.py"))}
    assert {path: n for path, n in lengths.items() if n > MAX_MODULE_LINES} == {}


def test_which_divergence_is_one_quantity_enum():
    """``Quantity`` is the only spelling of "which number" (issue 25): no function takes it as a
    flag (``renyi``), every ``quantity`` parameter is a ``Quantity``, and no other class has
    its name."""
    root = pathlib.Path(otbound.__file__).parent
    spelt_otherwise, classes = [], []
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                spelt_otherwise += [
                    f"{path.name}:{node.name}({a.arg})"
                    for a in node.args.args + node.args.kwonlyargs
                    if a.arg == "renyi" or (a.arg == "quantity" and (
                        a.annotation is None or ast.unparse(a.annotation) != "Quantity"))]
            elif isinstance(node, ast.ClassDef) and node.name == "Quantity":
                classes.append(path.name)
    assert spelt_otherwise == [] and classes == ["choices.py"]
