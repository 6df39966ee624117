"""The numbers: settings and mechanisms, a derived bound's numeric problems, and RDP and (ε, δ)
of one step by method (tight, agnostic, post-hoc), every value with its rounding error bounded.
Its surface (docs/building_blocks.md, generated) is what ``otbound`` gives users and the types
they meet."""

from otbound.choices import family_modules
from otbound.surface import surface

EXPORTS = {
    "otbound.numerics.settings": ["Subsampling"],
    "otbound.numerics.epoch_settings": ["BallsInBins", "EpochSetting", "RandomAllocation",
                                        "ShuffledBatches"],
    "otbound.numerics.mechanisms": ["Mechanism", "randomized_response"],
    "otbound.numerics.derived": ["DerivedBound", "DerivedSetting", "derive_bound"],
    "otbound.numerics.problems": ["NumericProblem", "Term"],
    "otbound.numerics.one_step": ["adp", "rdp"],
    "otbound.numerics.rounding": ["NumericBound"],
    "otbound.numerics.shuffling": ["shuffled_lower_bound"],
}
EXPORTS["otbound.numerics.mechanisms"][-1:-1] = family_modules()   # before randomized_response
"""Module → the names it gives the numerics' surface; every noise family module gives a
constructor (``gaussian``, ``laplace``, …), found by its file alone."""

__all__, __getattr__, __dir__ = surface(__name__, EXPORTS)
