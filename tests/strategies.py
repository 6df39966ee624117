"""Hypothesis strategies for exact scheme parameters (small rationals shrink well)."""

from hypothesis import strategies as st

rates = st.fractions(min_value=0, max_value=1, max_denominator=12)
open_rates = st.fractions(min_value=0, max_value=1, max_denominator=12).filter(lambda r: 0 < r < 1)
dataset_sizes = st.integers(min_value=0, max_value=8)
