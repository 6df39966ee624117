"""Privacy of many steps: RDP composition and conversion, PLD accounting, truncated Poisson.

* :mod:`~otbound.accounting.conversion` — RDP → (ε, δ): Mironov 2017, Balle et al. 2020
  Thm. 21, and the optimal conversion of seed 004 (Bernoulli pairs).
* :mod:`~otbound.accounting.rdp` — composing per-step RDP curves.
* :mod:`~otbound.accounting.pld` — dominating pairs as privacy loss distributions (dp_accounting).
* :mod:`~otbound.accounting.truncated` — truncated Poisson sampling (seed 002).
"""
