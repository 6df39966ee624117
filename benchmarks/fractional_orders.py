"""How loose dp_accounting's RDP is at fractional orders (K = 1 Poisson subsampled Gaussian).

dp_accounting evaluates fractional orders with a series (``_compute_log_a_frac``); this script
compares it with otbound and with otbound's independent 40-digit mpmath quadrature, and prints
the relative excess of dp_accounting over the quadrature value.
Run: ``python benchmarks/fractional_orders.py``.
"""

from __future__ import annotations

import numpy as np
from dp_accounting.rdp.rdp_privacy_accountant import _compute_rdp_poisson_subsampled_gaussian

from otbound.choices import Method
from otbound.numerics.mechanisms import gaussian
from otbound.numerics.one_step import rdp
from otbound.numerics.families import GAUSSIAN
from otbound.numerics.pairs import MixturePair
from otbound.numerics.settings import Subsampling
from otbound.verify import high_precision as reference
from otbound.verify.high_precision import log_binomial_weights

SIGMAS = (0.5, 1.0, 2.0, 5.0)
RATES = (0.001, 0.01, 0.1, 0.2)
ORDERS = (1.1, 1.5, 2.5, 7.3)


def exact(sigma: float, rate: float, alpha: float) -> float:
    removal = MixturePair(GAUSSIAN, sigma, [0, 1], log_binomial_weights(1, rate), [0],
                          [0.0])
    return max(float(reference.precise_log_psi(removal, alpha)[0]),
               float(reference.precise_log_psi(removal.swapped(), alpha)[0])) / (alpha - 1)


def main() -> None:
    print("σ | r | α | dp_accounting ε | otbound ε | 40-digit quadrature ε | "
          "dp_accounting excess | otbound excess")
    print("---|---|---|---|---|---|---|---")
    for sigma in SIGMAS:
        for rate in RATES:
            theirs = _compute_rdp_poisson_subsampled_gaussian(rate, sigma, ORDERS)
            ours = [b.value for b in rdp(Subsampling("poisson", rate=rate), gaussian(sigma),
                                         Method.TIGHT, ORDERS)]
            for alpha, t, o in zip(ORDERS, theirs, ours):
                e = exact(sigma, rate, alpha)
                excess = "inf" if not np.isfinite(t) else f"{t / e - 1:+.1e}"
                print(f"{sigma} | {rate} | {alpha} | {t:.10g} | {o:.10g} | {e:.10g} | {excess} | "
                      f"{o / e - 1:+.1e}")


if __name__ == "__main__":
    main()
