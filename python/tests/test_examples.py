"""The seed's puzzles (examples/puzzles) and the weighted sum, compiled with
tilec.compile_file and launched from Python, against float64 references on
fresh random inputs (CPU backend without a GPU, torch CUDA tensors with
one)."""

import os
import unittest

import numpy as np

from util import ROOT, device, poison, randn, torch

import tilec

EX = os.path.join(ROOT, "examples")
_kernels = {}


def kernel(path, name=None):
    key = (path, name)
    if key not in _kernels:
        _kernels[key] = tilec.compile_file(os.path.join(EX, path), name)
    return _kernels[key]


def dev(a):
    return a if torch is None else torch.from_numpy(np.ascontiguousarray(a)).to(device())


def host(a):
    return a if isinstance(a, np.ndarray) else a.cpu().numpy()


class PuzzleTest(unittest.TestCase):
    def close(self, got, want, rtol=1e-5, atol=1e-5):
        np.testing.assert_allclose(host(got).astype(np.float64), want, rtol=rtol, atol=atol)

    def test_constant_add(self):
        n = 200
        x = randn(n)
        z = dev(poison(n))
        kernel("puzzles/constant_add.tile", "add_kernel")[(1,)](dev(x), z, n, B0=256)
        self.close(z, x.astype(np.float64) + 10)
        z = dev(poison(n))
        kernel("puzzles/constant_add.tile", "add_mask2_kernel")[(tilec.cdiv(n, 32),)](dev(x), z, n, B0=32)
        self.close(z, x.astype(np.float64) + 10)

    def test_outer_add_and_mul_relu(self):
        n0, n1 = 70, 45
        x, y = randn(n0), randn(n1)
        z = dev(poison((n1, n0)))
        kernel("puzzles/outer_add.tile", "add_vec_block_kernel")[(tilec.cdiv(n0, 32), tilec.cdiv(n1, 16))](
            dev(x), dev(y), z, n0, n1, B0=32, B1=16)
        self.close(z, x[None, :].astype(np.float64) + y[:, None])
        z = dev(poison((n1, n0)))
        kernel("puzzles/outer_mul_relu.tile", "mul_relu_block_kernel")[(tilec.cdiv(n0, 32), tilec.cdiv(n1, 16))](
            dev(x), dev(y), z, n0, n1, B0=32, B1=16)
        self.close(z, np.maximum(x[None, :].astype(np.float64) * y[:, None], 0))
        xm, dz = randn(n1, n0), randn(n1, n0)
        dx = dev(poison((n1, n0)))
        kernel("puzzles/outer_mul_relu.tile", "mul_relu_block_back_kernel")[(tilec.cdiv(n0, 32), tilec.cdiv(n1, 16))](
            dev(xm), dev(y), dev(dz), dx, n0, n1, B0=32, B1=16)
        yy = y[:, None].astype(np.float64)
        self.close(dx, (xm * yy > 0) * yy * dz)

    def test_long_sum_and_softmax(self):
        n0, t = 9, 300
        x = randn(n0, t)
        z = dev(poison(n0))
        kernel("puzzles/long_sum.tile")[(tilec.cdiv(n0, 4),)](dev(x), z, n0, t, t, B0=4, B1=32)
        self.close(z, x.astype(np.float64).sum(1), rtol=1e-4, atol=1e-4)
        z = dev(poison((n0, t)))
        kernel("puzzles/long_softmax.tile")[(tilec.cdiv(n0, 4),)](dev(x), z, n0, t, t, B0=4, B1=32)
        e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
        self.close(z, e / e.sum(1, keepdims=True), rtol=1e-4, atol=1e-6)

    def test_flash_attention(self):
        n0, t = 30, 200
        q, k, v = randn(n0), randn(t), randn(t)
        z = dev(poison(n0))
        kernel("puzzles/flash_attention.tile")[(1,)](dev(q), dev(k), dev(v), z, n0, t, B0=32, B1=32)
        s = q[:, None].astype(np.float64) * k[None, :]
        p = np.exp(s - s.max(1, keepdims=True))
        self.close(z, (p / p.sum(1, keepdims=True)) @ v, rtol=1e-4, atol=1e-5)

    def test_conv2d(self):
        n0, h, w = 5, 9, 11
        x, k = randn(n0, h, w), randn(4, 4)
        z = dev(poison((n0, h, w)))
        kernel("puzzles/conv2d.tile")[(tilec.cdiv(n0, 2),)](dev(x), dev(k), z, n0, h, w, KH=4, KW=4, B0=2)
        xp = np.zeros((n0, h + 3, w + 3))
        xp[:, :h, :w] = x
        want = np.zeros((n0, h, w))
        for oj in range(4):
            for ol in range(4):
                want += k[oj, ol] * xp[:, oj:oj + h, ol:ol + w]
        self.close(z, want, rtol=1e-4, atol=1e-4)

    def test_batched_matmul(self):
        n2, n0, n1, mid = 3, 40, 24, 48
        x, y = randn(n2, n0, mid), randn(n2, mid, n1)
        z = dev(poison((n2, n0, n1)))
        kernel("puzzles/batched_matmul.tile")[(tilec.cdiv(n0, 16), tilec.cdiv(n1, 16), tilec.cdiv(n2, 2))](
            dev(x), dev(y), z, n0, n1, n2, mid, B0=16, B1=16, B2=2, B_MID=16)
        # tf32 on tensor cores: checked at tf32's precision.
        self.close(z, x.astype(np.float64) @ y, rtol=2e-2, atol=2e-2)

    def test_weighted_sum(self):
        rows, d = 100, 70
        x, w = randn(rows, d), randn(d)
        y = dev(poison(rows))
        tx, tw = dev(x), dev(w)
        kernel("weighted_sum.tile", "weighted_sum_fwd")[(tilec.cdiv(rows, 16),)](
            tx, tw, y, d, 1, 1, 1, rows, d, ROWS_TILE=16, D_TILE=32)
        self.close(y, x.astype(np.float64) @ w, rtol=1e-4, atol=1e-4)


if __name__ == "__main__":
    unittest.main()
