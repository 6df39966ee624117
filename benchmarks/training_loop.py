"""A training loop's accounting: otbound's accountant you step against dp_accounting's PLD
accountant, doing the same in the same run (issue 44).

The loop: Poisson subsampling at r = 256/60000 with the Gaussian mechanism, 10⁴ steps, σ
lowered in ten stages of 1000 steps from 1.2 to 0.75, ε at δ = 1e-5 asked every 100 steps,
discretisation 1e-4 for both. otbound's ``RunningAccountant`` is stepped once per step
(``step(setting, gaussian(σ))``); dp_accounting's ``PLDAccountant`` composes each block of 100
steps at once (``compose(event, 100)``), its fastest use — composing once per step costs a
convolution each time (the row "dp_accounting, one compose per step" times 20 such calls after
2000 steps). Both answer ε for the same history; otbound's last answer is also checked against
``compose`` of the recorded steps in one call (equal to the bit) and against dp_accounting's.

    python benchmarks/training_loop.py
"""

from __future__ import annotations

import time

RATE, STEPS, EVERY, DELTA, GRID = 256 / 60000, 10_000, 100, 1e-5, 1e-4
STAGES = [1.2 - 0.05 * stage for stage in range(10)]
"""σ for each stage of 1000 steps."""


def sigma_at(step: int) -> float:
    return STAGES[step * len(STAGES) // STEPS]


def otbound_loop() -> tuple[float, list[float], object]:
    import otbound

    poisson = otbound.Subsampling("poisson", rate=RATE)
    accountant = otbound.RunningAccountant(accountant="pld", discretisation=GRID)
    answers, start = [], time.perf_counter()
    for step in range(STEPS):
        accountant.step(poisson, otbound.gaussian(sigma_at(step)))
        if (step + 1) % EVERY == 0:
            answers.append(accountant.epsilon(DELTA))
    return time.perf_counter() - start, answers, accountant


def peer_loop() -> tuple[float, list[float]]:
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant

    accountant = pld_privacy_accountant.PLDAccountant(value_discretization_interval=GRID)
    answers, start = [], time.perf_counter()
    for block in range(STEPS // EVERY):
        event = dp_accounting.PoissonSampledDpEvent(
            RATE, dp_accounting.GaussianDpEvent(sigma_at(block * EVERY)))
        accountant.compose(event, EVERY)
        answers.append(accountant.get_epsilon(DELTA))
    return time.perf_counter() - start, answers


def peer_per_step_seconds(calls: int = 20) -> float:
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant

    accountant = pld_privacy_accountant.PLDAccountant(value_discretization_interval=GRID)
    event = dp_accounting.PoissonSampledDpEvent(RATE, dp_accounting.GaussianDpEvent(STAGES[0]))
    accountant.compose(event, 2000)
    start = time.perf_counter()
    for _ in range(calls):
        accountant.compose(event)
    return (time.perf_counter() - start) / calls


def main() -> None:
    import otbound

    import dp_accounting  # noqa: F401  (both loops start with their imports done)
    from dp_accounting.pld import pld_privacy_accountant  # noqa: F401

    otbound.Subsampling("poisson", rate=RATE)
    peer_seconds, peer = peer_loop()
    ours_seconds, ours, accountant = otbound_loop()
    once = otbound.compose(accountant.as_steps(), "pld", delta=DELTA, discretisation=GRID)
    per_step = peer_per_step_seconds()
    ratio = ours_seconds / peer_seconds
    print(f"{STEPS} steps, sigma {STAGES[0]:g} to {STAGES[-1]:g} in {len(STAGES)} stages, "
          f"eps(delta = {DELTA:g}) every {EVERY} steps, r = 256/60000, grid {GRID:g}\n")
    print(f"{'row':<44} {'time':>10} {'last eps':>12}")
    print(f"{'otbound RunningAccountant (step per step)':<44} {ours_seconds:>8.2f} s "
          f"{ours[-1]:>12.6f}")
    print(f"{'dp_accounting PLDAccountant (block of 100)':<44} {peer_seconds:>8.2f} s "
          f"{peer[-1]:>12.6f}")
    print(f"{'dp_accounting, one compose per step':<44} {per_step:>8.3f} s per call")
    print(f"\notbound / dp_accounting: {ratio:.2f}x (target <= 1.0x: "
          f"{'meets' if ratio <= 1.0 else 'MISSES'})")
    print(f"one-shot compose of the same steps: {once.epsilon:.12g} "
          f"({'equal' if once.epsilon == ours[-1] else 'DIFFERS'})")
    above = sum(a >= b for a, b in zip(ours, peer))
    print(f"otbound's answers >= dp_accounting's: {above} of {len(ours)}; largest relative "
          f"difference {max(abs(a / b - 1) for a, b in zip(ours, peer)):.2e}")


if __name__ == "__main__":
    main()
