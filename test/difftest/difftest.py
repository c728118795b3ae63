#!/usr/bin/env python3
"""Differential testing of tilec (issue 15): random tile programs
(tilegen.py) run on tilec's CPU backend, its GPU backend and Triton, each
checked against the program's float64 / exact-integer reference.

  difftest.py run [--backends cpu,gpu,triton,ptx] [--seed S] [--count N]
                  [--jobs J] [--tilec PATH] [--work DIR] [--reduce]
                  [--save-dir DIR] [--json FILE] [--time-limit S]
                  [--runner batch|process]
  difftest.py show SEED            print one program and its command line
  difftest.py replay CASE.json...  re-run saved (reduced) cases; exit 1 on
                                   any failure (the regression tests); on
                                   the CPU and, for a case found there, ptx
                                   (or on --backends)
  difftest.py reduce SEED --backends B   reduce one failing program

Backend ptx only compiles for the GPU (PTX, and a cubin when ptxas is
there): the GPU lowering checked on a machine without a GPU.

Runner: by default (--runner batch) every job keeps one `tilec run --batch`
process per backend (tools/tilec/RunBatch.cpp: one MLIRContext and, on the
GPU, one CUDA context for all its programs) and feeds it the programs'
`tilec run` arguments in order. A program that crashes the process is
reported `crash` with what it printed, one that gives no result within
--timeout is `timeout`; either way the process is killed and a fresh one
serves the next program. --runner process starts one `tilec run` per
program instead (what --wrap tools that need a process per program want).
The summary ends with where the time went: per backend, the compile
(frontend, passes, code generation) and launch seconds summed over the
programs, from the runs' own timings, and the rest of their wall time.

A program fails on a backend when tilec (or Triton) rejects or crashes on
it, times out, writes outside what it stores, or gives an element outside
the reference's error bound (integers: not exactly equal). `--reduce`
shrinks every failure by delta reduction (reduce.py) and saves the reduced
program as a JSON case (replayable) and a .tile next to it.
"""

import argparse
import base64
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tilegen  # noqa: E402
from tilegen import Node, Program, from_bits, is_float  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))


# ---------------------------------------------------------------------------
# serialization of programs (saved cases)
# ---------------------------------------------------------------------------

def to_json(p):
    return {
        "nodes": [None if n is None else
                  {"kind": n.kind, "dtype": n.dtype, "shape": list(n.shape),
                   "args": n.args, "attrs": n.attrs} for n in p.nodes],
        "dims": p.dims, "grid": list(p.grid), "M": p.M, "N": p.N, "K": p.K,
        "trip": p.trip, "num_warps": p.num_warps, "flag": p.flag,
        "scalars": {k: list(v) for k, v in p.scalars.items()},
        "arrays": {k: [dt, str(raw.dtype), base64.b64encode(raw.tobytes()).decode(), role]
                   for k, (dt, raw, role) in p.arrays.items()},
        "stores": p.stores, "seed": getattr(p, "seed", None),
    }


def from_json(d):
    p = Program()
    p.nodes = [None if n is None else
               Node(n["kind"], n["dtype"], tuple(n["shape"]), n["args"], **n["attrs"])
               for n in d["nodes"]]
    p.dims = d["dims"]
    p.grid = tuple(d["grid"])
    p.M, p.N, p.K = d["M"], d["N"], d["K"]
    p.trip, p.num_warps, p.flag = d["trip"], d["num_warps"], d["flag"]
    p.scalars = {k: tuple(v) for k, v in d["scalars"].items()}
    p.arrays = {k: (dt, np.frombuffer(base64.b64decode(b), dtype=npdt).copy(), role)
                for k, (dt, npdt, b, role) in d["arrays"].items()}
    p.stores = d["stores"]
    p.seed = d.get("seed")
    return p


# ---------------------------------------------------------------------------
# checking outputs against the reference
# ---------------------------------------------------------------------------

def compare(p, outputs, expected=None):
    """outputs: {array: raw numpy array}. Returns None or a message."""
    expected = expected if expected is not None else p.expected()
    for name, (ref, err, unsure, written) in expected.items():
        dt, raw0, role = p.arrays[name]
        got_raw = outputs.get(name)
        if got_raw is None:
            return "%s: no output" % name
        if got_raw.size != raw0.size:
            return "%s: %d elements, expected %d" % (name, got_raw.size, raw0.size)
        # untouched elements keep their poison bits
        bad = (~written) & (got_raw.view(np.uint8).reshape(raw0.size, -1) !=
                            raw0.view(np.uint8).reshape(raw0.size, -1)).any(axis=1)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            return "%s: %d elements written outside the stores (first [%d]: %r)" % (
                name, int(bad.sum()), i, from_bits(got_raw[i:i + 1], dt)[0])
        got = from_bits(got_raw, dt)
        check = written & ~unsure
        if is_float(dt):
            with np.errstate(all="ignore"):
                ok = np.abs(got - ref) <= 2 * err
            ok |= ~check
            ok &= np.isfinite(got) | ~check
        else:
            ok = (got == ref) | ~check
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            return "%s (%s): %d of %d elements wrong, first [%d]: got %r, expected %r (bound %.3g)" % (
                name, dt, int((~ok).sum()), int(check.sum()), i, got[i], ref[i], 2 * err[i])
    return None


# ---------------------------------------------------------------------------
# backends
# ---------------------------------------------------------------------------

def tilec_command(p, tilec, d, backend):
    args = ",".join("%s=%s" % (k, v) for k, v in p.scalar_args().items())
    cmd = [tilec, "run", os.path.join(d, "kernel.tile"), "--kernel", "kernel",
           "--signature", p.signature(), "--grid", "%d,%d" % p.grid,
           "--arg", args, "--num-warps", str(p.num_warps), "--backend", backend]
    if backend == "cpu":
        cmd += ["--threads", "1"]
    for name, (dt, raw, role) in p.arrays.items():
        cmd += ["--input", "%s=%s" % (name, os.path.join(d, name + ".bin"))]
        if role != "in":
            cmd += ["--output", "%s=%s" % (name, os.path.join(d, name + ".out"))]
    return cmd


def write_program(p, d):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "kernel.tile"), "w") as f:
        f.write(p.source())
    for name, (dt, raw, role) in p.arrays.items():
        raw.tofile(os.path.join(d, name + ".bin"))


class BatchRunner:
    """One long-lived `tilec run --batch` process (its stderr goes to a file:
    a crashing request's output is copied there), restarted after a crash,
    a timeout or a result that asks for it."""

    def __init__(self, tilec, wrap, work, tag):
        self.cmd = (wrap.split() if wrap else []) + [tilec, "run", "--batch"]
        os.makedirs(work, exist_ok=True)
        self.err_path = os.path.join(work, "batch-%s-%d.err" % (tag, os.getpid()))
        self.proc = None
        self.errf = None
        self.buf = b""

    def start(self):
        self.stop()
        self.errf = open(self.err_path, "w+b")
        self.proc = subprocess.Popen(self.cmd, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.errf)
        self.buf = b""

    def stop(self):
        if self.proc is not None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc.stdout.close()
        self.proc = None
        if self.errf is not None:
            self.errf.close()
            self.errf = None

    def kill(self):
        if self.proc is not None:
            self.proc.kill()
        self.stop()

    def stderr_since(self, offset):
        self.errf.flush()
        self.errf.seek(offset)
        return self.errf.read().decode(errors="replace")

    def request(self, args, timeout):
        """("result", result dict, stray stdout lines) | ("crash", None,
        text) | ("timeout", None, ""); started: whether this request
        started a process."""
        started = self.proc is None or self.proc.poll() is not None
        if started:
            self.start()
        err_at = os.fstat(self.errf.fileno()).st_size
        try:
            self.proc.stdin.write((json.dumps(args) + "\n").encode())
            self.proc.stdin.flush()
        except OSError:
            pass   # it died: the read below sees EOF
        deadline = time.time() + timeout
        stray = []
        out = self.proc.stdout.fileno()
        while True:
            nl = self.buf.find(b"\n")
            if nl >= 0:
                ln, self.buf = self.buf[:nl], self.buf[nl + 1:]
                try:
                    r = json.loads(ln)
                except ValueError:
                    r = None
                if isinstance(r, dict) and "status" in r:
                    if r.get("restart"):   # a GPU fault: the context is spent
                        self.stop()
                    return "result", r, stray, started
                # not ours: a --wrap tool's report
                stray.append(ln.decode(errors="replace"))
                continue
            left = deadline - time.time()
            if left <= 0:
                self.kill()
                return "timeout", None, "", started
            ready, _, _ = select.select([out], [], [], left)
            if not ready:
                continue
            chunk = os.read(out, 1 << 16)
            if chunk:
                self.buf += chunk
                continue
            rc = self.proc.wait()
            text = self.stderr_since(err_at).strip()
            if stray:
                text = "\n".join(stray) + "\n" + text
            self.stop()
            if len(text) > 900:   # the message first, the stack dump's end last
                text = text[:500] + "\n...\n" + text[-400:]
            return "crash", None, "exit %d: %s" % (rc, text), started


_RUNNERS = {}


def get_runner(opts, backend):
    if opts.get("runner", "process") != "batch":
        return None
    key = (opts["tilec"], backend, opts.get("wrap"))
    if key not in _RUNNERS:
        _RUNNERS[key] = BatchRunner(opts["tilec"], opts.get("wrap"),
                                    os.path.join(opts["work"], "runners"), backend)
    return _RUNNERS[key]


def close_runners():
    for r in _RUNNERS.values():
        r.stop()
    _RUNNERS.clear()


# compute-sanitizer's reports ("========= Invalid __global__ read ...");
# its banner and a clean summary are not errors.
SANITIZER_ERROR = re.compile(r"^=+ (?!COMPUTE-SANITIZER|ERROR SUMMARY: 0 errors)\S")


def sanitizer_errors(text_lines):
    return [ln for ln in text_lines if SANITIZER_ERROR.match(ln)]


def parse_run_times(stdout):
    """compile and launch seconds from a single `tilec run`'s report."""
    comp = re.search(r"^compile: (.*)$", stdout, re.M)
    run = re.search(r"^run: ([0-9.]+) ms", stdout, re.M)
    compile_s = sum(float(x) for x in re.findall(r"([0-9.]+) ms", comp.group(1))) / 1e3 if comp else 0.0
    return compile_s, (float(run.group(1)) / 1e3 if run else 0.0)


def run_tilec(p, tilec, d, backend, timeout, wrap=None, runner=None, times=None):
    """(status, message): status ok | wrong | error | crash | timeout. With
    a runner (BatchRunner) the program is one request of its batch. times
    (a dict) gets wall, compile, launch seconds and started (a process)."""
    write_program(p, d)
    cmd = tilec_command(p, tilec, d, backend)
    for name, (dt, raw, role) in p.arrays.items():
        if role != "in":
            try:
                os.remove(os.path.join(d, name + ".out"))
            except FileNotFoundError:
                pass
    times = times if times is not None else {}
    t0 = time.time()
    if runner is not None:
        kind, r, extra, started = runner.request(cmd[2:], timeout)
        times.update(wall=time.time() - t0, started=started)
        if kind == "timeout":
            times.update(compile=0.0, launch=0.0)
            return "timeout", "no result after %d s (batch process killed, restarted)" % timeout
        if kind == "crash":
            times.update(compile=0.0, launch=0.0)
            return "crash", extra
        times.update(compile=r.get("frontend", 0.0) + r.get("compile", 0.0),
                     launch=r.get("launch", 0.0))
        rc, err = r["status"], r["diagnostics"].strip()
        reports = sanitizer_errors(extra + r["output"].splitlines())
        if reports:
            return "crash", "sanitizer: " + "\n".join(reports)[-600:]
    else:
        if wrap:
            cmd = wrap.split() + cmd
        try:
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=timeout)
        except subprocess.TimeoutExpired:
            times.update(wall=time.time() - t0, compile=0.0, launch=0.0, started=True)
            return "timeout", "no result after %d s" % timeout
        c, l = parse_run_times(r.stdout.decode(errors="replace"))
        times.update(wall=time.time() - t0, compile=c, launch=l, started=True)
        rc = r.returncode
        err = r.stderr.decode(errors="replace").strip()
        if rc < 0 or rc > 1:
            if wrap:   # a sanitizer reports on stdout
                err = r.stdout.decode(errors="replace").strip() + "\n" + err
            return "crash", "exit %d: %s" % (rc, err[-600:])
    if rc != 0:
        return "error", first_error(err)
    outs = {}
    for name, (dt, raw, role) in p.arrays.items():
        if role != "in":
            f = os.path.join(d, name + ".out")
            if not os.path.exists(f):
                return "error", "no output file for " + name
            outs[name] = np.fromfile(f, dtype=raw.dtype)
    msg = compare(p, outs)
    return ("wrong", msg) if msg else ("ok", "")


def first_error(err):
    for ln in err.splitlines():
        if "error" in ln:
            return ln.strip()[:300]
    return err[:300]


TORCH_DT = None


def run_triton(p, d, timeout=None):
    """The same source through Triton (torch on the GPU)."""
    global TORCH_DT
    import torch
    import triton  # noqa: F401
    if TORCH_DT is None:
        TORCH_DT = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16,
                    "fp64": torch.float64,
                    "fp8e4nv": getattr(torch, "float8_e4m3fn", None),
                    "fp8e5": getattr(torch, "float8_e5m2", None),
                    "i8": torch.int8, "i16": torch.int16, "i32": torch.int32,
                    "i64": torch.int64, "u8": torch.uint8,
                    "u32": getattr(torch, "uint32", None), "i1": torch.bool}
    write_program(p, d)
    path = os.path.join(d, "kernel_triton.py")
    with open(path, "w") as f:
        f.write(p.source())
    import importlib.util
    spec = importlib.util.spec_from_file_location("k%d" % abs(hash(d)), path)
    mod = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(mod)
    except Exception as e:  # noqa: BLE001
        return "error", "import: %s" % e
    tensors = {}
    args = []
    for name, (dt, raw, role) in p.arrays.items():
        tdt = TORCH_DT.get(dt)
        if tdt is None:
            return "skip", "no torch dtype for " + dt
        try:
            if dt == "bf16":
                t = torch.from_numpy(raw.view(np.int16).copy()).view(torch.bfloat16)
            elif dt == "u32":
                t = torch.from_numpy(raw.view(np.int32).copy()).view(torch.uint32)
            elif dt == "i1":
                t = torch.from_numpy(raw != 0)
            elif tilegen.is_fp8(dt):
                t = torch.from_numpy(raw.copy()).view(tdt)
            else:
                t = torch.from_numpy(raw.copy())
            t = t.cuda()
        except Exception as e:  # noqa: BLE001
            return "skip", "torch cannot hold %s: %s" % (dt, e)
        tensors[name] = t
        args.append(t)
    sa = p.scalar_args()
    for name, entry in p.params()[len(p.arrays):]:
        if name in sa:
            args.append(sa[name])
        else:
            v = int(entry)
            args.append(v)
    try:
        mod.kernel[p.grid](*args, num_warps=p.num_warps)
        torch.cuda.synchronize()
    except Exception as e:  # noqa: BLE001
        msg = str(e).strip().splitlines()
        return "error", (msg[-1] if msg else type(e).__name__)[:300]
    outs = {}
    for name, (dt, raw, role) in p.arrays.items():
        if role != "in":
            t = tensors[name].cpu()
            if dt == "bf16":
                t = t.view(torch.int16)
            if dt == "u32":
                t = t.view(torch.int32)
            if tilegen.is_fp8(dt):
                t = t.view(torch.uint8)
            if dt == "i1":
                outs[name] = t.numpy().astype(np.int8)
                continue
            outs[name] = t.numpy().view(raw.dtype)
    msg = compare(p, outs)
    return ("wrong", msg) if msg else ("ok", "")


def run_ptx(p, tilec, d, timeout):
    """Compile only, for the GPU (PTX and, with ptxas, a cubin): on a
    machine without a GPU this still checks the GPU lowering."""
    write_program(p, d)
    cmd = [tilec, os.path.join(d, "kernel.tile"), "--kernel", "kernel",
           "--signature", p.signature(), "--num-warps", str(p.num_warps),
           "-o", os.path.join(d, "kernel.cubin")]
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", "no result after %d s" % timeout
    err = r.stderr.decode(errors="replace").strip()
    if r.returncode < 0 or r.returncode > 1:
        return "crash", "exit %d: %s" % (r.returncode, err[-600:])
    if r.returncode != 0:
        return "error", first_error(err)
    return "ok", ""


def run_backend(p, backend, opts, d, times=None):
    if backend == "ptx":
        return run_ptx(p, opts["tilec"], d, opts["timeout"])
    if backend == "triton":
        try:
            return run_triton(p, d)
        except Exception as e:  # noqa: BLE001
            return "error", "triton harness: %s" % e
    return run_tilec(p, opts["tilec"], d, backend, opts["timeout"], opts.get("wrap"),
                     runner=get_runner(opts, backend), times=times)


# ---------------------------------------------------------------------------
# batch
# ---------------------------------------------------------------------------

def check_seed(seed, backends, opts):
    d = os.path.join(opts["work"], "s%d" % seed)
    t0 = time.time()
    try:
        p = tilegen.generate(seed, opts.get("features"))
    except Exception:  # noqa: BLE001
        return {"seed": seed, "gen_error": traceback.format_exc()[-500:]}
    res = {"seed": seed, "results": {}, "ops": len(p.live()), "times": {}}
    for b in backends:
        if b == "triton" and opts.get("triton_count") is not None and \
                seed >= opts["seed0"] + opts["triton_count"]:
            continue
        times = {}
        st, msg = run_backend(p, b, opts, d, times)
        res["results"][b] = [st, msg]
        if times:
            res["times"][b] = times
    res["time"] = time.time() - t0
    if all(v[0] in ("ok", "skip") for v in res["results"].values()) and not opts.get("keep"):
        shutil.rmtree(d, ignore_errors=True)
    return res


def _worker_init(env):
    os.environ.update(env)


def batch(args):
    backends = args.backends.split(",")
    work = args.work or tempfile.mkdtemp(prefix="difftest-")
    os.makedirs(work, exist_ok=True)
    opts = {"tilec": args.tilec, "timeout": args.timeout, "work": work, "keep": args.keep,
            "wrap": args.wrap, "triton_count": args.triton_count, "seed0": args.seed,
            "runner": args.runner}
    seeds = list(range(args.seed, args.seed + args.count))
    results = []
    start = time.time()
    deadline = start + args.time_limit if args.time_limit else None
    if args.jobs > 1:
        import concurrent.futures as cf
        ctx = None
        if "triton" in backends:
            import multiprocessing
            ctx = multiprocessing.get_context("spawn")
        with cf.ProcessPoolExecutor(args.jobs, mp_context=ctx) as ex:
            futs = {ex.submit(check_seed, s, backends, opts): s for s in seeds}
            for f in cf.as_completed(futs):
                results.append(f.result())
                if deadline and time.time() > deadline:
                    for g in futs:
                        g.cancel()
                    break
    else:
        for s in seeds:
            results.append(check_seed(s, backends, opts))
            if deadline and time.time() > deadline:
                break
    elapsed = time.time() - start
    close_runners()
    results.sort(key=lambda r: r["seed"])
    reduced = []
    if args.reduce:
        import reduce as red
        rdeadline = time.time() + args.reduce_time
        for r in results:
            for b, (st, msg) in r.get("results", {}).items():
                if st in ("ok", "skip", "timeout"):
                    continue
                p = tilegen.generate(r["seed"])
                if len(reduced) >= args.max_reduce or time.time() > rdeadline:
                    # kept whole, for a later reduction
                    save_case(p, args.save_dir, "s%d-%s-unreduced" % (r["seed"], b), b, st, msg)
                    continue
                q, kmsg = red.reduce_program(p, b, (st, msg), opts, log=sys.stderr,
                                             deadline=rdeadline)
                path = save_case(q, args.save_dir, "s%d-%s" % (r["seed"], b), b, st, kmsg)
                reduced.append({"seed": r["seed"], "backend": b, "case": path,
                                "ops": len(q.live()), "status": st, "message": kmsg})
    close_runners()
    summary = report(results, backends, elapsed, reduced, args.runner, args.jobs)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"results": results, "reduced": reduced, "summary": summary}, f, indent=1)
    fails = sum(1 for r in results for st, _ in r.get("results", {}).values()
                if st not in ("ok", "skip"))
    gen_errors = sum(1 for r in results if "gen_error" in r)
    if not args.keep and not fails:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if (fails or gen_errors) else 0


def save_case(p, save_dir, stem, backend, status, msg):
    save_dir = save_dir or os.path.join(ROOT, "difftest-cases")
    os.makedirs(save_dir, exist_ok=True)
    path = os.path.join(save_dir, stem + ".json")
    d = to_json(p)
    d["found"] = {"backend": backend, "status": status, "message": msg}
    with open(path, "w") as f:
        json.dump(d, f)
    with open(os.path.join(save_dir, stem + ".tile"), "w") as f:
        f.write(p.source())
    return path


def report(results, backends, elapsed, reduced, runner="process", jobs=1):
    lines = []
    tried = len(results)
    gen_errors = [r for r in results if "gen_error" in r]
    for r in gen_errors:
        print("seed %d: generator error: %s" % (r["seed"], r["gen_error"]), file=sys.stderr)
    for r in results:
        for b, (st, msg) in r.get("results", {}).items():
            if st not in ("ok", "skip"):
                print("seed %d %s: %s: %s" % (r["seed"], b, st, msg))
    summary = {}
    lines.append("%-8s %6s %6s %6s %6s %6s %6s %6s" % ("backend", "tried", "ok", "wrong",
                                                       "error", "crash", "tmout", "skip"))
    for b in backends:
        c = {}
        for r in results:
            if b not in r.get("results", {}):
                continue
            st = r["results"][b][0]
            c[st] = c.get(st, 0) + 1
        summary[b] = c
        lines.append("%-8s %6d %6d %6d %6d %6d %6d %6d" % (
            b, sum(c.values()), c.get("ok", 0), c.get("wrong", 0), c.get("error", 0),
            c.get("crash", 0), c.get("timeout", 0), c.get("skip", 0)))
    dis = sum(1 for r in results if any(st not in ("ok", "skip") for st, _ in r.get("results", {}).values()))
    ops = sum(r.get("ops", 0) for r in results)
    tonly = sum(1 for r in results if r.get("results", {}).get("triton", ["ok"])[0] not in ("ok", "skip")
                and all(st == "ok" for b, (st, _) in r["results"].items() if b != "triton")
                and len(r["results"]) > 1)
    if "triton" in backends and len(backends) > 1:
        lines.append("triton alone disagrees (tilec's backends agree with the reference): %d" % tonly)
    lines.append("programs tried %d (%d live ops), disagreements %d, reduced %d, "
                 "generator errors %d, %.1f s" % (tried, ops, dis, len(reduced), len(gen_errors), elapsed))
    for rd in reduced:
        lines.append("reduced seed %d on %s to %d ops: %s" % (rd["seed"], rd["backend"], rd["ops"], rd["case"]))
    summary["time"] = {}
    for b in backends:
        ts = [r["times"][b] for r in results if b in r.get("times", {})]
        if not ts:
            continue
        wall = sum(t["wall"] for t in ts)
        comp = sum(t["compile"] for t in ts)
        launch = sum(t["launch"] for t in ts)
        starts = sum(1 for t in ts if t.get("started"))
        summary["time"][b] = {"programs": len(ts), "wall": wall, "compile": comp,
                              "launch": launch, "processes": starts}
        lines.append("time %-6s %d programs (%s runner, %d jobs, %d processes started): "
                     "compile %.1f s, launch %.1f s, other %.1f s (process start, inputs, "
                     "copies), wall %.1f s summed over programs (%.3f s each)" % (
                         b, len(ts), runner, jobs, starts, comp, launch,
                         wall - comp - launch, wall, wall / len(ts)))
    if summary["time"]:
        tilec_s = sum(t["wall"] for t in summary["time"].values())
        lines.append("time total %.1f s x %d jobs = %.1f job-seconds: tilec %.1f s, the driver "
                     "the rest (generating, reference evaluation, comparing, waiting)" % (
                         elapsed, jobs, elapsed * jobs, tilec_s))
    print("\n".join(lines))
    summary["tried"] = tried
    summary["disagreements"] = dis
    return summary


def replay(args):
    opts = {"tilec": args.tilec, "timeout": args.timeout, "runner": args.runner,
            "work": args.work or tempfile.mkdtemp(prefix="difftest-replay-")}
    status = 0
    for path in args.cases:
        with open(path) as f:
            d = json.load(f)
        p = from_json(d)
        # by default the CPU, and the backend that found the case where it
        # runs on this machine too (ptx: compile only)
        found = d.get("found", {}).get("backend")
        backends = args.backends.split(",") if args.backends else \
            ["cpu"] + (["ptx"] if found == "ptx" else [])
        for b in backends:
            st, msg = run_backend(p, b, opts, os.path.join(opts["work"], os.path.basename(path)))
            print("%-50s %-6s %s %s" % (os.path.basename(path), b, st, msg))
            if st not in ("ok", "skip"):
                status = 1
    close_runners()
    shutil.rmtree(opts["work"], ignore_errors=True)
    return status


def show(args):
    p = tilegen.generate(args.seed)
    d = args.work or os.path.join(tempfile.gettempdir(), "difftest-show-%d" % args.seed)
    write_program(p, d)
    print(p.source())
    print(" ".join("'%s'" % c if " " in c else c for c in tilec_command(p, args.tilec, d, "cpu")))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    default_tilec = os.environ.get("TILEC", os.path.join(ROOT, "build", "bin", "tilec"))

    def common(q):
        q.add_argument("--tilec", default=default_tilec)
        q.add_argument("--work")
        q.add_argument("--timeout", type=int, default=120)
        q.add_argument("--backends", default="cpu")
        q.add_argument("--runner", choices=("batch", "process"), default="batch",
                       help="batch: one `tilec run --batch` process per job and backend "
                            "(default); process: one `tilec run` per program")

    q = sub.add_parser("run")
    common(q)
    q.add_argument("--seed", type=int, default=1)
    q.add_argument("--count", type=int, default=100)
    q.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    q.add_argument("--reduce", action="store_true")
    q.add_argument("--save-dir")
    q.add_argument("--json")
    q.add_argument("--keep", action="store_true")
    q.add_argument("--time-limit", type=float, default=0,
                   help="stop starting programs after this many seconds")
    q.add_argument("--triton-count", type=int,
                   help="run the triton backend on the first N seeds only")
    q.add_argument("--max-reduce", type=int, default=10)
    q.add_argument("--reduce-time", type=float, default=600,
                   help="seconds for all reductions; later failures are saved unreduced")
    q.add_argument("--wrap", help="prefix of every tilec command (e.g. compute-sanitizer); "
                   "with the batch runner it wraps each batch process, and a report on "
                   "its stdout (a line starting with =========) fails the program in flight")
    q = sub.add_parser("show")
    common(q)
    q.add_argument("seed", type=int)
    q = sub.add_parser("replay")
    common(q)
    q.set_defaults(backends=None)
    q.add_argument("cases", nargs="+")
    q = sub.add_parser("reduce")
    common(q)
    q.add_argument("seed", type=int)
    q.add_argument("--save-dir")
    args = ap.parse_args()
    if args.cmd == "run":
        return batch(args)
    if args.cmd == "show":
        return show(args)
    if args.cmd == "replay":
        return replay(args)
    if args.cmd == "reduce":
        import reduce as red
        opts = {"tilec": args.tilec, "timeout": args.timeout, "runner": args.runner,
                "work": args.work or tempfile.mkdtemp(prefix="difftest-reduce-")}
        p = tilegen.generate(args.seed)
        b = args.backends.split(",")[0]
        st = run_backend(p, b, opts, os.path.join(opts["work"], "orig"))
        if st[0] in ("ok", "skip"):
            print("seed %d passes on %s" % (args.seed, b))
            return 0
        q, msg = red.reduce_program(p, b, st, opts, log=sys.stderr)
        close_runners()
        path = save_case(q, args.save_dir, "s%d-%s" % (args.seed, b), b, st[0], msg)
        print(q.source())
        print("reduced to %d ops (%s): %s" % (len(q.live()), msg, path))
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
