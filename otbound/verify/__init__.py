"""Independent checks of every bound otbound emits (../shared/DESIGN.md §6).

* :mod:`~otbound.verify.functions` — base-mechanism functions ``f`` on batches: arbitrary bits for
  randomized response, arbitrary Lipschitz functions (McShane form) for additive noise.
* :mod:`~otbound.verify.enumeration` — exact output distributions by enumerating every batch.
* :mod:`~otbound.verify.divergence` — divergences of arbitrary one-dimensional mixtures, written
  independently of :mod:`otbound.numerics.renyi` and :mod:`otbound.numerics.hockey_stick`.
* :mod:`~otbound.verify.montecarlo` — sampling the real subsampled mechanism.
* :mod:`~otbound.verify.noise_references` — the verifier's own implementation of each noise
  family (densities, tails, samplers, ball-arithmetic envelopes), registered by family name.
* :mod:`~otbound.verify.checks` — one instance of a derivation case, and the rows the checks
  report; the checks themselves: :mod:`~otbound.verify.tightness`,
  :mod:`~otbound.verify.soundness` (the soundness search),
  :mod:`~otbound.verify.monte_carlo_check`, :mod:`~otbound.verify.mutations` and
  :mod:`~otbound.verify.published_statements`.
* :mod:`~otbound.verify.verification` — everything for one derivation, as a report
  (:mod:`~otbound.verify.verify_report`).

Its surface (docs/building_blocks.md, generated): ``verify_derivation`` and its report.
"""

from otbound.surface import surface

EXPORTS = {"otbound.verify.verification": ["verify_derivation"],
           "otbound.verify.verify_report": ["VerifyReport"]}
"""Module → the names it gives the verifier's surface."""

__all__, __getattr__, __dir__ = surface(__name__, EXPORTS)
