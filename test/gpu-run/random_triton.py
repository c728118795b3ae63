"""Compares what random.sh's tilec runs wrote with Triton itself (run by random.sh
when torch, triton and a GPU are there): the same counters through
tl.randint/randint4x/rand/randn for int32 and int64 offsets.

  random_triton.py DIR SEED
Prints one `name: ok` / `name: FAIL ...` line per check; exit 1 on failure.
"""
import sys

import numpy as np
import torch
import triton
import triton.language as tl

N = 128


@triton.jit
def _kernel(int_ptr, int4_ptr, uni_ptr, nrm_ptr, int64_ptr, seed, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    offs = i * 7919
    tl.store(int_ptr + i, tl.randint(seed, offs))
    a, b, c, d = tl.randint4x(seed, offs)
    tl.store(int4_ptr + 4 * i, a)
    tl.store(int4_ptr + 4 * i + 1, b)
    tl.store(int4_ptr + 4 * i + 2, c)
    tl.store(int4_ptr + 4 * i + 3, d)
    tl.store(uni_ptr + i, tl.rand(seed, offs))
    tl.store(nrm_ptr + i, tl.randn(seed, offs))
    tl.store(int64_ptr + i, tl.randint(seed, i.to(tl.int64) * 0x100000001))


def main(d, seed):
    dev = "cuda"
    out = {
        "int": torch.zeros(N, dtype=torch.int32, device=dev),
        "int4": torch.zeros(4 * N, dtype=torch.int32, device=dev),
        "uni": torch.zeros(N, dtype=torch.float32, device=dev),
        "nrm": torch.zeros(N, dtype=torch.float32, device=dev),
        "int64": torch.zeros(N, dtype=torch.int64, device=dev),
    }
    _kernel[(2,)](out["int"], out["int4"], out["uni"], out["nrm"], out["int64"], seed, BLOCK=64)
    ok = True
    for name, dtype in (("int", np.uint32), ("int4", np.uint32), ("uni", np.float32), ("nrm", np.float32),
                        ("int64", np.uint64)):
        want = out[name].cpu().numpy().view(dtype)
        got = np.fromfile("%s/%s.bin" % (d, name), dtype=dtype)
        if name == "nrm":
            good = got.shape == want.shape and np.allclose(got, want, rtol=1e-4, atol=1e-4)
        else:
            good = got.shape == want.shape and np.array_equal(got, want)
        ok &= bool(good)
        detail = "" if good else " max diff %s" % (np.max(np.abs(got.astype(np.float64) - want.astype(np.float64)))
                                                   if got.shape == want.shape else "shapes differ")
        print("triton %s: %s%s" % (name, "ok" if good else "FAIL", detail))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2], 0)))
