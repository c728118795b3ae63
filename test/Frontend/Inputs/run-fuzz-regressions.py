"""Runs `TILEC FILE --emit tile` on every file of DIR (fuzz-regressions.test).

Each must exit 0 or 1 without a crash or a sanitizer report. A first line
`#SIG <signature>` gives the --signature.
"""
import os
import subprocess
import sys

tilec, directory = sys.argv[1], sys.argv[2]
failures = 0
names = sorted(n for n in os.listdir(directory) if not n.startswith("."))
for name in names:
    path = os.path.join(directory, name)
    with open(path, "rb") as f:
        first = f.readline()
    cmd = [tilec, path, "--emit", "tile", "-o", os.devnull]
    if first.startswith(b"#SIG "):
        cmd += ["--signature", first[5:].rstrip(b"\r\n").decode("utf-8", "replace")]
    try:
        r = subprocess.run(cmd, capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        print(f"{name}: timed out")
        failures += 1
        continue
    err = r.stderr.decode("utf-8", "replace")
    bad = [m for m in ("Sanitizer", "runtime error:", "PLEASE submit a bug report", "Assertion") if m in err]
    if r.returncode not in (0, 1) or bad:
        print(f"{name}: exit status {r.returncode}; {bad}\n{err[-3000:]}")
        failures += 1
print(f"{len(names)} regression inputs, {failures} failed")
sys.exit(1 if failures else 0)
