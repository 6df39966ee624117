"""The examples of ``docs/api.md`` run as doctests: the documented API is the API."""

import doctest
import pathlib

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"


def test_api_examples_run_as_documented():
    failures, attempted = doctest.testfile(
        str(DOCS / "api.md"), module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert attempted > 20 and failures == 0
