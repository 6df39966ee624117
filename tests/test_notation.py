"""Theorems in mathematical notation (issue 15, output polish): text without Python syntax, LaTeX
whose every formula parses (matplotlib's mathtext, which refuses what it does not know)."""

import re

import pytest
import sympy as sp
from cli_runs import run_cli
from matplotlib.mathtext import MathTextParser

from otbound.engine.notation import latex_text, plain
from otbound.engine.symbols import N, q, r


@pytest.mark.parametrize("expr, text", [
    ((1 - r) ** 2, "(1 − r)²"),
    (2 * r * (1 - r), "2r(1 − r)"),
    (r ** 2 * (3 - 3 * r), "r²(3 − 3r)"),
    (3 * r ** 2 * (1 - r) ** 11, "3r²(1 − r)¹¹"),
    (sp.binomial(N - 2, q) / sp.binomial(N, q), "C(N − 2, q)/C(N, q)"),
    (2 * sp.binomial(N - 2, q - 1) / sp.binomial(N, q), "2C(N − 2, q − 1)/C(N, q)"),
    (q * r, "q·r"),
    (-2 * r, "−2r"),
    (1 / (1 - r), "1/(1 − r)"),
])
def test_plain_notation(expr, text):
    assert plain(expr) == text


@pytest.mark.parametrize("text, latex", [
    ("Poisson subsampling with rate r", "Poisson subsampling with rate $r$"),
    ("sampling without replacement with batch size q = 10",
     "sampling without replacement with batch size $q = 10$"),
    ("substitution of a group of 2 (≃2Δ)", r"substitution of a group of 2 ($\simeq_{2\Delta}$)"),
    ("insertion of 1 and removal of 2 elements (≃K+,K-)",
     r"insertion of 1 and removal of 2 elements ($\simeq_{K_+, K_-}$)"),
    ("x_1 & 50%", r"x\_1 \& 50\%"),
])
def test_latex_text_puts_symbols_in_math_mode(text, latex):
    assert latex_text(text) == latex


DERIVED = [("001-thm-4.1", ["--param", "K=2"]), ("001-prop-E.5", ["--param", "K=2"]),
           ("003-thm-3.7", ["--param", "K_plus=1", "--param", "K_minus=2"]),
           ("001-thm-3.6", []), ("001-thm-F.3", [])]


@pytest.mark.parametrize("name, params", DERIVED)
def test_text_theorems_have_no_python_syntax(capsys, name, params):
    code, out, _ = run_cli(capsys, "derive", name, *params)
    theorem = out[out.index("Theorem."):out.index("The same bound holds")]
    assert code == 0 and "max_ŷ Ψ_α" in theorem
    for python in ("**", "*", "binomial(", " - "):
        assert python not in theorem, python


def _formulas(document: str) -> list[str]:
    """Every piece of a theorem that LaTeX reads in math mode."""
    inline = re.findall(r"\$([^$]+)\$", document)
    aligned = re.findall(r"\\begin\{align\*\}\n(.*?)\n\\end\{align\*\}", document, re.S)
    lines = [line.strip().lstrip("&").removesuffix(r"\\").strip()
             for block in aligned for line in block.split("\n")]
    return inline + [line.replace("&", "") for line in lines]


@pytest.mark.parametrize("name, params", DERIVED)
def test_latex_formulas_parse(capsys, name, params):
    code, out, _ = run_cli(capsys, "derive", name, *params, "--latex")
    assert code == 0
    formulas = _formulas(out)
    assert len(formulas) >= 4
    parser = MathTextParser("path")
    for formula in formulas:
        parser.parse(f"${formula}$")   # raises ValueError on what it cannot read
    prose = re.sub(r"\$[^$]+\$", "", out)
    assert "≃" not in prose and "Δ" not in prose and " rate r" not in prose
