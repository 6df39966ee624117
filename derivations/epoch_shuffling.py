"""Shuffled batches over one epoch, substitution of one record (issue 28): an upper bound of
otbound's own, checked; no tighter one is published.

Most DP-SGD code shuffles the N = T·b records once per epoch and cuts them into T batches of b.
Condition on the step t that holds the replaced record (a in x, a' in x'; probability 1/T each)
and couple by drawing the epoch of x' with a' in step 1, swapping a' with a uniformly random record
of batch t, and replacing a' by a for the x side. ``ŷ_At`` and ``ŷ_Et`` differ in step t only, by
one substitution; other pairs also differ in the steps the swaps touched. Joint convexity over the
pairs ``(ŷ_At, ŷ_Et)`` bounds the mixture by one step of the base mechanism: without
amplification, the Gaussian mechanism once per epoch. Chua et al. (ICML 2024) show that the truth
can be close to that; their lower bound is ``otbound.shuffled_lower_bound``
(``otbound account --scheme shuffle``).
"""

from otbound.engine import BatchRelation, EpochDerivation, ShuffledEpoch, SwapIntoSteps

DERIVATION = EpochDerivation(
    name="epoch-shuffling",
    source="otbound (issue 28); lower bound: Chua et al. 2024",
    title="Shuffled batches, one epoch of T steps, substitution of one record",
    scheme=ShuffledEpoch,
    relation=BatchRelation.SUBSTITUTION,
    coupling=SwapIntoSteps(),
    published=None,
    variants=({"T": 1}, {"T": 2}, {"T": 3}, {"T": 4}, {"T": 8}),
    others=range(0, 9),
    max_outcomes=50_000,
    remarks=("No published upper bound: the mixture is evaluated by joint convexity over the "
             "pairs (ŷ_At, ŷ_Et), each one substitution in one step (the base mechanism once "
             "per epoch); the lower bound is otbound.shuffled_lower_bound.",
             "No coupling of these events has at most two batches per step once T >= 3, the "
             "structure the amplified epoch patterns need: docs/shuffling.md, certificate by "
             "python -m otbound.engine.shuffle_certificate.",),
)
