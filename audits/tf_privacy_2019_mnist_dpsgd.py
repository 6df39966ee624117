"""TensorFlow Privacy's published ε for its MNIST DP-SGD tutorial: a claim over ``T`` steps.

``tutorials/README.md`` (tensorflow/privacy, unchanged since September 2019) reports, at
``δ = 10⁻⁵``, for ``N = 60000`` examples, batches of 256 (``q = 256/60000``; one example per
microbatch) and per-example clipping at 1:

* its table "Select Parameters": noise multiplier 1.3 for 15 epochs, ε = 1.19; 1.1 for 60
  epochs, ε = 3.01; 0.7 for 45 epochs, ε = 7.10 — with ``60000 // 256 = 234`` steps per epoch,
  as the tutorial's ``compute_epsilon(epoch * steps_per_epoch)`` counts them;
* its command-line example ``compute_dp_sgd_privacy.py --N=60000 --batch_size=256
  --noise_multiplier=1.1 --epochs=60 --delta=1e-5``: "eps = 3.01", with
  ``⌈60 · 60000/256⌉ = 14063`` steps as that script counts them.

Each number is stated as an ``(ε, 10⁻⁵)``-DP guarantee of ``T`` steps of the Poisson
subsampled Gaussian mechanism (the accountant's model of the training run), so each is a claim
``ε(δ)`` at ``(q, σ, T, δ)``.
"""

from otbound.audit import Claim, Point, Quantity, composed_poisson_gaussian

RATE = 256 / 60000
DELTA = 1e-5
PUBLISHED = {(1.3, 15 * 234): 1.19, (1.1, 60 * 234): 3.01, (0.7, 45 * 234): 7.10,
             (1.1, 14063): 3.01}
"""The published ε by (noise multiplier, steps): the README's table, then its command line."""


def claimed(point: Point) -> float:
    """The published ε of the point's setting."""
    return PUBLISHED[(point["sigma"], int(point["steps"]))]


CLAIM = Claim(
    name="tf-privacy-2019-mnist-dpsgd",
    title="DP-SGD over T steps: TensorFlow Privacy's published ε for its MNIST tutorial "
          "(q = 256/60000, δ = 1e-5)",
    citation="TensorFlow Privacy, tutorials/README.md (2019), table 'Select Parameters' and "
             "the compute_dp_sgd_privacy.py example",
    setting="T steps of Poisson subsampling with rate q = 256/60000, insertion/removal of one "
            "example; Gaussian mechanism with noise multiplier σ on the sum of gradients "
            "clipped to norm 1 (sensitivity 1)",
    domain="the four published settings only (a table of numbers, not a formula: not searched)",
    quantity=Quantity.EPSILON,
    points=tuple({"sigma": sigma, "rate": RATE, "steps": float(steps), "delta": DELTA}
                 for sigma, steps in PUBLISHED),
    claimed=claimed,
    reference=lambda p: composed_poisson_gaussian(p["rate"], p["sigma"], int(p["steps"]),
                                                  p["delta"]),
    series=("sigma", "steps"),
    note="The published numbers are RDP accounting (Mironov et al. 2019's RDP of the sampled "
         "Gaussian at TF Privacy's orders, with the conversion ε = RDP(α) + log(1/δ)/(α − 1)); "
         "the test reproduces each with dp_accounting's RDP accountant. Against otbound's "
         "accountant (upper end: its sound ε at T steps) and, below, the ε that one test of "
         "the worst-case construction composed T times proves (the sum of the T outputs, or "
         "how many exceed a threshold; reference_steps): not the likelihood-ratio test, so "
         "the bracket never closes — a claim below the lower end would be unsound, one above "
         "the upper end is sound, and nothing here can be tight. The tutorial itself batches "
         "by shuffling, not by Poisson sampling: the audit holds the numbers to the model they "
         "were computed for, not to the training run.",
)
