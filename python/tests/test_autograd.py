"""The weighted sum as a torch.autograd.Function (tilec.ops.weighted_sum):
gradcheck in float64 (CPU backend, or the GPU), and float32 against torch's
own autograd."""

import unittest

from util import device, needs_torch, torch




@needs_torch
class WeightedSumTest(unittest.TestCase):
    def test_gradcheck_float64(self):
        from tilec.ops import weighted_sum
        for shape in ((37, 20), (3, 5, 40)):  # ragged tiles; leading dims flattened
            x = torch.randn(*shape, dtype=torch.float64, device=device(), requires_grad=True)
            w = torch.randn(shape[-1], dtype=torch.float64, device=device(), requires_grad=True)
            self.assertTrue(torch.autograd.gradcheck(weighted_sum, (x, w), eps=1e-6, atol=1e-7,
                                                     rtol=1e-6))

    def test_against_torch_float32(self):
        from tilec.ops import weighted_sum
        x = torch.randn(300, 130, device=device(), requires_grad=True)
        w = torch.randn(130, device=device(), requires_grad=True)
        g = torch.randn(300, device=device())
        y = weighted_sum(x, w)
        y.backward(g)
        xr = x.detach().double().requires_grad_()
        wr = w.detach().double().requires_grad_()
        yr = (xr * wr).sum(-1)
        yr.backward(g.double())
        torch.testing.assert_close(y.double(), yr, rtol=1e-4, atol=1e-4)
        torch.testing.assert_close(x.grad.double(), xr.grad, rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(w.grad.double(), wr.grad, rtol=1e-4, atol=1e-3)

    def test_strided_input(self):
        from tilec.ops import weighted_sum
        base = torch.randn(40, 64, dtype=torch.float64, device=device())
        x = base[:, ::2]  # not contiguous: read through its strides
        w = torch.randn(32, dtype=torch.float64, device=device())
        torch.testing.assert_close(weighted_sum(x, w), (x * w).sum(-1))


if __name__ == "__main__":
    unittest.main()
