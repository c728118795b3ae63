"""Shared helpers of the Python tests: fresh random inputs, poisoned outputs,
torch when the machine has it."""

import os
import sys
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
if os.environ.get("TILEC_TEST_INSTALLED") != "1":  # else: the pip-installed package
    sys.path.insert(0, os.path.join(ROOT, "python"))

try:
    import torch
except ImportError:  # Debian's python3-torch is optional
    torch = None

needs_torch = unittest.skipIf(torch is None, "torch is not installed (apt-get install python3-torch)")

SEED = int(os.environ.get("TILEC_TEST_SEED", np.random.SeedSequence().entropy % (1 << 31)))
rng = np.random.default_rng(SEED)
print(f"tilec python tests: seed {SEED} (TILEC_TEST_SEED={SEED} reproduces)", file=sys.stderr)


def randn(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def poison(shape, dtype=np.float32):
    out = np.empty(shape, dtype)
    if np.issubdtype(dtype, np.floating):
        out.fill(np.nan)
    else:
        out.fill(np.iinfo(dtype).max // 3)
    return out


def device():
    """Where tensors of this run live: 'cuda' on the GPU backend."""
    import tilec
    return "cuda" if tilec.backend() == "gpu" else "cpu"
