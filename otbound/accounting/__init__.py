"""Privacy of many steps: RDP composition and conversion, PLD accounting, truncated Poisson.

* :mod:`~otbound.accounting.conversion` — RDP → (ε, δ): Mironov 2017, Balle et al. 2020
  Thm. 21, and the optimal conversion of seed 004 (Bernoulli pairs).
* :mod:`~otbound.accounting.rdp` — composing per-step RDP curves.
* :mod:`~otbound.accounting.pld` — dominating pairs as privacy loss distributions (dp_accounting),
  and :mod:`~otbound.accounting.case_plds`, a step handed to dp_accounting with its cases apart.
* :mod:`~otbound.accounting.truncated` — truncated Poisson sampling (seed 002).
* :mod:`~otbound.accounting.guarantees` — ``account`` and ``calibrate``: any setting by method
  (tight, agnostic, post-hoc) in one call, with
  :mod:`~otbound.accounting.profiles` (per-step curves and profiles composed) and
  :mod:`~otbound.accounting.posthoc` (group privacy after the K = 1 bound, 003 App. C.1.4).
* :mod:`~otbound.accounting.calibrate` — the search for the noise, steps or rate that meet a
  target (ε, δ).
"""
