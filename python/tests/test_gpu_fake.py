"""The GPU launch path without a GPU: on tilec's fake CUDA driver
(test/lib/FakeCuda, $TILEC_LIBCUDA; CTest python-gpu-fake), which records
each launch. Checks the generated launcher's packing (pointers, i32, fp32,
i1 words), the grid, block size (num_warps), stream, and that cached
launches load once. Skipped unless TILEC_FAKE_CUDA=1."""

import ctypes
import os
import struct
import unittest

import numpy as np

import util  # noqa: F401  (puts the checkout's package first)

import sys

import tilec
import tilec.language as tl

jitmod = sys.modules["tilec.jit"]  # the module (tilec.jit is the decorator)

FAKE = os.environ.get("TILEC_FAKE_CUDA") == "1" and os.environ.get("TILEC_LIBCUDA")


class Launch(ctypes.Structure):
    _fields_ = [("entry", ctypes.c_char * 128), ("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3),
                ("sharedBytes", ctypes.c_uint), ("stream", ctypes.c_void_p), ("numParams", ctypes.c_int),
                ("params", ctypes.c_uint8 * 1024), ("paramOffsets", ctypes.c_size_t * 64),
                ("paramSizes", ctypes.c_size_t * 64)]


class Stats(ctypes.Structure):
    _fields_ = [("moduleLoads", ctypes.c_uint64), ("ptxLoads", ctypes.c_uint64),
                ("launches", ctypes.c_uint64)]


class FakeCudaTensor:
    """What the launcher reads of a torch CUDA tensor."""

    def __init__(self, address, dtype="float32"):
        self.address = address
        self.dtype = np.dtype(dtype)
        self.is_cuda = True

    def data_ptr(self):
        return self.address


@tilec.jit
def fake_kernel(x_ptr, out_ptr, n, alpha, flag, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if flag:
        x = x * alpha
    tl.store(out_ptr + offs, x, mask=mask)


@unittest.skipUnless(FAKE, "needs TILEC_FAKE_CUDA=1 and TILEC_LIBCUDA (CTest python-gpu-fake)")
class FakeGpuTest(unittest.TestCase):
    def setUp(self):
        self.fake = ctypes.CDLL(os.environ["TILEC_LIBCUDA"])
        self.fake.tilecFakeCudaReset()
        tilec.set_backend("gpu")
        jitmod._cuda_override = (lambda: 0, lambda device: 0x5000)

    def tearDown(self):
        tilec.set_backend(None)
        jitmod._cuda_override = None

    def last(self):
        launch = Launch()
        self.fake.tilecFakeCudaLastLaunch(ctypes.byref(launch))
        return launch

    def stats(self):
        s = Stats()
        self.fake.tilecFakeCudaGetStats(ctypes.byref(s))
        return s

    def params(self, launch):
        return [bytes(launch.params[launch.paramOffsets[i]:launch.paramOffsets[i] + launch.paramSizes[i]])
                for i in range(launch.numParams)]

    def test_packing_grid_block_stream(self):
        x, out = FakeCudaTensor(0x7f0000001000), FakeCudaTensor(0x7f0000002010)
        for call, n in enumerate((1008, 1001, 1002)):
            fake_kernel[(7, 2)](x, out, n, 1.5, True, BLOCK=256)
            launch = self.last()
            self.assertEqual(launch.entry, b"fake_kernel")
            self.assertEqual((list(launch.grid), launch.block[0]), ([7, 2, 1], 128))
            self.assertEqual(launch.stream, 0x5000)
            p = self.params(launch)
            self.assertEqual(struct.unpack("<Q", p[0])[0], 0x7f0000001000)
            self.assertEqual(struct.unpack("<Q", p[1])[0], 0x7f0000002010)
            self.assertEqual(struct.unpack("<i", p[2])[0], n)
            self.assertEqual(struct.unpack("<f", p[3])[0], 1.5)
            self.assertEqual(p[4][:1], b"\x01")
        self.assertEqual(self.stats().launches, 3)
        self.assertEqual(self.stats().moduleLoads, 2)  # n = 1008 (i32:16) and 1001, 1002 (i32)
        spec = fake_kernel[(1,)](x, out, 1001, 1.5, True, BLOCK=256, num_warps=2)
        self.assertEqual(self.last().block[0], 64)
        self.assertIn("*fp32:16, *fp32:16, i32, fp32, i1, 256", spec.signature)
        # n == 1 is specialized away: one parameter fewer in the entry.
        fake_kernel[(1,)](x, out, 1, -2.0, False, BLOCK=256)
        p = self.params(self.last())
        self.assertEqual(len(p), 4)  # x, out, alpha, flag
        self.assertEqual(struct.unpack("<f", p[2])[0], -2.0)

    def test_persistent_launch(self):
        # persistent=True: the kernel walks the caller's grid, which arrives
        # as three hidden i32 arguments after its own; the launch is 1-D and
        # at most as many CTAs as the GPU runs at once (the fake's 132 SMs x
        # 16 CTAs of 128 threads).
        x, out = FakeCudaTensor(0x7f0000001000), FakeCudaTensor(0x7f0000002010)
        fake_kernel[(7, 2)](x, out, 1001, 1.5, True, BLOCK=256, persistent=True)
        launch = self.last()
        self.assertEqual(list(launch.grid), [14, 1, 1])
        p = self.params(launch)
        self.assertEqual(len(p), 8, p)
        self.assertEqual(struct.unpack("<i", p[2])[0], 1001)
        self.assertEqual([struct.unpack("<i", w)[0] for w in p[5:]], [7, 2, 1])
        fake_kernel[(5000,)](x, out, 1001, 1.5, True, BLOCK=256, persistent=True)
        launch = self.last()
        self.assertEqual(list(launch.grid), [132 * 16, 1, 1])
        self.assertEqual([struct.unpack("<i", w)[0] for w in self.params(launch)[5:]], [5000, 1, 1])
        # Without it, the caller's grid and the kernel's own arguments.
        fake_kernel[(5000,)](x, out, 1001, 1.5, True, BLOCK=256)
        launch = self.last()
        self.assertEqual(list(launch.grid), [5000, 1, 1])
        self.assertEqual(len(self.params(launch)), 5)

    def test_cpu_tensor_rejected(self):
        host = FakeCudaTensor(0x1000)
        host.is_cuda = False
        with self.assertRaises(tilec.LaunchError):
            fake_kernel[(1,)](host, host, 10, 1.0, True, BLOCK=256)


if __name__ == "__main__":
    unittest.main()
