"""tilec.TensorDescriptor: host-built descriptors passed as kernel arguments
(loads and stores through them, ragged edges, a strided view)."""

import unittest

import numpy as np

from util import device, needs_torch, rng, torch

import tilec
import tilec.language as tl


@tilec.jit
def scale_2d(in_desc, out_desc, alpha,
             BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    x = in_desc.load([pid_m * BM, pid_n * BN])
    out_desc.store([pid_m * BM, pid_n * BN], x * alpha)


@needs_torch
class DescriptorTest(unittest.TestCase):
    def test_scale_through_descriptors(self):
        m, n = 70, 90
        x = torch.from_numpy(rng.standard_normal((m, 2 * n)).astype(np.float32)).to(device())[:, :n]
        out = torch.full((m, n), float("nan"), device=device())
        a = tilec.TensorDescriptor.from_tensor(x, block_shape=[32, 32])
        b = tilec.TensorDescriptor(out, out.shape, out.stride(), [32, 32])
        spec = scale_2d[(tilec.cdiv(m, 32), tilec.cdiv(n, 32))](a, b, 1.5, BM=32, BN=32)
        self.assertIn("1, ", spec.signature)  # the last strides specialized to 1
        torch.testing.assert_close(out.double(), x.double() * 1.5, rtol=1e-6, atol=1e-6)
        # The source rewrite kept the body on its lines (two-line signature).
        variant = next(iter(scale_2d._variants.values()))
        line = "    x = in_desc.load([pid_m * BM, pid_n * BN])"
        self.assertEqual(variant.source().splitlines().index(line), scale_2d.source().splitlines().index(line))
        self.assertIn("in_desc = tl.make_tensor_descriptor(in_desc_base", variant.source())

    def test_bad_descriptor(self):
        x = torch.zeros(4, 4, device=device())
        with self.assertRaises(ValueError):
            tilec.TensorDescriptor(x, [4, 4], [4], [2, 2])


class DescriptorSourceTest(unittest.TestCase):
    def test_nan_padding_in_the_rewritten_source(self):
        source = ("@tilec.jit\n"
                  "def k(d, BM: tl.constexpr):\n"
                  "    x = d.load([0, 0])\n")
        desc = tilec.TensorDescriptor(None, [8, 16], [16, 1], [8, 16], padding="nan")
        text, names, _ = tilec.tensor_descriptor.expand_source(source, "k", {"d": desc})
        self.assertIn('block_shape=[8, 16], padding_option="nan")', text)
        self.assertEqual(names, ["d_base", "d_shape0", "d_shape1", "d_stride0", "d_stride1", "BM"])
        with self.assertRaises(ValueError):
            tilec.TensorDescriptor(None, [8, 16], [16, 1], [8, 16], padding="one")


if __name__ == "__main__":
    unittest.main()
