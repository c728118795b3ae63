#!/usr/bin/env python3
"""Checks a `tilec --dump-ir` directory against its index.json.

Every stage is numbered in order; the files the index names exist; each
pass's `ops_before` is the stage before's `ops_after`; every diff, applied
to the stage before, gives the stage's dump byte for byte; `changed` is true
exactly when the IR text differs (needs --dump-ir-all, --all here, to have
every text); without it unchanged passes have no files. Prints one line per
stage and diagnostic for FileCheck.
"""
import json
import os
import re
import sys


def apply_unified_diff(old, diff):
    """`old` (text) patched with `diff` (a unified diff), strictly."""
    old_lines = old.splitlines(keepends=True)
    lines = diff.splitlines(keepends=True)
    assert lines[0].startswith("--- ") and lines[1].startswith("+++ "), lines[:2]
    out, pos, i = [], 0, 2
    while i < len(lines):
        m = re.match(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", lines[i])
        assert m, "bad hunk header: %r" % lines[i]
        start = int(m.group(1))
        old_count = int(m.group(2)) if m.group(2) is not None else 1
        start = start - 1 if old_count else start
        assert start >= pos, "hunks out of order"
        out += old_lines[pos:start]
        pos = start
        i += 1
        while i < len(lines) and not lines[i].startswith("@@"):
            tag, text = lines[i][0], lines[i][1:]
            if i + 1 < len(lines) and lines[i + 1].startswith("\\ No newline"):
                text = text[:-1]
                i += 1
            if tag in " -":
                assert old_lines[pos] == text, "context mismatch at line %d" % (pos + 1)
                pos += 1
            if tag in " +":
                out.append(text)
            i += 1
    out += old_lines[pos:]
    return "".join(out)


def main():
    d = sys.argv[1]
    every = "--all" in sys.argv
    index = json.load(open(os.path.join(d, "index.json")))
    assert index["format"] == "tilec-dump-index" and index["version"] == 1
    stages = index["stages"]
    names = set(os.listdir(d))
    prev_text, prev_ops = None, None
    for i, s in enumerate(stages):
        assert s["index"] == i, (i, s["index"])
        for key in ("dump", "diff"):
            if s.get(key):
                assert s[key] in names, s[key]
                assert s[key].startswith("%02d-" % i), s[key]
        text = None
        if s["dump"] and s["kind"] != "artifact":
            text = open(os.path.join(d, s["dump"])).read()
        if s["kind"] == "pass":
            assert s["ops_before"] == prev_ops, s["name"]
            assert s["seconds"] >= 0
            if every:
                assert text is not None, s["name"]
                assert s["changed"] == (text != prev_text), s["name"]
            if s["changed"] and not s["filtered"]:
                diff = open(os.path.join(d, s["diff"])).read()
                if text is not None and prev_text is not None:
                    assert apply_unified_diff(prev_text, diff) == text, s["name"]
            else:
                assert s["diff"] is None, s["name"]
            if not s["changed"] and not every:
                assert s["dump"] is None, s["name"]
            if text is None:
                # Not dumped: the next diff is against this stage's text,
                # which equals the last one written when unchanged.
                text = prev_text if not s["changed"] else None
        if s["kind"] != "artifact":
            prev_ops = s["ops_after"]
            prev_text = text
        print("stage %02d %s %s%s%s" % (i, s["name"],
                                         "changed" if s["changed"] else "unchanged",
                                         " dump" if s["dump"] else "",
                                         " diff" if s["diff"] else ""))
    for g in index["diagnostics"]:
        print("diagnostic %s %s:%d:%d stage %s %s: %s" % (
            g["severity"], os.path.basename(g["file"]), g["line"], g["column"],
            "%02d" % g["stage"] if g["stage"] is not None else "-",
            g["stage_name"], g["message"]))
    for l in index["layouts"]:
        assert l["file"] in ["layouts/" + n for n in os.listdir(os.path.join(d, "layouts"))]
        print("layout %s lines %s" % (l["file"], l["source_lines"]))
    print("ok")


if __name__ == "__main__":
    main()
