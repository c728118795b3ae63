"""@tilec.jit: launch on numpy / torch, specialization, helpers and module
constants, errors as exceptions, compile_file (the CPU backend without a
GPU; the same tests run on the GPU with torch CUDA tensors)."""

import os
import subprocess
import sys
import textwrap
import unittest

import numpy as np

from util import ROOT, device, needs_torch, poison, randn, rng, torch

import tilec
import tilec.language as tl

SCALE: tl.constexpr = 3
OFFSET = 0.5


@tilec.jit
def scaled(x):
    return x * SCALE + OFFSET


@tilec.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@tilec.jit
def axpy_kernel(x_ptr, out_ptr, n, alpha, stride, BLOCK: tl.constexpr, USE_HELPER: tl.constexpr = True):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs * stride, mask=mask)
    if USE_HELPER:
        x = scaled(x)
    tl.store(out_ptr + offs, alpha * x, mask=mask)


@tilec.jit
def bad_kernel(x_ptr, n):
    offs = tl.arange(0, n)
    tl.store(x_ptr + offs, offs)


@tilec.jit
def prefix_rows_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    # Program i sums rows 0..i: its loop runs more iterations for a larger
    # program_id(0), so tilegpu-longest-first applies (the PTX counts the
    # program ids down from %nctaid.x) unless longest_first=False.
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in range(0, pid + 1):
        acc += tl.load(x_ptr + i * BLOCK + offs)
    tl.store(out_ptr + pid * BLOCK + offs, acc)


@tilec.jit
def gemm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # A warpgroup dot whose masked 2-d store of C is a TMA box: with
    # tma_store=True (tilegpu-store-via-tma) it goes through shared memory.
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        acc += tl.dot(tl.load(a_ptrs), tl.load(b_ptrs))
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :],
             acc.to(c_ptr.dtype.element_ty), mask=c_mask)


def on_device(a):
    """numpy without torch; a torch tensor on this run's device with it."""
    return a if torch is None else torch.from_numpy(a).to(device())


def host(a):
    return a if isinstance(a, np.ndarray) else a.cpu().numpy()


class JitTest(unittest.TestCase):
    def test_add_numpy(self):
        if tilec.backend() != "cpu":
            self.skipTest("numpy arrays run on the CPU backend")
        for n in (1, 100, 1000, 4097):
            x, y = randn(n), randn(n)
            out = poison(n)
            add_kernel[(tilec.cdiv(n, 256),)](x, y, out, n, BLOCK=256)
            np.testing.assert_allclose(out, x.astype(np.float64) + y, rtol=1e-6)

    def test_numpy_views_addresses_and_alignment(self):
        # The launcher reads a numpy array's address from the array object
        # (jit._numpy_address_reader); views at every offset, misaligned or
        # not, a subclass (the generic path), alternately on one kernel.
        jitmod = sys.modules["tilec.jit"]
        base = randn(3 * 70)
        for a in (base, base[1:], base[3:67], base[::-2], base.reshape(3, 70)[1:, 5:].T, base[:0]):
            self.assertEqual(jitmod._address(a), a.__array_interface__["data"][0])
        if tilec.backend() != "cpu":
            self.skipTest("numpy arrays run on the CPU backend")

        class Sub(np.ndarray):
            pass
        n = 61
        signatures = set()
        for round_ in range(2):
            for off in (0, 1, 4, 3):
                x, y = base[off:off + n], base[100 + off:100 + off + n]
                out = poison(n + 4)[off:off + n]
                if off == 3:
                    x, out = x.view(Sub), out.view(Sub)
                spec = add_kernel[(1,)](x, y, out, n, BLOCK=64)
                signatures.add(spec.signature)
                np.testing.assert_allclose(np.asarray(out), x.astype(np.float64) + y, rtol=1e-6)
        self.assertIn("*fp32:16, *fp32:16, *fp32:16, i32, 64", signatures)
        self.assertIn("*fp32, *fp32, *fp32, i32, 64", signatures)

    @needs_torch
    def test_add_torch(self):
        n = 3000
        x, y = randn(n), randn(n)
        tx, ty = on_device(x), on_device(y)
        out = torch.full((n,), float("nan"), device=device())
        add_kernel[lambda meta: (tilec.cdiv(meta["n"], meta["BLOCK"]),)](tx, ty, out, n, BLOCK=512)
        np.testing.assert_allclose(host(out), x.astype(np.float64) + y, rtol=1e-6)

    def test_helper_constants_and_options(self):
        n = 777
        x = on_device(randn(2 * n))
        out = on_device(poison(n))
        alpha = float(np.float32(rng.uniform(0.5, 2)))  # what the kernel gets (fp32)
        axpy_kernel[(tilec.cdiv(n, 128),)](x, out, n, alpha, 2, BLOCK=128, num_warps=2)
        xs = host(x)[::2].astype(np.float64)
        np.testing.assert_allclose(host(out), alpha * (xs * SCALE + OFFSET), rtol=1e-5, atol=1e-5)
        out2 = on_device(poison(n))
        axpy_kernel[(tilec.cdiv(n, 128),)](x, out2, n, alpha, 2, BLOCK=128, USE_HELPER=False)
        np.testing.assert_allclose(host(out2), alpha * xs, rtol=1e-5)

    def test_specialization(self):
        n = 64
        x = on_device(randn(n))
        out = on_device(poison(n))
        spec = add_kernel[(1,)](x, x, out, n, BLOCK=64)
        ptr = "*fp32:16"
        self.assertEqual(spec.signature, f"{ptr}, {ptr}, {ptr}, i32:16, 64")
        spec = add_kernel[(1,)](x, x, out, 1, BLOCK=64)
        self.assertEqual(spec.signature, f"{ptr}, {ptr}, {ptr}, 1, 64")
        spec = add_kernel[(1,)](x, x, out, 63, BLOCK=64)
        self.assertEqual(spec.signature, f"{ptr}, {ptr}, {ptr}, i32, 64")
        np.testing.assert_allclose(host(out)[:63], 2 * host(x)[:63].astype(np.float64), rtol=1e-6)
        spec = add_kernel[(1,)](x[1:] if torch is None else x[1:], x, out, 5, BLOCK=64)
        self.assertTrue(spec.signature.startswith("*fp32, *fp32:16"), spec.signature)
        # Large integers become i64 (the kernel masks everything past n=2^40 in: nothing stored
        # out of bounds since offsets < 64 < n... only the first block runs).
        spec = add_kernel[(1,)](x, x, out, 1 << 40, BLOCK=64)
        self.assertIn("i64:16", spec.signature)

    def test_kernel_defined_in_a_function(self):
        # Compiled from its own text: closure constants, a local helper and
        # a module-level helper of this file come with it.
        factor = 7

        @tilec.jit
        def local_helper(x):
            return x * factor

        @tilec.jit
        def local_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            mask = offs < n
            tl.store(out_ptr + offs, local_helper(scaled(tl.load(x_ptr + offs, mask=mask))), mask=mask)

        n = 50
        x = on_device(randn(n))
        out = on_device(poison(n))
        local_kernel[(1,)](x, out, n, BLOCK=64)
        np.testing.assert_allclose(host(out), (host(x).astype(np.float64) * SCALE + OFFSET) * factor, atol=1e-5,
                                   rtol=1e-5)
        self.assertIn("factor: tl.constexpr = 7", local_kernel.source())

    def test_compile_error_is_located(self):
        x = on_device(poison(16))
        with self.assertRaises(tilec.CompilationError) as ctx:
            bad_kernel[(1,)](x, 16)
        text = str(ctx.exception)
        here = os.path.abspath(__file__)
        self.assertIn(f"{here}:", text)
        self.assertIn("error: argument 'end' of tl.arange() must be a compile-time integer", text)
        self.assertIn("    offs = tl.arange(0, n)\n", text)
        self.assertRegex(text, r"\n +\^")

    def test_argument_errors(self):
        x = on_device(poison(16))
        with self.assertRaises(TypeError):
            add_kernel[(1,)](x, x, x, BLOCK=16)  # n missing
        with self.assertRaises(TypeError):
            add_kernel[(1,)](x, x, x, 16, BLOCK=16, WRONG=1)
        with self.assertRaises(TypeError):
            add_kernel[(1,)](x, x, "str", 16, BLOCK=16)
        with self.assertRaises(RuntimeError):
            add_kernel(x, x, x, 16, BLOCK=16)  # called, not launched
        with self.assertRaises(tilec.LaunchError):
            add_kernel[(1, 1 << 17, 1)](x, x, x, 0, BLOCK=16)

    def test_compile_file(self):
        k = tilec.compile_file(os.path.join(ROOT, "examples", "vector_add.tile"))
        self.assertEqual(k.name, "add_kernel")
        self.assertEqual(k.arg_names, ["x_ptr", "y_ptr", "output_ptr", "n_elements", "BLOCK_SIZE"])
        n = 2049
        x, y = on_device(randn(n)), on_device(randn(n))
        out = on_device(poison(n))
        k[(tilec.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)
        np.testing.assert_allclose(host(out), host(x).astype(np.float64) + host(y), rtol=1e-6)
        with self.assertRaises(tilec.CompilationError):
            tilec.compile_file(os.path.join(ROOT, "examples", "vector_add.tile"), kernel="nope")

    def test_gpu_compile_without_gpu(self):
        compiled = add_kernel.compile("*fp32:16, *fp32:16, *fp32:16, i32, 1024")
        self.assertIn(".entry add_kernel", compiled.asm["ptx"])
        self.assertEqual(len(compiled.cache_key), 64)
        self.assertEqual(compiled.metadata["name"], "add_kernel")

    def test_edited_helper_or_constant_never_runs_old_kernel(self):
        # A module in a temporary directory, run by two processes sharing one
        # disk cache; between them its helper and its constant change.
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            mod = os.path.join(tmp, "edited.py")
            helper_mod = os.path.join(tmp, "helpers.py")
            script = textwrap.dedent("""
                import sys, numpy as np
                sys.path.insert(0, {tmp!r}); sys.path.insert(0, {py!r})
                import tilec, edited
                tilec.set_backend("cpu")
                x = np.arange(16, dtype=np.float32); out = np.full(16, np.nan, np.float32)
                edited.k[(1,)](x, out, BLOCK=16)
                print(float(out[3]), edited.k.compile("*fp32:16, *fp32:16, 16").cache_key)
            """).format(tmp=tmp, py=os.path.join(ROOT, "python"))
            env = dict(os.environ, TILEC_CACHE_DIR=os.path.join(tmp, "cache"))
            results = []
            for c, h in ((2, "x + 1"), (5, "x + 1"), (5, "x * 10")):
                with open(helper_mod, "w") as f:
                    f.write(f"import tilec\n\n@tilec.jit\ndef h(x):\n    return {h}\n")
                with open(mod, "w") as f:
                    f.write("import tilec\nimport tilec.language as tl\nfrom helpers import h\n"
                            f"C: tl.constexpr = {c}\n\n@tilec.jit\ndef k(x_ptr, o_ptr, BLOCK: tl.constexpr):\n"
                            "    i = tl.arange(0, BLOCK)\n"
                            "    tl.store(o_ptr + i, h(tl.load(x_ptr + i)) * C)\n")
                run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                                     text=True, timeout=120)
                self.assertEqual(run.returncode, 0, run.stderr)
                value, key = run.stdout.split()
                results.append((float(value), key))
            self.assertEqual([v for v, _ in results], [8.0, 20.0, 150.0])
            self.assertEqual(len({k for _, k in results}), 3)


class PassSwitchTest(unittest.TestCase):
    """The pass switches of `tilec` (--longest-first, --ping-pong, ...) as
    keywords of a compile and a launch: checked, part of the cache key,
    applied (compiles need no GPU: PTX and the key)."""

    SIGNATURE = "*fp32:16, *fp32:16, 128"
    DEFAULTS = dict(use_wgmma=True, use_mma=True, use_tma=True, use_cp_async=True,
                    warp_specialize="auto", ping_pong=None, intra_warpgroup_overlap=None,
                    num_ctas=1, longest_first=True, prefetch_loads=True,
                    issue_dots_early=True, mbarrier_spin_limit=0, enable_fp_fusion=True,
                    persistent=False, tma_store=False)

    def test_compile_keywords_reach_the_compiler_and_the_key(self):
        default = prefix_rows_kernel.compile(self.SIGNATURE)
        self.assertIn("%nctaid.x", default.asm["ptx"])
        off = prefix_rows_kernel.compile(self.SIGNATURE, longest_first=False)
        self.assertNotIn("%nctaid", off.asm["ptx"])
        # The defaults given explicitly are the compiler's own (the C API's
        # tilec_options_init): the same kernel, the same key.
        self.assertEqual(prefix_rows_kernel.compile(self.SIGNATURE, **self.DEFAULTS).cache_key,
                         default.cache_key)
        self.assertEqual(tilec.SWITCHES, self.DEFAULTS)
        keys = {default.cache_key, off.cache_key}
        for change in (dict(use_wgmma=False), dict(use_mma=False), dict(use_tma=False),
                       dict(use_cp_async=False), dict(warp_specialize="off"),
                       dict(ping_pong=True), dict(ping_pong=False),
                       dict(intra_warpgroup_overlap=True), dict(intra_warpgroup_overlap=False),
                       dict(num_ctas=2), dict(prefetch_loads=False),
                       dict(issue_dots_early=False), dict(mbarrier_spin_limit=1000),
                       dict(enable_fp_fusion=False), dict(persistent=True),
                       dict(tma_store=True)):
            key = prefix_rows_kernel.compile(self.SIGNATURE, **change).cache_key
            self.assertNotIn(key, keys, change)
            keys.add(key)

    def test_enable_fp_fusion(self):
        # Triton's enable_fp_fusion=False: every add rounds on its own
        # (add.rn, which ptxas never fuses with a multiply); by default the
        # loop's adds carry no rounding modifier.
        fused = prefix_rows_kernel.compile(self.SIGNATURE).asm["ptx"]
        self.assertIn("add.f32", fused)
        self.assertNotIn("add.rn.f32", fused)
        strict = prefix_rows_kernel.compile(self.SIGNATURE, enable_fp_fusion=False).asm["ptx"]
        self.assertIn("add.rn.f32", strict)
        self.assertNotIn("add.f32", strict)

    def test_persistent(self):
        # persistent=True (--persistent) reaches the compiler: an elementwise
        # kernel is made persistent (its metadata says so: the runtime
        # launches as many CTAs as the GPU runs at once), ...
        signature = "*fp32:16, *fp32:16, *fp32:16, i32, 1024"
        plain = add_kernel.compile(signature)
        persistent = add_kernel.compile(signature, persistent=True)
        self.assertIs(plain.metadata["persistent"], False)
        self.assertIs(persistent.metadata["persistent"], True)
        self.assertNotEqual(persistent.cache_key, plain.cache_key)
        self.assertNotEqual(persistent.asm["ptx"], plain.asm["ptx"])
        self.assertEqual(add_kernel.compile(signature, persistent=False).cache_key,
                         plain.cache_key)
        # ... one whose programs run different numbers of loop iterations
        # is left as it is (the same PTX under another key).
        rows = prefix_rows_kernel.compile(self.SIGNATURE)
        rows_persistent = prefix_rows_kernel.compile(self.SIGNATURE, persistent=True)
        self.assertIs(rows_persistent.metadata["persistent"], False)
        self.assertEqual(rows_persistent.asm["ptx"], rows.asm["ptx"])
        self.assertNotEqual(rows_persistent.cache_key, rows.cache_key)

    def test_tma_store(self):
        # tma_store=True (--tma-store) reaches the compiler: the gemm's C
        # tile is copied to global memory by TMA (a bulk tensor copy from
        # shared memory), which it is not by default nor without TMA.
        signature = ("*fp16:16, *fp16:16, *fp16:16, i32, i32, i32:16, i32:16, i32:16, i32:16, "
                     "64, 64, 64")
        tma_store = "cp.async.bulk.tensor.2d.global.shared::cta"
        plain = gemm_kernel.compile(signature, num_stages=2)
        stored = gemm_kernel.compile(signature, num_stages=2, tma_store=True)
        self.assertNotIn(tma_store, plain.asm["ptx"])
        self.assertIn(tma_store, stored.asm["ptx"])
        self.assertNotEqual(stored.cache_key, plain.cache_key)
        self.assertEqual(gemm_kernel.compile(signature, num_stages=2, tma_store=False).cache_key,
                         plain.cache_key)
        no_tma = gemm_kernel.compile(signature, num_stages=2, tma_store=True, use_tma=False)
        self.assertNotIn(tma_store, no_tma.asm["ptx"])

    def test_persistent_launch(self):
        # On the GPU a persistent launch of more programs than it runs CTAs
        # at once; on the CPU backend (which ignores the pass switches) the
        # same results.
        n, block = 5000, 128
        x, y = randn(n), randn(n)
        for options in (dict(persistent=True), dict(persistent=False)):
            out = on_device(poison(n))
            grid = ((n + block - 1) // block,)
            add_kernel[grid](on_device(x), on_device(y), out, n, BLOCK=block, **options)
            np.testing.assert_allclose(host(out), x + y, rtol=1e-6, err_msg=str(options))

    def test_bad_values_are_refused(self):
        for change, error in ((dict(ping_pong="on"), TypeError), (dict(longest_first=None), TypeError),
                              (dict(num_ctas=3), ValueError), (dict(warp_specialize="yes"), ValueError),
                              (dict(mbarrier_spin_limit=-1), ValueError),
                              (dict(enable_fp_fusion=0), TypeError),
                              (dict(persistent=1), TypeError), (dict(persistent=None), TypeError),
                              (dict(tma_store=1), TypeError), (dict(tma_store="on"), TypeError)):
            with self.assertRaises(error, msg=str(change)):
                prefix_rows_kernel.compile(self.SIGNATURE, **change)
        with self.assertRaisesRegex(TypeError, "longest_frist"):
            prefix_rows_kernel.compile(self.SIGNATURE, longest_frist=False)

    def test_launch_keywords(self):
        rows, block = 5, 128
        x = randn(rows * block)
        expected = np.cumsum(x.reshape(rows, block).astype(np.float64), axis=0).ravel()
        specs = []
        for options in (dict(), dict(longest_first=False, ping_pong=False, num_ctas=2),
                        dict(prefetch_loads=False, intra_warpgroup_overlap=True, use_tma=False),
                        dict(enable_fp_fusion=False), dict(persistent=True),
                        dict(tma_store=True)):
            out = on_device(poison(rows * block))
            spec = prefix_rows_kernel[(rows,)](on_device(x), out, BLOCK=block, **options)
            np.testing.assert_allclose(host(out), expected, rtol=1e-5, atol=1e-5, err_msg=str(options))
            # Launched again with the same keywords: the same specialization.
            self.assertIs(prefix_rows_kernel[(rows,)](on_device(x), out, BLOCK=block, **options), spec)
            specs.append(spec)
        # Other switches, another specialization (compiled with them).
        self.assertEqual(len({id(spec) for spec in specs}), len(specs))
        with self.assertRaises(ValueError):
            prefix_rows_kernel[(rows,)](on_device(x), out, BLOCK=block, num_ctas=3)
        with self.assertRaises(TypeError):
            prefix_rows_kernel[(rows,)](on_device(x), out, BLOCK=block, ping_pong="auto")

    def test_cached_launch_with_switches_takes_the_fast_path(self):
        # The generated launcher keys switches given as keywords itself: a
        # cached launch with them never reaches the generic path (run, and
        # _launch behind it), which is counted here, not timed.
        rows, block = 3, 128
        x = on_device(randn(rows * block))
        out = on_device(poison(rows * block))
        expected = np.cumsum(host(x).reshape(rows, block).astype(np.float64), axis=0).ravel()
        kernel = prefix_rows_kernel
        calls = []
        for name in ("run", "_launch"):
            generic = getattr(kernel, name)

            def counted(*args, _name=name, _generic=generic, **kwargs):
                calls.append(_name)
                return _generic(*args, **kwargs)
            setattr(kernel, name, counted)
            self.addCleanup(delattr, kernel, name)
        switches = dict(longest_first=False, enable_fp_fusion=False, num_ctas=2)
        default = kernel[(rows,)](x, out, BLOCK=block)
        first = kernel[(rows,)](x, out, BLOCK=block, **switches)
        self.assertIsNot(first, default)
        calls.clear()  # the first launch of each compiles: generic
        for _ in range(3):
            out = on_device(poison(rows * block))
            self.assertIs(kernel[(rows,)](x, out, BLOCK=block, **switches), first)
            np.testing.assert_allclose(host(out), expected, rtol=1e-5, atol=1e-5)
        # Other orders and spellings of the same switches, and the defaults
        # given explicitly, are the same specializations.
        self.assertIs(kernel[(rows,)](x, out, BLOCK=block, num_ctas=2, enable_fp_fusion=False,
                                      longest_first=False, ping_pong=None), first)
        self.assertIs(kernel[(rows,)](x, out, BLOCK=block, **dict(tilec.SWITCHES)), default)
        self.assertIs(kernel[lambda meta: (rows,)](x, out, BLOCK=block, **switches), first)
        self.assertEqual(calls, [])
        # A value that equals a valid one but has another type is refused
        # on the fast path too, however often the valid one was seen.
        with self.assertRaises(TypeError):
            kernel[(rows,)](x, out, BLOCK=block, longest_first=0, enable_fp_fusion=False,
                            num_ctas=2)
        with self.assertRaises(ValueError):
            kernel[(rows,)](x, out, BLOCK=block, num_ctas=3)
        self.assertEqual(calls, [])
        # New switches miss once; other keywords (stream=) and misspellings
        # take the generic path.
        kernel[(rows,)](x, out, BLOCK=block, prefetch_loads=False)
        self.assertEqual(calls, ["_launch"])
        calls.clear()
        kernel[(rows,)](x, out, BLOCK=block, prefetch_loads=False)
        self.assertEqual(calls, [])
        kernel[(rows,)](x, out, BLOCK=block, longest_first=False, stream=None)
        self.assertEqual(calls[0], "run")
        with self.assertRaisesRegex(TypeError, "longest_frist"):
            kernel[(rows,)](x, out, BLOCK=block, longest_frist=False)


if __name__ == "__main__":
    unittest.main()
