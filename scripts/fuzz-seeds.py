#!/usr/bin/env python3
"""Writes the frontend fuzzer's seed corpus (scripts/fuzz-frontend.sh).

fuzz-seeds.py ROOT OUT: every .tile file in ROOT/examples and
ROOT/test/Frontend, and every example kernel run by
test/Frontend/examples.test, is copied to OUT with its signature (from its
first `tilec ... --signature "..."` RUN line) as a first line `#SIG ...`,
which the fuzz target reads as --signature.
"""
import hashlib
import os
import re
import sys

root, out = sys.argv[1], sys.argv[2]
run_sig = re.compile(r'RUN:.*tilec (\S+).*--signature "([^"]*)"')


def write(text, sig):
    data = (f"#SIG {sig}\n" if sig is not None else "") + text
    name = hashlib.sha1(data.encode("utf-8", "surrogateescape")).hexdigest()
    with open(os.path.join(out, name), "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(data)


count = 0
for base in ("examples", "test/Frontend"):
    for dirpath, _, files in os.walk(os.path.join(root, base)):
        for name in sorted(files):
            path = os.path.join(dirpath, name)
            with open(path, encoding="utf-8", errors="surrogateescape") as f:
                text = f.read()
            if name.endswith(".tile"):
                sigs = [m.group(2) for m in run_sig.finditer(text) if m.group(1) == "%s"]
                write(text, sigs[0] if sigs else None)
                count += 1
            elif name.endswith(".test"):
                # RUN lines on other files (examples.test): one seed each.
                for m in run_sig.finditer(text):
                    target = m.group(1).replace("%tilec_src", root)
                    if os.path.isfile(target):
                        with open(target, encoding="utf-8") as f:
                            write(f.read(), m.group(2))
                        count += 1
print(f"{count} seeds in {out}")
