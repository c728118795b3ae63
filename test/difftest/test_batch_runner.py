#!/usr/bin/env python3
"""The batch runner of difftest.py (BatchRunner) on the CPU backend: a
program that crashes the `tilec run --batch` process is reported `crash`
with what it printed and the next program gets a fresh process; a request
over its timeout is `timeout` (process killed, restarted); results match
one process per program.

  test_batch_runner.py TILEC     (run by scripts/difftest.sh)
"""
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import difftest  # noqa: E402

ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
INPUTS = os.path.join(ROOT, "test", "tilec", "Inputs")
ADD = [os.path.join(ROOT, "examples", "vector_add.tile"), "--signature",
       "*fp32, *fp32, *fp32, i32, 1024", "--grid", "4", "--arg", "n_elements=4000",
       "--buffer-size", "4096"]
CRASH = [os.path.join(INPUTS, "batch-crash.tile"), "--signature", "*fp32, i64", "--grid", "1",
         "--arg", "off=100000000000", "--buffer-size", "16"]
TILEC = None


class BatchRunnerTest(unittest.TestCase):
    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="difftest-runner-test-")
        self.runner = difftest.BatchRunner(TILEC, None, self.work, "cpu")

    def tearDown(self):
        self.runner.stop()
        shutil.rmtree(self.work, ignore_errors=True)

    def request(self, args, timeout=60):
        return self.runner.request(args, timeout)

    def test_crash_is_reported_and_the_next_request_restarts(self):
        kind, r, _, started = self.request(ADD)
        self.assertEqual((kind, r["status"], started), ("result", 0, True))
        first = r["output"]
        kind, r, _, started = self.request(ADD + ["--seed", "1"])
        self.assertEqual((kind, started), ("result", False))
        kind, r, text, _ = self.request(CRASH)
        self.assertEqual(kind, "crash")
        self.assertIn("the kernel crashed on the CPU backend", text)
        kind, r, _, started = self.request(ADD)
        self.assertEqual((kind, r["status"], started), ("result", 0, True))
        fnv = lambda out: [ln for ln in out.splitlines() if "fnv1a" in ln]  # noqa: E731
        self.assertEqual(fnv(r["output"]), fnv(first))

    def test_timeout_kills_and_restarts(self):
        kind, _, _, _ = self.request(ADD + ["--repeat", "1000000"], timeout=1)
        self.assertEqual(kind, "timeout")
        kind, r, _, started = self.request(ADD)
        self.assertEqual((kind, r["status"], started), ("result", 0, True))

    def test_errors_stay_in_the_batch(self):
        kind, r, _, started = self.request(ADD + ["--no-such-option"])
        self.assertEqual((kind, r["status"], started), ("result", 1, True))
        self.assertIn("--no-such-option", r["diagnostics"])
        kind, r, _, started = self.request(ADD)
        self.assertEqual((kind, r["status"], started), ("result", 0, False))

    def test_sanitizer_reports_fail_the_program(self):
        self.assertEqual(difftest.sanitizer_errors([
            "========= COMPUTE-SANITIZER", "========= ERROR SUMMARY: 0 errors"]), [])
        self.assertEqual(len(difftest.sanitizer_errors([
            "========= Invalid __global__ read of size 4 bytes", "kernel ok"])), 1)


if __name__ == "__main__":
    TILEC = sys.argv.pop(1)
    unittest.main(verbosity=1)
