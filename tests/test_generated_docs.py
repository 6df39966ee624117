"""The generated documentation is what the code says now (``tests/generated_docs.py``)."""

import shutil

import pytest

import generated_docs
import otbound
from otbound.engine.bundled import ENVIRONMENT_VARIABLE, SOURCE_TREE, load_derivation
from otbound.engine.report import ALL_SIZES

REGENERATE = f"out of date, run `{generated_docs.COMMAND}` and review the diff"


def test_generated_files_are_up_to_date():
    stale = [str(path.relative_to(generated_docs.ROOT))
             for path, text in generated_docs.expected().items()
             if not path.exists() or path.read_text() != text]
    assert not stale, f"{', '.join(stale)}: {REGENERATE}"


def test_a_new_derivation_changes_the_table(tmp_path, monkeypatch):
    for path in SOURCE_TREE.glob("*.py"):
        shutil.copy(path, tmp_path)
    tutorial = generated_docs.ROOT / "docs" / "tutorial" / "poisson_substitution.py"
    shutil.copy(tutorial, tmp_path)
    monkeypatch.setenv(ENVIRONMENT_VARIABLE, str(tmp_path))
    table = generated_docs.derivations_table()
    row = next(line for line in table.splitlines() if "tutorial-poisson-substitution" in line)
    assert row not in generated_docs.README.read_text()


def test_a_new_export_appears_on_the_reference_page(monkeypatch):
    import otbound.engine

    events = otbound.engine.EXPORTS["otbound.engine.events"]
    monkeypatch.setitem(otbound.engine.EXPORTS, "otbound.engine.events", [*events, "Event"])
    page = generated_docs.building_blocks_page()
    assert "#### `Event`" in page
    assert page != generated_docs.BUILDING_BLOCKS.read_text()


@pytest.mark.parametrize("name, validity, compatibility",
                         [("001-thm-F.2", "symbolic", "every N"),
                          ("wr-substitution", "instances", "instances")])
def test_the_tables_scope_is_what_derive_reports(name, validity, compatibility):
    """The table reads validity and compatibility off the type-level analysis alone (running
    every derivation takes half a minute); here it agrees with the full run."""
    derivation = load_derivation(name)
    report = otbound.run(derivation)
    proved = all(c.compatibility_scope == ALL_SIZES for v in report.variants for c in v.cases)
    assert generated_docs.checked_scope(derivation) == (validity, compatibility)
    assert (report.validity, proved) == (validity, compatibility == generated_docs.EVERY_N)


def test_signatures_are_shown_as_written():
    """Enum defaults by name; a required field has no default."""
    assert ("size_reference: SizeReference = SizeReference.X"
            in generated_docs.signature("Derivation", otbound.engine.Derivation))
    assert (generated_docs.signature("InsertInRandomOrder", otbound.engine.InsertInRandomOrder)
            == "InsertInRandomOrder(source: str, elements: tuple[str, ...], "
               "targets: tuple[str, ...])")


def test_a_region_needs_its_markers():
    with pytest.raises(ValueError, match="expected one region"):
        generated_docs.with_region("no markers here", "table")


def test_every_bundled_derivation_is_described_and_the_reference_is_linked():
    """``docs/derivations.md``'s table says in words what each derivation derives: it is
    written by hand, so a derivation added to the catalogue must be added there too."""
    derivations = (generated_docs.ROOT / "docs" / "derivations.md").read_text()
    for _, derivation in otbound.bundled_derivations():
        assert f"| `{derivation.name}` |" in derivations, derivation.name
    assert "(building_blocks.md)" in derivations
    assert "(docs/building_blocks.md)" in generated_docs.README.read_text()
