"""The layout's rules (issue 10): layers import only downwards, the verifier stays out of
production code, no import cycles, and every public name means one thing across the package."""

import ast
import functools
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


DP_ACCOUNTING_MODULES = {"dp_accounting", "dp_accounting.dp_event",
                         "dp_accounting.privacy_accountant", "dp_accounting.pld",
                         "dp_accounting.pld.pld_pmf", "dp_accounting.pld.privacy_loss_distribution"}
"""The dp_accounting modules otbound may import (issue 46 item 7): its events, its accountant
interface and its PLD classes, whose public constructors hand otbound's PLDs over. Not
``pld.common`` (helpers of its own implementation), nor any name with a leading underscore."""


@functools.cache
def _dp_accounting_private_names() -> frozenset[str]:
    """Every name dp_accounting's source spells with one leading underscore: its private
    attributes (``_pmf_remove``, ``_probs``, ``_lower_loss``, …), functions, classes and
    constants, read from the installed package."""
    import dp_accounting

    names = set()
    for path in pathlib.Path(dp_accounting.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            name = (node.attr if isinstance(node, ast.Attribute) else
                    node.id if isinstance(node, ast.Name) else
                    node.name if isinstance(node, (ast.FunctionDef, ast.ClassDef)) else "")
            if name.startswith("_") and not name.startswith("__"):
                names.add(name)
    return frozenset(names)


@functools.cache
def _dp_accounting_modules() -> frozenset[str]:
    """The names of dp_accounting's modules and packages, from the installed package."""
    import dp_accounting

    root = pathlib.Path(dp_accounting.__file__).parent
    return frozenset(".".join(("dp_accounting",) + path.relative_to(root).with_suffix("").parts)
                     .removesuffix(".__init__") for path in root.rglob("*.py"))


class _PrivateUses(ast.NodeVisitor):
    """The places one module reaches past dp_accounting's public surface."""

    def __init__(self, private: frozenset[str], modules: frozenset[str]) -> None:
        self.private, self.modules = private, modules
        self.bound: set[str] = set()     # names the module binds to dp_accounting's objects
        self.classes: list[bool] = []    # for each enclosing class: does it derive from them?
        self.found: list[tuple[int, str]] = []

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name.split(".")[0] == "dp_accounting":
                self.bound.add((alias.asname or alias.name).split(".")[0])
                self._module(node, alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if module.split(".")[0] != "dp_accounting":
            return
        for alias in node.names:
            self.bound.add(alias.asname or alias.name)
            if alias.name.startswith("_"):
                self.found.append((node.lineno, f"imports dp_accounting's private {alias.name}"))
            full = f"{module}.{alias.name}"
            self._module(node, full if full in self.modules else module)

    def _module(self, node: ast.stmt, module: str) -> None:
        if module not in DP_ACCOUNTING_MODULES:
            self.found.append((node.lineno, f"imports {module}, not one of dp_accounting's "
                                            "modules otbound may use"))

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.classes.append(any(_root_name(base) in self.bound for base in node.bases))
        self.generic_visit(node)
        self.classes.pop()

    def visit_Attribute(self, node: ast.Attribute) -> None:
        own = (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
               and self.classes and not self.classes[-1])
        if node.attr in self.private and not own:
            self.found.append((node.lineno, f"reads .{node.attr}, a private name of "
                                            "dp_accounting's"))
        self.generic_visit(node)


def _root_name(node: ast.expr) -> str:
    while isinstance(node, (ast.Attribute, ast.Call, ast.Subscript)):
        node = node.value if not isinstance(node, ast.Call) else node.func
    return node.id if isinstance(node, ast.Name) else ""


def private_dp_accounting_uses(root: pathlib.Path) -> list[str]:
    """``file:line: what`` for every place the code under ``root`` reaches past dp_accounting's
    public surface: an import of a module outside :data:`DP_ACCOUNTING_MODULES` or of a name
    with a leading underscore, or an attribute ``._x`` where ``_x`` is one of dp_accounting's
    private names (:func:`_dp_accounting_private_names`), on anything but ``self`` or ``cls``
    of a class that derives from nothing of dp_accounting's (that is the class's own)."""
    private, modules = _dp_accounting_private_names(), _dp_accounting_modules()
    found = []
    for path in sorted(root.rglob("*.py")):
        uses = _PrivateUses(private, modules)
        uses.visit(ast.parse(path.read_text()))
        found += [f"{path.relative_to(root)}:{line}: {what}" for line, what in uses.found]
    return found


def test_otbound_uses_only_dp_accountings_public_surface():
    """No private field, function or module of dp_accounting is read (issue 46 item 7): they
    may change in any release, and the pin is a range."""
    assert private_dp_accounting_uses(pathlib.Path(otbound.__file__).parent) == []


def test_a_private_use_of_dp_accounting_is_caught(tmp_path):
    (tmp_path / "reads.py").write_text(
        "from dp_accounting.pld import common, pld_pmf\n"
        "from dp_accounting.rdp.rdp_privacy_accountant import _log_add\n"
        "import dp_accounting.pld.privacy_loss_distribution\n"
        "def probabilities(pld):\n"
        "    return pld._pmf_remove.to_dense_pmf()._probs\n"
        "class Mine:\n"
        "    def __init__(self):\n"
        "        self._probs = 1\n"
        "class Theirs(pld_pmf.DensePLDPmf):\n"
        "    def lowest(self):\n"
        "        return self._lower_loss\n")
    assert private_dp_accounting_uses(tmp_path) == [
        "reads.py:1: imports dp_accounting.pld.common, not one of dp_accounting's modules "
        "otbound may use",
        "reads.py:2: imports dp_accounting's private _log_add",
        "reads.py:2: imports dp_accounting.rdp.rdp_privacy_accountant, not one of "
        "dp_accounting's modules otbound may use",
        "reads.py:5: reads ._probs, a private name of dp_accounting's",
        "reads.py:5: reads ._pmf_remove, a private name of dp_accounting's",
        "reads.py:11: reads ._lower_loss, a private name of dp_accounting's"]
