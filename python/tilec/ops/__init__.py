"""Ready-made ops built on `@tilec.jit` kernels (need torch)."""

from .weighted_sum import weighted_sum

__all__ = ["weighted_sum"]
