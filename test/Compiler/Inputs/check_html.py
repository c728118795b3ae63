#!/usr/bin/env python3
"""Opens a --dump-ir report's index.html in headless Chromium and checks it.

check_html.py CHROMIUM DUMP_DIR WORK_DIR

- the DOM (after the page's script ran) lists every stage of index.json;
- selecting a source line (`index.html#line=N`, N the line of the first
  remark, else the line found in most stages) shows ops of that line in at
  least three stages, each linking to a dump file that exists;
- every remark and every decision (what tilec explain says) is shown next
  to its source line;
- the layout pictures render: a screenshot of `#view=layouts` has many
  colours and is not mostly blank;
- no console message or page error.
Prints one line per check for FileCheck.
"""
import html.parser
import json
import os
import struct
import subprocess
import sys
import zlib


def run_chromium(chromium, work, url, extra):
    cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu",
           "--user-data-dir=" + os.path.join(work, "profile"),
           "--enable-logging=stderr", "--log-level=0",
           "--virtual-time-budget=5000", "--window-size=1400,1800"] + extra + [url]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    console = [l for l in p.stderr.splitlines() if ":CONSOLE" in l]
    assert not console, "console messages: %s" % console
    return p.stdout


class Dom(html.parser.HTMLParser):
    """The elements we look at, with their attributes and text."""

    def __init__(self):
        super().__init__()
        self.stack = []
        self.stage_rows = []
        self.stage_ops = {}  # stage -> [(href, text)]
        self.inline_diags = []
        self.inline_decisions = []
        self.page_errors = ""
        self.svgs = 0
        self.ready = False
        self._current_stage = None
        self._in_errors = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if tag == "body" and a.get("data-ready") == "1":
            self.ready = True
        if tag == "tr" and "stage" in cls:
            self.stage_rows.append(int(a["data-index"]))
        if tag == "div" and "stage-ops" in cls:
            self._current_stage = int(a["data-stage"])
            self.stage_ops[self._current_stage] = []
        if tag == "a" and self._current_stage is not None and self.stack and \
                "op" in self.stack[-1][1]:
            self.stage_ops[self._current_stage].append(a.get("href"))
        if tag == "div" and "inline-diag" in cls:
            if "decision" in cls:
                self.inline_decisions.append(int(a["data-line"]))
            else:
                self.inline_diags.append(int(a["data-line"]))
        if tag == "pre" and a.get("id") == "page-errors":
            self._in_errors = True
        if tag == "svg":
            self.svgs += 1
        if tag not in ("br", "meta", "img", "input", "link", "rect", "path"):
            self.stack.append((tag, cls))

    def handle_endtag(self, tag):
        while self.stack:
            t, cls = self.stack.pop()
            if t == "div" and "stage-ops" in cls:
                self._current_stage = None
            if t == "pre":
                self._in_errors = False
            if t == tag:
                break

    def handle_data(self, data):
        if self._in_errors:
            self.page_errors += data


def png_pixels(path):
    """(width, height, rows of RGB(A) bytes) of an 8-bit RGB/RGBA PNG."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and color in (2, 6), (depth, color)
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        f = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pr) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def main():
    chromium, dump, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    index = json.load(open(os.path.join(dump, "index.json")))
    page = "file://" + os.path.abspath(os.path.join(dump, "index.html"))

    def stages_with(line):
        return [s["index"] for s in index["stages"]
                if str(line) in (s.get("source_ops") or {})]

    if index["diagnostics"]:
        line = index["diagnostics"][0]["line"]
    else:
        lines = {int(l) for s in index["stages"] for l in (s.get("source_ops") or {})}
        line = max(lines, key=lambda l: len(stages_with(l)))

    dom = Dom()
    dom.feed(run_chromium(chromium, work, page + "#line=%d" % line, ["--dump-dom"]))
    assert dom.ready, "the page's script did not finish"
    assert not dom.page_errors.strip(), "page errors: " + dom.page_errors
    expected = [s["index"] for s in index["stages"]]
    assert dom.stage_rows == expected, (dom.stage_rows, expected)
    print("dom lists %d stages" % len(dom.stage_rows))
    linked = {s: hrefs for s, hrefs in dom.stage_ops.items() if hrefs}
    for hrefs in linked.values():
        for href in hrefs:
            assert os.path.exists(os.path.join(dump, href)), href
    assert len(linked) >= 3, "line %d has ops in %d stages" % (line, len(linked))
    print("line %d links to ops in %s stages" % (line, ">= 3" if len(linked) >= 3 else len(linked)))
    for d in index["diagnostics"]:
        if d["line"]:
            assert d["line"] in dom.inline_diags, d
    print("remarks beside their lines: %d" % len(dom.inline_diags))
    decisions = index["decisions"]
    entries = decisions["loads"] + decisions["dots"] + decisions["loops"]
    assert sorted(e["line"] for e in entries) == sorted(dom.inline_decisions)
    print("decisions beside their lines: %d loads, %d dots, %d loops" % (
        len(decisions["loads"]), len(decisions["dots"]), len(decisions["loops"])))
    assert dom.svgs == len(index["layouts"]), (dom.svgs, len(index["layouts"]))
    print("svgs in the dom: %s" % ("all" if dom.svgs else "none"))

    shot = os.path.join(work, "layouts.png")
    if os.path.exists(shot):
        os.remove(shot)
    run_chromium(chromium, work, page + "#view=layouts", ["--screenshot=" + shot])
    width, height, bpp, rows = png_pixels(shot)
    colours, ink = set(), 0
    for row in rows[::4]:
        for x in range(0, width * bpp, 4 * bpp):
            px = row[x:x + 3]
            colours.add(px)
            if px != b"\xff\xff\xff":
                ink += 1
    samples = len(rows[::4]) * len(range(0, width * bpp, 4 * bpp))
    assert len(colours) >= 16, "only %d colours" % len(colours)
    assert ink > samples // 20, "mostly blank: %d of %d" % (ink, samples)
    print("screenshot %dx%d not blank: >= 16 colours" % (width, height))
    print("ok")


if __name__ == "__main__":
    main()
