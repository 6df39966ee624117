"""Epoch-level settings: every record is used once per epoch, in batches cut from the dataset.

An epoch has ``T = ⌈dataset_size / batch_size⌉`` steps; the schemes differ in how the records are
spread over them (:mod:`otbound.numerics.balls_in_bins`, :mod:`otbound.numerics.shuffling`). Their
privacy depends on ``T`` and the noise only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from otbound.errors import InvalidSpecification


@dataclass(frozen=True)
class EpochSetting:
    """``dataset_size`` records in batches of at most ``batch_size`` (expected size, for
    balls-in-bins), ``T`` steps per epoch."""

    batch_size: int
    dataset_size: int
    scheme: ClassVar[str] = ""

    def __post_init__(self) -> None:
        for name in ("batch_size", "dataset_size"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidSpecification(f"{name} must be an integer >= 1, got {value!r}",
                                           parameter=name)
        if self.batch_size > self.dataset_size:
            raise InvalidSpecification(
                f"batch_size must be at most dataset_size ({self.dataset_size}), got "
                f"{self.batch_size}", parameter="batch_size")

    @property
    def steps_per_epoch(self) -> int:
        return -(-self.dataset_size // self.batch_size)

    def describe(self) -> dict:
        return {"scheme": self.scheme, "batch_size": self.batch_size,
                "dataset_size": self.dataset_size, "steps_per_epoch": self.steps_per_epoch}


def check_epochs(epochs: int) -> None:
    """A number of epochs: an integer ``≥ 1``."""
    if isinstance(epochs, bool) or not isinstance(epochs, int) or epochs < 1:
        raise InvalidSpecification(f"epochs must be an integer >= 1, got {epochs!r}",
                                   parameter="epochs")
