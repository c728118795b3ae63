"""Prints the result lines of `tilec run --batch` for FileCheck: a header
line per result (request, id, status, restart, times present), then its
output and diagnostics unescaped. With --output N: only request N's output."""
import json
import sys

args = sys.argv[1:]
only = None
if len(args) == 3 and args[1] == "--output":
    only = int(args[2])
with open(args[0]) as f:
    for line in f:
        r = json.loads(line)
        if only is not None:
            if r["request"] == only:
                sys.stdout.write(r["output"])
            continue
        times = all(isinstance(r[k], (int, float)) and r[k] >= 0
                    for k in ("wall", "frontend", "compile", "launch"))
        print("result: request %d id %s status %d restart %s times %s" % (
            r["request"], json.dumps(r.get("id")), r["status"],
            r.get("restart", False), "ok" if times else "bad"))
        for ln in r["output"].splitlines():
            print("out: " + ln)
        for ln in r["diagnostics"].splitlines():
            print("err: " + ln)
