"""tilec.autotune / heuristics / Config / testing.do_bench: the winner is one
of the configs and is recorded (another process reuses it without
benchmarking), pruning, restore_value, heuristics' values."""

import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

import numpy as np

from util import ROOT, device, poison, randn, torch

import tilec
import tilec.language as tl

CONFIGS = [tilec.Config({"BLOCK": 64}, num_warps=1), tilec.Config({"BLOCK": 128}, num_warps=2),
           tilec.Config({"BLOCK": 256}, num_warps=4)]


@tilec.jit
def add_one(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)


@tilec.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@tilec.jit
def scale(x_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        x = tl.load(x_ptr + offs)
        tl.store(out_ptr + offs, x * alpha)
    else:
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * alpha, mask=mask)


def arr(a):
    return a.copy() if torch is None else torch.from_numpy(np.array(a)).to(device())


def host(a):
    return a if isinstance(a, np.ndarray) else a.cpu().numpy()


class AutotuneTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.env = dict(os.environ)
        os.environ["TILEC_CACHE_DIR"] = self.tmp.name

    def tearDown(self):
        os.environ.clear()
        os.environ.update(self.env)
        self.tmp.cleanup()

    def test_config_keeps_num_ctas(self):
        # Config(num_ctas=2) reaches the launch and the record; num_ctas=1
        # changes neither (the records of earlier versions still match).
        clustered = tilec.Config({"BLOCK": 64}, num_warps=4, num_ctas=2)
        plain = tilec.Config({"BLOCK": 64}, num_warps=4)
        self.assertEqual(clustered.all_kwargs(),
                         {"BLOCK": 64, "num_warps": 4, "num_stages": 3, "num_ctas": 2})
        self.assertEqual(plain.all_kwargs(), {"BLOCK": 64, "num_warps": 4, "num_stages": 3})
        self.assertNotEqual(clustered, plain)
        self.assertEqual(plain._record(),
                         {"kwargs": {"BLOCK": 64}, "num_warps": 4, "num_stages": 3})
        self.assertIn("num_ctas=2", repr(clustered))

    def test_winner_restore_value_and_record(self):
        tuned = tilec.autotune(configs=CONFIGS, key=["n"], restore_value=["x_ptr"], warmup=1, rep=3)(add_one)
        n = 1000
        x0 = randn(n)
        x = arr(x0)
        tuned[lambda m: (tilec.cdiv(m["n"], m["BLOCK"]),)](x, n)
        self.assertIn(tuned.best_config, CONFIGS)
        self.assertEqual(tuned.benchmarks, 3)
        # Benchmarked 3 configs many times, yet x was incremented once.
        np.testing.assert_allclose(host(x), x0.astype(np.float64) + 1, rtol=1e-6)
        tuned[lambda m: (tilec.cdiv(m["n"], m["BLOCK"]),)](x, n)
        self.assertEqual(tuned.benchmarks, 3)  # cached for this key
        np.testing.assert_allclose(host(x), x0.astype(np.float64) + 2, rtol=1e-6)
        # A new autotuner (another process) reads the record: no benchmark.
        again = tilec.autotune(configs=CONFIGS, key=["n"], restore_value=["x_ptr"])(add_one)
        again[lambda m: (tilec.cdiv(m["n"], m["BLOCK"]),)](x, n)
        self.assertEqual(again.benchmarks, 0)
        self.assertEqual(again.best_config, tuned.best_config)
        # Another key is tuned again.
        again[lambda m: (tilec.cdiv(m["n"], m["BLOCK"]),)](x, 500)
        self.assertEqual(again.benchmarks, 3)

    def test_record_across_processes(self):
        script = textwrap.dedent(f"""
            import sys; sys.path.insert(0, {os.path.join(ROOT, 'python')!r}); sys.path.insert(0, {os.path.dirname(__file__)!r})
            import numpy as np, tilec, test_autotune as t
            tilec.set_backend("cpu")
            tuned = tilec.autotune(configs=t.CONFIGS, key=["n"], restore_value=["x_ptr"], warmup=1, rep=2)(t.add_one)
            x = np.zeros(300, np.float32)
            tuned[lambda m: (tilec.cdiv(m["n"], m["BLOCK"]),)](x, 300)
            assert (x == 1).all()
            print(tuned.benchmarks, tuned.best_config)
        """)
        runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                               timeout=120, env=os.environ) for _ in range(2)]
        for r in runs:
            self.assertEqual(r.returncode, 0, r.stderr)
        first, second = (r.stdout.split(" ", 1) for r in runs)
        self.assertEqual((first[0], second[0]), ("3", "0"))
        self.assertEqual(first[1], second[1])

    def test_pruning(self):
        seen = []

        def early(configs, named):
            seen.append(named["n"])
            return [c for c in configs if c.kwargs["BLOCK"] <= named["n"]]

        tuned = tilec.autotune(configs=CONFIGS, key=["n"],
                               prune_configs_by={"early_config_prune": early,
                                                 "perf_model": lambda **kw: -kw["BLOCK"], "top_k": 1},
                               restore_value=["x_ptr"])(add_one)
        x0 = randn(200)
        x = arr(x0)
        tuned[lambda m: (tilec.cdiv(m["n"], m["BLOCK"]),)](x, 200)
        # BLOCK 256 pruned early, the perf model then prefers the largest left.
        self.assertEqual(tuned.best_config.kwargs, {"BLOCK": 128})
        self.assertEqual(tuned.benchmarks, 0)
        self.assertEqual(seen, [200])
        np.testing.assert_allclose(host(x), x0.astype(np.float64) + 1, rtol=1e-6)

    def test_heuristics(self):
        for n in (512, 500):
            x = arr(randn(n))
            out = arr(poison(n))
            spec = scale[(tilec.cdiv(n, 128),)](x, out, n, 2.5, BLOCK=128)
            self.assertTrue(spec.signature.endswith("128, " + ("True" if n == 512 else "False")),
                            spec.signature)
            np.testing.assert_allclose(host(out), host(x).astype(np.float64) * 2.5, rtol=1e-6)

    def test_do_bench(self):
        x = arr(randn(4096))
        ms = tilec.testing.do_bench(lambda: add_one[(16,)](x, 4096, BLOCK=256), warmup=1, rep=5)
        self.assertGreater(ms, 0)
        q = tilec.testing.do_bench(lambda: add_one[(16,)](x, 4096, BLOCK=256), warmup=1, rep=5,
                                   quantiles=[0.2, 0.5, 0.8])
        self.assertEqual(len(q), 3)
        self.assertLessEqual(q[0], q[2])


if __name__ == "__main__":
    unittest.main()
