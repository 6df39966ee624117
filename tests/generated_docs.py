"""Documentation generated from the code, never typed: the README's table of bundled derivations
(between marker comments), ``docs/building_blocks.md``, the reference of the sub-packages'
surfaces, and the surfaces' type stubs (``__init__.pyi``). ``tests/test_generated_docs.py`` fails
when a file on disk differs from what this module produces now (a derivation or an export added
without regenerating).

    python tests/generated_docs.py      # rewrite every generated region and page
"""

from __future__ import annotations

import ast
import enum
import importlib
import inspect
import re
import sys
import textwrap
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from otbound.engine.conditionals import Case
    from otbound.engine.derivation import Derivation

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
BUILDING_BLOCKS = ROOT / "docs" / "building_blocks.md"
COMMAND = "python tests/generated_docs.py"
START = f"<!-- generated: derivations table ({COMMAND}) -->"
END = "<!-- end generated -->"
NO_DOCSTRING = "*(no docstring)*"
WIDTH = 96
"""Signatures longer than this are written one parameter a line."""

# --- the README's table of bundled derivations ------------------------------------------------

HEADER = ("| name | source | setting | structural parameters | validity | d_Y-compatible "
          "| published statement |\n|---|---|---|---|---|---|---|")
EVERY_N = "every N"


def derivations_table() -> str:
    """The table of ``bundled_derivations()``, one row each, sorted by name."""
    from otbound.engine.bundled import bundled_derivations

    rows = [derivation_row(derivation) for _, derivation in bundled_derivations()]
    return "\n".join([HEADER, *rows])


def derivation_row(derivation: Derivation) -> str:
    """One row: what the derivation declares, and what the type-level analysis proves of its
    default variants (an epoch-level derivation is checked on instances only)."""
    from otbound.engine.epoch_derivation import EpochDerivation

    if isinstance(derivation, EpochDerivation):
        cells = (f"`{derivation.name}`", derivation.source, derivation.title,
                 parameters_cell(derivation), "instances", "instances",
                 "compared" if derivation.published else "none (otbound's own)")
    else:
        validity, compatibility = checked_scope(derivation)
        cells = (f"`{derivation.name}`", derivation.source, setting_cell(derivation),
                 parameters_cell(derivation), validity, compatibility,
                 published_cell(derivation))
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"


def setting_cell(derivation: Derivation) -> str:
    """The title, and which dataset ``N`` is the size of where it is not ``x``."""
    from otbound.engine.conditionals import SizeReference

    if derivation.size_reference is SizeReference.X:
        return derivation.title
    return f"{derivation.title} (N = {derivation.size_reference.value})"


def parameters_cell(derivation: Derivation) -> str:
    """Each structural parameter with its range (``K 1–32: group size``), or ``—``."""
    if not derivation.parameters:
        return "—"
    return "; ".join(f"`{p.name}` {p.minimum}–{p.maximum}: {p.description}"
                     for p in derivation.parameters)


def published_cell(derivation: Derivation) -> str:
    """Whether the default variants are compared with a published statement."""
    labels = [v.label for v in derivation.variants if v.published is not None]
    if len(labels) == len(derivation.variants):
        return "compared"
    if not labels:
        return "none (otbound's own)"
    return f"compared for {', '.join(labels)}; otbound's own otherwise"


def checked_scope(derivation: Derivation) -> tuple[str, str]:
    """How far the marginals and ``d_Y``-compatibility of every case of the default variants are
    proved: ``symbolic`` / ``every N`` (for every dataset size), else ``instances`` (checked
    exactly on the grid only), or ``invalid``. The same rules as ``otbound derive``
    (:func:`otbound.engine.derivation.check_case`), without its exact checks on instances,
    which take seconds (``tests/test_derivations.py`` runs them)."""
    from otbound.engine.report import INSTANCES, INVALID, SYMBOLIC

    scopes = [case_scope(replace(derivation, scheme=scheme), case)
              for v in derivation.variants for scheme, cases in _parts(derivation, v)
              for case in cases]
    validity = [valid for valid, _ in scopes]
    level = next((each for each in (INVALID, INSTANCES) if each in validity), SYMBOLIC)
    compatible = EVERY_N if all(proved for _, proved in scopes) else INSTANCES
    return level, compatible if level != INVALID else INVALID


def _parts(derivation: Derivation, variant) -> list[tuple]:
    """``(scheme, cases)``: the variant's cases under the derivation's scheme, or each public
    branch's cases under its conditioned scheme."""
    if variant.branches:
        return [(branch.scheme, branch.cases) for branch in variant.branches]
    return [(derivation.scheme, variant.cases)]


def case_scope(derivation: Derivation, case: Case) -> tuple[str, bool]:
    """The validity level of one case, and whether its compatibility is proved for every N."""
    from otbound.engine.auto_coupling import SearchedCoupling
    from otbound.engine.conditionals import SymbolicConditionals
    from otbound.engine.report import INSTANCES, INVALID, SYMBOLIC
    from otbound.engine.type_level import analyse_case
    from otbound.engine.validity import Verdict, prove_marginals
    from otbound.errors import UnsupportedOperation

    if isinstance(case.coupling, SearchedCoupling):
        return INSTANCES, False
    try:
        typed = analyse_case(case, derivation.scheme, derivation.batch_relation,
                             derivation.size_reference)
    except UnsupportedOperation:
        verdict, _ = prove_marginals(SymbolicConditionals(case, derivation.scheme))
        return (SYMBOLIC if verdict is Verdict.PROVED else INSTANCES), False
    if typed.partition_defect:
        return INVALID, False
    level = SYMBOLIC if typed.validity is Verdict.PROVED else INSTANCES
    return level, typed.compatibility is Verdict.PROVED


def with_region(text: str, content: str) -> str:
    """``text`` with the lines between :data:`START` and :data:`END` replaced by ``content``."""
    pattern = re.compile(re.escape(START) + r"\n.*?" + re.escape(END), re.S)
    if len(pattern.findall(text)) != 1:
        raise ValueError(f"expected one region between {START!r} and {END!r}")
    return pattern.sub(lambda _: f"{START}\n{content}\n{END}", text)


# --- docs/building_blocks.md ----------------------------------------------------------------

SURFACES = (
    ("otbound.engine", "The engine: derivation files import from here",
     ("otbound.engine.symbols", "otbound.engine.truncated_latent")),
    ("otbound.audit", "Audits: audit files import from here", ()),
    ("otbound.numerics", "The numbers of one step", ()),
    ("otbound.accounting", "Accounting: steps, composition, samplers", ()),
    ("otbound.verify", "The verifier", ()),
)
"""Each sub-package's surface, its heading, and the modules of it documented whole (their names
are imported from the module itself)."""

INTRO = f"""# Building blocks: the sub-packages' surfaces

<!-- generated by {COMMAND}: do not edit by hand -->

What derivation and audit files (and code that goes beyond the calls of [api](api.md)) import:
every name of each sub-package's surface (its ``EXPORTS``), with its signature and its docstring,
by module — the engine's in the order a derivation file uses them. These paths are kept working
when modules move. How a derivation fits together: [derivations](derivations.md) and the files
in `derivations/`; an audit entry: [auditing](auditing.md); the mathematics: [engine](engine.md).
"""


def building_blocks_page() -> str:
    """The whole page ``docs/building_blocks.md``."""
    sections = [INTRO]
    for package, heading, whole_modules in SURFACES:
        sections.append(surface_intro(package, heading, whole_modules))
        sections += [module_section(module, sorted_names(module)) for module in whole_modules]
        sections += [module_section(module, names)
                     for module, names in importlib.import_module(package).EXPORTS.items()]
    return "\n".join(sections)


def surface_intro(package: str, heading: str, whole_modules: tuple[str, ...]) -> str:
    """A surface's heading, its package docstring's first paragraph and how to import."""
    module = importlib.import_module(package)
    example = next(iter(module.EXPORTS.values()))[0]
    how = f"Import its names from `{package}` (`from {package} import {example}`)"
    if whole_modules:
        how += ", those of " + " and ".join(f"`{m}`" for m in whole_modules) + " from their module"
    text = "\n".join(textwrap.wrap(how + ".", 96))
    return f"## {heading} (`{package}`)\n\n{first_paragraph(module.__doc__)}\n\n{text}\n"


def sorted_names(module_name: str) -> list[str]:
    """A module documented whole: its ``__all__``, in order."""
    return list(importlib.import_module(module_name).__all__)


def module_section(module_name: str, names: list[str]) -> str:
    """A module's first docstring paragraph, then an entry for each name it gives."""
    module = importlib.import_module(module_name)
    documented = attribute_docs(module)
    parts = [f"### `{module_name}`\n\n{first_paragraph(module.__doc__)}\n"]
    parts += [entry(name, getattr(module, name), documented) for name in names]
    return "\n".join(parts)


def entry(name: str, value: object, documented: dict[str, str]) -> str:
    """One name: its signature (or members, or value) and its docstring (every docstring of the
    engine's API is a few lines; the first paragraph alone would drop, e.g., what
    ``InsertInRandomOrder``'s ``targets`` hold)."""
    code = inspect.isclass(value) or inspect.isfunction(value)
    if isinstance(value, type) and issubclass(value, enum.Enum):
        members = ", ".join(f"`{name}.{m.name}` = `{m.value!r}`" for m in value)
        body = f"Enumeration; members: {members}."
    elif isinstance(value, type) and issubclass(value, BaseException):
        body = f"A warning or error; a subclass of `{value.__mro__[1].__name__}`."
    elif code:
        body = f"```python\n{signature(name, value)}\n```"
    elif hasattr(value, "is_Symbol"):   # a sympy symbol: its assumptions
        body = f"```python\n{name} = {sympy_text(value)}\n```"
    elif len(repr(value)) <= WIDTH - len(name) - 3:
        body = f"```python\n{name} = {value!r}\n```"
    else:
        body = f"A `{type(value).__name__}`."
    doc = own_docstring(name, value) if code else documented.get(name)
    return "\n\n".join([f"#### `{name}`", body, markdown(doc)]) + "\n"


def sympy_text(symbol) -> str:
    """A sympy symbol as the code builds it: ``Symbol('r', positive=True)``."""
    import sympy as sp

    return sp.srepr(symbol)


def own_docstring(name: str, value: object) -> str | None:
    """The docstring written for ``value`` itself: not inherited, not the one dataclasses make up
    from the fields (``Name(field: type, ...)``)."""
    doc = vars(value).get("__doc__") if isinstance(value, type) else value.__doc__
    if not doc or doc.startswith(f"{name}("):
        return None
    return doc


def markdown(doc: str | None) -> str:
    """A docstring in Markdown: indentation removed, Sphinx roles made code spans."""
    if not doc:
        return NO_DOCSTRING
    return re.sub(r":(?:\w+:)?\w+:`~?([^`]+)`", r"`\1`", inspect.cleandoc(doc).strip())


def first_paragraph(doc: str | None) -> str:
    """The docstring's first paragraph in Markdown."""
    return markdown(doc).split("\n\n")[0]


def signature(name: str, value: object) -> str:
    """``name(parameters) -> returned`` as written in the code, on several lines when long."""
    found = inspect.signature(value)
    parameters = parameter_texts(found)
    returned = ("" if isinstance(value, type) or found.return_annotation is inspect.Signature.empty
                else f" -> {annotation_text(found.return_annotation)}")
    line = f"{name}({', '.join(parameters)}){returned}"
    if len(line) <= WIDTH:
        return line
    return f"{name}(\n" + "".join(f"    {p},\n" for p in parameters) + f"){returned}"


def parameter_texts(found: inspect.Signature) -> list[str]:
    """Each parameter as written, with the ``/`` and ``*`` separators where they belong."""
    texts, kinds = [], [p.kind for p in found.parameters.values()]
    for index, parameter in enumerate(found.parameters.values()):
        if (parameter.kind is inspect.Parameter.KEYWORD_ONLY
                and inspect.Parameter.VAR_POSITIONAL not in kinds
                and (index == 0 or kinds[index - 1] is not inspect.Parameter.KEYWORD_ONLY)):
            texts.append("*")
        texts.append(parameter_text(parameter))
        if (parameter.kind is inspect.Parameter.POSITIONAL_ONLY
                and (index + 1 == len(kinds) or kinds[index + 1] is not parameter.kind)):
            texts.append("/")
    return texts


def parameter_text(parameter: inspect.Parameter) -> str:
    """``name: annotation = default``."""
    stars = {inspect.Parameter.VAR_POSITIONAL: "*", inspect.Parameter.VAR_KEYWORD: "**"}
    text = stars.get(parameter.kind, "") + parameter.name
    annotated = parameter.annotation is not inspect.Parameter.empty
    if annotated:
        text += f": {annotation_text(parameter.annotation)}"
    default = parameter.default
    if default is not inspect.Parameter.empty:
        text += (" = " if annotated else "=") + value_text(default)
    return text


def annotation_text(annotation: object) -> str:
    """An annotation as written (annotations are strings under ``from __future__ import
    annotations``, and may be quoted once more)."""
    if isinstance(annotation, str):
        return annotation.strip("'\"")
    return inspect.formatannotation(annotation)


def value_text(value: object) -> str:
    """A default value as code: enum members by name, anything else by ``repr``."""
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    return repr(value)


def attribute_docs(module: ModuleType) -> dict[str, str]:
    """The docstrings written under module-level assignments (``NAME = …`` then a string)."""
    body = ast.parse(inspect.getsource(module)).body
    found = {}
    for statement, following in zip(body, body[1:]):
        targets = (statement.targets if isinstance(statement, ast.Assign)
                   else [statement.target] if isinstance(statement, ast.AnnAssign) else [])
        if (isinstance(following, ast.Expr) and isinstance(following.value, ast.Constant)
                and isinstance(following.value.value, str)):
            for target in targets:
                if isinstance(target, ast.Name):
                    found[target.id] = following.value.value
    return found


# --- the surfaces' type stubs ------------------------------------------------------------------

STUBBED = ("otbound", *(package for package, _, _ in SURFACES))
"""The packages whose names load on first use (:func:`otbound.surface.surface`): each gets an
``__init__.pyi`` that gives a type checker every name's real type (a module ``__getattr__``
types them all as ``Any``)."""


def surface_stub(package: str) -> str:
    """The ``__init__.pyi`` of ``package``: each name of its surface imported from its module;
    ``otbound``'s moved names (loaded with a warning) stay ``Any``."""
    module = importlib.import_module(package)
    lines = [f"# Generated by `{COMMAND}` (do not edit): the types of the lazy names of",
             f"# {package}'s EXPORTS for type checkers; at run time they load on first use.",
             *(["from typing import Any"] if package == "otbound" else []), ""]
    made = []
    for source, names in module.EXPORTS.items():
        defined = _top_level_names(importlib.import_module(source))
        lines += [f"from {source} import {name} as {name}" for name in names if name in defined]
        made += [getattr(module, name) for name in names if name not in defined]
    if made:   # a noise family's constructor, made on first use: its signature, written out
        lines += ["from otbound.numerics.mechanisms import AdditiveNoise", ""]
        lines += [f"def {made_one.__name__}{inspect.signature(made_one)}: ..."
                  .replace("'", "") for made_one in made]   # its annotations are strings
    lines += ["", "EXPORTS: dict[str, list[str]]", "__all__: list[str]", ""]
    if package == "otbound":
        lines += ["def __getattr__(name: str) -> Any: ...", ""]
    return "\n".join(lines)


def _top_level_names(module: ModuleType) -> set[str]:
    """The names a module's source binds at its top level (not those its ``__getattr__``
    makes)."""
    tree = ast.parse(Path(inspect.getfile(module)).read_text())
    found = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found |= {t.id for t in targets if isinstance(t, ast.Name)}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            found |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    return found


def stub_path(package: str) -> Path:
    return ROOT.joinpath(*package.split("."), "__init__.pyi")


# --- every generated file ---------------------------------------------------------------------

def expected() -> dict[Path, str]:
    """What every generated file must hold now."""
    return {README: with_region(README.read_text(), derivations_table()),
            BUILDING_BLOCKS: building_blocks_page(),
            **{stub_path(package): surface_stub(package) for package in STUBBED}}


def render() -> list[Path]:
    """Rewrite every generated file that is out of date; the paths rewritten."""
    written = []
    for path, text in expected().items():
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
            written.append(path)
    return written


if __name__ == "__main__":
    for path in render():
        print(f"rewrote {path.relative_to(ROOT)}", file=sys.stderr)
