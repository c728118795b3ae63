#!/usr/bin/env python3
"""Black-box mutation fuzzing of the whole pipeline (issue 15), for machines
where the libFuzzer build (scripts/fuzz-pipeline.sh) is too costly: seeds
(the tests' and examples' kernels with their signatures, and generated
difftest programs) are mutated (lines dropped, duplicated or swapped;
tokens replaced by others of the language; numbers and signature entries
changed) and run in batches through tilec-pipeline-fuzz-replay, the same
target as the libFuzzer one (whole pipeline to PTX, in process; crashes and
unlocated errors abort). A failing batch is split to the failing input,
which is saved, minimized by line deletion, under --out.

  pipeline_fuzz.py --replay build/bin/tilec-pipeline-fuzz-replay \\
      --seeds DIR --seconds 600 --out DIR [--batch 50] [--jobs 2]
"""

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

TOKENS = ["tl.arange(0, 16)", "tl.zeros((16, 16), dtype=tl.float32)", "tl.sum(x, axis=0)",
          "tl.max(x, axis=1)", "tl.cumsum(x, axis=0)", "tl.dot(a, b)", ".to(tl.float16)",
          ".to(tl.int8)", ".to(tl.uint32)", "[:, None]", "[None, :]", ".T", "tl.where(m, a, b)",
          "tl.exp", "tl.sqrt", "tl.program_id(1)", "tl.num_programs(0)", "0", "1", "-1",
          "1024", "65536", "2**31", "0.5", "float('nan')", "float('-inf')", "True", "None",
          "tl.constexpr", "mask=None", "other=0.0", "boundary_check=(0, 1)",
          "padding_option=\"zero\"", "tl.float8e4nv", "tl.bfloat16", "tl.int64",
          "tl.static_range(4)", "tl.range(0, n)", "tl.atomic_add", "tl.reshape(x, (4, 4))",
          "tl.trans(x)", "tl.broadcast_to(x, (16, 16))", "tl.join(x, x)", "tl.flip(x)",
          "tl.advance(p, (16, 0))", "tl.load", "tl.store", "tl.make_block_ptr", "x", "y",
          "acc", "+", "-", "*", "//", "%", ">>", "<<", "&", "|", "^", "<", "==", "(", ")",
          ",", ":", "if", "else", "for", "while", "return", "pass"]
SIG_TYPES = ["*fp32", "*fp16", "*bf16", "*i8", "*i32", "*i64", "*u32", "*fp8e4nv", "i32",
             "i64", "fp32", "i1", "1", "16", "0", "-1", "3", "64", "*fp32:16", "i32:16", "1.5"]


def mutate(text, r):
    lines = text.split("\n")
    sig = None
    if lines and lines[0].startswith("#SIG "):
        sig = lines[0][5:]
        lines = lines[1:]
    for _ in range(r.choice([1, 1, 2, 3])):
        k = r.random()
        if not lines:
            break
        i = r.randrange(len(lines))
        if k < 0.2:
            del lines[i]
        elif k < 0.35:
            lines.insert(i, lines[r.randrange(len(lines))])
        elif k < 0.45 and len(lines) > 1:
            j = r.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif k < 0.75:
            toks = list(re.finditer(r"[A-Za-z_][A-Za-z_0-9.]*|\d+(\.\d*)?|\S", lines[i]))
            if toks:
                t = r.choice(toks)
                lines[i] = lines[i][:t.start()] + r.choice(TOKENS) + lines[i][t.end():]
        elif k < 0.88:
            nums = list(re.finditer(r"\b\d+\b", lines[i]))
            if nums:
                t = r.choice(nums)
                value = r.choice([0, 1, 2, 3, 7, 8, 15, 16, 17, 31, 32, 64, 100, 128, 256,
                                  4096, 2**20, 2**31 - 1, 2**31])
                lines[i] = lines[i][:t.start()] + str(value) + lines[i][t.end():]
        elif sig is not None:
            entries = [e.strip() for e in sig.split(",")]
            if entries:
                entries[r.randrange(len(entries))] = r.choice(SIG_TYPES)
                if r.random() < 0.2:
                    entries.pop(r.randrange(len(entries)))
                sig = ", ".join(entries)
    out = "\n".join(lines)
    return ("#SIG " + sig + "\n" + out) if sig is not None else out


def run(replay, files, timeout):
    try:
        r = subprocess.run([replay] + files, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           timeout=timeout)
        return r.returncode, r.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return "timeout", ""


def minimize(replay, text, timeout, same):
    lines = text.split("\n")
    i = 1
    while i < len(lines):
        cand = lines[:i] + lines[i + 1:]
        with tempfile.NamedTemporaryFile("w", suffix=".tile", delete=False) as f:
            f.write("\n".join(cand))
        rc, err = run(replay, [f.name], timeout)
        os.unlink(f.name)
        if same(rc, err):
            lines = cand
        else:
            i += 1
    return "\n".join(lines)


def signature_of(rc, err):
    if rc == "timeout":
        return "timeout"
    lines = [ln for ln in err.splitlines() if ln and not ln.startswith("/")]
    key = next((ln for ln in lines if "error" in ln.lower() or "assert" in ln.lower()
                or "unlocated" in ln), lines[0] if lines else "")
    return "%s:%s" % (rc, re.sub(r"\d+", "N", key)[:200])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--replay", required=True)
    ap.add_argument("--seeds", required=True)
    ap.add_argument("--seconds", type=float, default=300)
    ap.add_argument("--out", required=True)
    ap.add_argument("--batch", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=int, default=120)
    args = ap.parse_args()
    r = random.Random(args.seed)
    seeds = []
    for name in sorted(os.listdir(args.seeds)):
        with open(os.path.join(args.seeds, name), errors="replace") as f:
            seeds.append(f.read())
    os.makedirs(args.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="pipeline-fuzz-")
    execs = 0
    found = {}
    start = time.time()
    while time.time() - start < args.seconds:
        files = []
        for k in range(args.batch):
            text = mutate(r.choice(seeds), r)
            path = os.path.join(work, "in%03d.tile" % k)
            with open(path, "w") as f:
                f.write(text)
            files.append(path)
        rc, err = run(args.replay, files, args.timeout * 4)
        if rc == 0:
            execs += len(files)
            continue
        # find the input: the last name printed (or each file alone on a timeout)
        named = [ln for ln in err.splitlines() if ln.startswith(work)]
        suspects = [named[-1]] if named and rc != "timeout" else files
        for path in suspects:
            rc1, err1 = run(args.replay, [path], args.timeout)
            execs += 1
            if rc1 == 0:
                continue
            sig = signature_of(rc1, err1)
            if sig in found:
                continue
            with open(path) as f:
                text = f.read()
            small = minimize(args.replay, text, args.timeout,
                             lambda a, b: signature_of(a, b) == sig)
            name = os.path.join(args.out, "crash-%d.tile" % len(found))
            with open(name, "w") as f:
                f.write(small)
            found[sig] = name
            print("FOUND %s -> %s" % (sig, name), flush=True)
            print(err1[-1500:], flush=True)
        execs += len(files) - len(suspects)
    print("pipeline fuzz: %d executions in %.0f s, %d distinct failures" % (
        execs, time.time() - start, len(found)))
    for sig, name in found.items():
        print("  %s: %s" % (name, sig))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
