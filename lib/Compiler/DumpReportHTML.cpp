//===- DumpReportHTML.cpp - the --dump-ir report as one web page ----------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// index.html: the index (DumpReport::buildIndex) and the source embedded as
// JSON, drawn by a small script on the page itself; no server, network,
// external scripts or fonts. `index.html#line=N` opens with source line N
// selected; `#view=layouts` shows the layout pictures only.
//
//===----------------------------------------------------------------------===//

#include "DumpReport.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace tilec;

static const char *const kStyle = R"css(
body { font-family: sans-serif; margin: 1em; color: #1a1a1a; }
h1 { font-size: 1.3em; } h2 { font-size: 1.1em; margin-top: 1.4em; }
code, pre, .mono { font-family: monospace; font-size: 12px; }
table { border-collapse: collapse; font-size: 12px; }
td, th { border-bottom: 1px solid #ddd; padding: 2px 6px; text-align: left; vertical-align: top; }
tr.unchanged { color: #999; }
tr.failed { background: #fdd; }
td.num { text-align: right; }
.summary span { margin-right: 1.5em; }
.decision { color: #2b6b1f; }
tr.decision { cursor: pointer; }
.diag.remark { color: #05529b; } .diag.warning { color: #9a5b00; } .diag.error { color: #b00; }
#source-view { display: flex; gap: 1em; align-items: flex-start; }
#source-lines { flex: 1 1 50%; max-height: 80vh; overflow: auto; border: 1px solid #ccc; }
#detail { flex: 1 1 50%; max-height: 80vh; overflow: auto; border: 1px solid #ccc; padding: 0 0.5em; }
.src-line { white-space: pre; font-family: monospace; font-size: 12px; cursor: pointer; }
.src-line:hover { background: #f2f2f2; }
.src-line.selected { background: #ffe9a8; }
.src-line .ln { display: inline-block; width: 3.5em; color: #888; text-align: right; margin-right: 0.8em; }
.src-line .badge { font-size: 10px; color: #05529b; margin-left: 1em; }
.inline-diag { font-size: 11px; margin-left: 4.3em; white-space: pre-wrap; font-family: sans-serif; }
.stage-ops h4, .ptx-ops h4 { margin: 0.8em 0 0.2em; font-size: 12px; }
.stage-ops ul, .ptx-ops ul { margin: 0; padding-left: 1.2em; }
.op code, .ptx code { white-space: pre-wrap; word-break: break-all; }
figure.layout { display: inline-block; margin: 0.5em; vertical-align: top; }
figure.layout figcaption { font-size: 11px; max-width: 60em; }
#page-errors { color: #b00; }
)css";

static const char *const kScript = R"js(
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('tilec-index').textContent);
  function el(tag, attrs, kids) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    (kids || []).forEach(function (c) {
      e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    });
    return e;
  }
  function pad(i) { return (i < 10 ? '0' : '') + i; }
  function counts(o) {
    return Object.keys(o || {}).map(function (k) { return k + ' ' + o[k]; }).join(', ');
  }
  function link(file, text) { return file ? el('a', {href: file}, [text || file]) : el('span'); }
  var byIndex = {};
  data.stages.forEach(function (s) { byIndex[s.index] = s; });
  var diagsByStage = {}, diagsByLine = {};
  data.diagnostics.forEach(function (d) {
    (diagsByStage[d.stage] = diagsByStage[d.stage] || []).push(d);
    if (d.line) (diagsByLine[d.line] = diagsByLine[d.line] || []).push(d);
  });
  function diagText(d) {
    return d.severity + ': ' + d.message + ' [' + d.file.split('/').pop() + ':' +
        d.line + ':' + d.column + (d.stage_name ? ', ' + pad(d.stage) + ' ' + d.stage_name : '') + ']';
  }

  // Summary.
  var r = data.result || {};
  var summary = document.getElementById('summary');
  [['kernel', data.kernel], ['signature', data.signature],
   ['status', data.succeeded ? 'compiled' : 'FAILED'],
   ['registers', r.registers], ['spills (bytes stored/loaded)',
    r.spill_stores === undefined ? undefined : r.spill_stores + '/' + r.spill_loads],
   ['shared memory (bytes)', r.shared_memory_bytes],
   ['warps', data.options.num_warps], ['stages', data.options.num_stages]
  ].forEach(function (kv) {
    if (kv[1] !== undefined) summary.appendChild(el('span', {}, [kv[0] + ': ', el('b', {}, [String(kv[1])])]));
  });

  // Stages.
  var tbody = document.querySelector('#stages tbody');
  data.stages.forEach(function (s) {
    var cls = 'stage' + (s.changed ? '' : ' unchanged') + (s.failed ? ' failed' : '');
    var ds = diagsByStage[s.index] || [];
    var opsCell = s.kind === 'pass' ? counts(s.ops_before) + ' \u2192 ' + counts(s.ops_after)
                                     : counts(s.ops_after);
    var diffText = s.diff_lines ? ' (+' + s.diff_lines.added + ' \u2212' + s.diff_lines.removed + ')' : '';
    tbody.appendChild(el('tr', {'class': cls, 'data-index': s.index, id: 'stage-' + s.index}, [
      el('td', {'class': 'num'}, [pad(s.index)]),
      el('td', {}, [s.name]),
      el('td', {'class': 'mono'}, [s.pipeline || s.kind]),
      el('td', {'class': 'num'}, [s.kind === 'pass' ? (s.seconds * 1e3).toFixed(2) : '']),
      el('td', {}, [s.kind === 'pass' ? (s.failed ? 'FAILED' : s.changed ? 'changed' : 'unchanged') +
                                        (s.filtered ? ' (filtered)' : '') : '']),
      el('td', {'class': 'mono'}, [opsCell]),
      el('td', {}, [link(s.dump), s.dump && s.diff ? ' ' : '', link(s.diff), diffText]),
      el('td', {}, [ds.length ? ds.length + ' diagnostic(s)' : ''])
    ]));
  });

  // Diagnostics.
  var dlist = document.getElementById('diagnostic-list');
  data.diagnostics.forEach(function (d) {
    var li = el('li', {'class': 'diag ' + d.severity, 'data-line': d.line}, [diagText(d)]);
    li.addEventListener('click', function () { select(d.line, true); });
    dlist.appendChild(li);
  });
  if (!data.diagnostics.length) dlist.appendChild(el('li', {}, ['none']));

  // Decisions (what `tilec explain` prints), by source line.
  var decisionsByLine = {};
  var dec = data.decisions;
  var dtbody = document.querySelector('#decision-table tbody');
  if (dec) {
    [['load', dec.loads], ['dot', dec.dots], ['loop', dec.loops]].forEach(function (kv) {
      kv[1].forEach(function (e) {
        e.kind = kv[0];
        (decisionsByLine[e.line] = decisionsByLine[e.line] || []).push(e);
        var tr = el('tr', {'class': 'decision', 'data-line': e.line}, [
          el('td', {}, [kv[0]]), el('td', {}, [e.location]), el('td', {'class': 'mono'}, [e.source]),
          el('td', {}, [e.decision]), el('td', {}, [e.why])]);
        tr.addEventListener('click', function () { select(e.line, true); });
        dtbody.appendChild(tr);
      });
    });
  } else {
    dtbody.appendChild(el('tr', {}, [el('td', {}, ['none (the compilation did not reach the tilegpu stage)'])]));
  }
  function decisionText(e) { return e.kind + ': ' + e.decision + (e.why ? ' \u2014 why: ' + e.why : ''); }

  // Source view.
  var lines = (data.source_text || '').split('\n');
  var ptx = data.ptx || {file: '', lines: {}};
  function stagesOf(line) {
    return data.stages.filter(function (s) { return s.source_ops && s.source_ops[line]; });
  }
  var srcBox = document.getElementById('source-lines');
  lines.forEach(function (text, i) {
    var n = i + 1;
    var kids = [el('span', {'class': 'ln'}, [String(n)]), text];
    var st = stagesOf(n).length, p = ptx.lines[n];
    if (st || p)
      kids.push(el('span', {'class': 'badge'}, [(st ? st + ' stage(s)' : '') + (p ? ' ptx ' + p.count : '')]));
    var div = el('div', {'class': 'src-line', id: 'L' + n, 'data-line': n}, kids);
    div.addEventListener('click', function () { select(n, false); });
    srcBox.appendChild(div);
    (diagsByLine[n] || []).forEach(function (d) {
      srcBox.appendChild(el('div', {'class': 'inline-diag diag ' + d.severity, 'data-line': n}, [diagText(d)]));
    });
    (decisionsByLine[n] || []).forEach(function (e) {
      srcBox.appendChild(el('div', {'class': 'inline-diag decision', 'data-line': n}, [decisionText(e)]));
    });
  });

  var detail = document.getElementById('detail');
  function select(n, scroll) {
    var old = document.querySelector('.src-line.selected');
    if (old) old.classList.remove('selected');
    var line = document.getElementById('L' + n);
    if (line) { line.classList.add('selected'); if (scroll) line.scrollIntoView({block: 'center'}); }
    detail.textContent = '';
    detail.appendChild(el('h3', {}, ['Line ' + n + ': ' + (lines[n - 1] || '').trim()]));
    (diagsByLine[n] || []).forEach(function (d) {
      detail.appendChild(el('div', {'class': 'diag ' + d.severity}, [diagText(d)]));
    });
    (decisionsByLine[n] || []).forEach(function (e) {
      detail.appendChild(el('div', {'class': 'decision'}, [decisionText(e)]));
    });
    var previous = null, previousStage = null;
    stagesOf(n).forEach(function (s) {
      var entry = s.source_ops[n];
      // A stage whose ops of this line print as the stage before's: one line.
      var key = JSON.stringify(entry.ops.map(function (op) { return op[1]; })) + entry.count;
      if (key === previous) {
        detail.appendChild(el('div', {'class': 'stage-ops same', 'data-stage': s.index}, [
          el('h4', {}, [pad(s.index) + ' ' + s.name + ': the same ' + entry.count + ' op(s) as ' +
                        pad(previousStage.index) + ' (', link(s.dump, s.dump), ')'])]));
        return;
      }
      previous = key;
      previousStage = s;
      var ul = el('ul');
      entry.ops.forEach(function (op) {
        ul.appendChild(el('li', {'class': 'op'}, [link(s.dump, s.dump + ':' + op[0]), ' ', el('code', {}, [op[1]])]));
      });
      if (entry.count > entry.ops.length)
        ul.appendChild(el('li', {}, ['\u2026 ' + (entry.count - entry.ops.length) + ' more']));
      detail.appendChild(el('div', {'class': 'stage-ops', 'data-stage': s.index}, [
        el('h4', {}, [pad(s.index) + ' ' + s.name + ' (' + entry.count + ' op' + (entry.count === 1 ? '' : 's') + ')']), ul]));
    });
    var p = ptx.lines[n];
    if (p) {
      var ul = el('ul');
      p.instructions.forEach(function (ins) {
        ul.appendChild(el('li', {'class': 'ptx'}, [link(ptx.file, ptx.file + ':' + ins[0]), ' ', el('code', {}, [ins[1]])]));
      });
      if (p.count > p.instructions.length)
        ul.appendChild(el('li', {}, ['\u2026 ' + (p.count - p.instructions.length) + ' more']));
      detail.appendChild(el('div', {'class': 'ptx-ops'}, [el('h4', {}, ['PTX (.loc ' + n + '): ' + p.count + ' instruction(s)']), ul]));
    }
    var layoutsHere = (data.layouts || []).filter(function (l) { return l.source_lines.indexOf(n) >= 0; });
    if (layoutsHere.length)
      detail.appendChild(el('div', {'class': 'layout-refs'}, ['Layouts: '].concat(layoutsHere.map(function (l) {
        return el('a', {href: '#layout-' + data.layouts.indexOf(l)}, [l.name + ' ']);
      }))));
  }

  // Layout captions: the source lines using each layout.
  (data.layouts || []).forEach(function (l, i) {
    var fig = document.getElementById('layout-' + i);
    if (!fig) return;
    var cap = fig.querySelector('figcaption');
    l.source_lines.forEach(function (n) {
      var a = el('a', {href: '#line=' + n}, ['line ' + n]);
      a.addEventListener('click', function (e) { e.preventDefault(); select(n, true); });
      cap.appendChild(document.createTextNode(' '));
      cap.appendChild(a);
    });
  });

  function route() {
    var h = location.hash.replace(/^#/, '');
    var m = /(?:^|&)line=(\d+)/.exec(h);
    if (m) select(parseInt(m[1], 10), true);
    if (/(?:^|&)view=layouts/.test(h))
      ['summary', 'stages-section', 'diagnostics', 'decisions', 'source'].forEach(function (id) {
        document.getElementById(id).style.display = 'none';
      });
  }
  window.addEventListener('hashchange', route);
  route();
  document.body.setAttribute('data-ready', '1');
})();
)js";

/// `text` safe inside a <script> element: no "</" (JSON allows "\/").
static std::string scriptSafe(llvm::StringRef text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '<' && i + 1 < text.size() && text[i + 1] == '/') {
      out += "<\\/";
      ++i;
      continue;
    }
    out += text[i];
  }
  return out;
}

static std::string htmlEscape(llvm::StringRef text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '&': out += "&amp;"; break;
    case '"': out += "&quot;"; break;
    default: out += c;
    }
  }
  return out;
}

std::string tilec::renderDumpReportHTML(const llvm::json::Value &index,
                                        llvm::StringRef sourceText,
                                        llvm::ArrayRef<DumpReport::Layout> layouts) {
  llvm::json::Value data = index;
  std::string kernel;
  if (llvm::json::Object *o = data.getAsObject()) {
    (*o)["source_text"] = sourceText.str();
    if (auto k = o->getString("kernel"))
      kernel = k->str();
  }
  std::string json;
  {
    llvm::raw_string_ostream os(json);
    os << data;
  }
  std::string html;
  llvm::raw_string_ostream os(html);
  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
     << "<title>tilec: " << htmlEscape(kernel) << "</title>\n"
     << "<script>window.addEventListener('error', function (e) {"
        " var p = document.getElementById('page-errors');"
        " if (p) p.textContent += (e.message || 'error') + '\\n'; });</script>\n"
     << "<style>" << kStyle << "</style>\n</head>\n<body>\n"
     << "<h1>tilec IR report: " << htmlEscape(kernel) << "</h1>\n"
     << "<pre id=\"page-errors\"></pre>\n"
     << "<div id=\"summary\" class=\"summary\"></div>\n"
     << "<section id=\"stages-section\"><h2>Stages</h2>\n"
     << "<table id=\"stages\"><thead><tr><th>#</th><th>stage</th><th>pass "
        "(options)</th><th>ms</th><th>IR</th><th>ops per dialect (before "
        "\u2192 after)</th><th>files</th><th>diagnostics</th></tr></thead>"
        "<tbody></tbody></table></section>\n"
     << "<section id=\"diagnostics\"><h2>Remarks, warnings and errors</h2>"
        "<ul id=\"diagnostic-list\"></ul></section>\n"
     << "<section id=\"decisions\"><h2>Decisions (as <code>tilec explain</code> "
        "prints them)</h2><table id=\"decision-table\"><thead><tr><th></th>"
        "<th>where</th><th>source</th><th>decision</th><th>why</th></tr>"
        "</thead><tbody></tbody></table></section>\n"
     << "<section id=\"source\"><h2>Source</h2><p>Click a line: the ops that "
        "carry its location at every stage, and its PTX.</p>\n"
        "<div id=\"source-view\"><div id=\"source-lines\"></div>"
        "<div id=\"detail\"><p>No line selected.</p></div></div></section>\n"
     << "<section id=\"layouts\"><h2>Layouts</h2>\n";
  if (layouts.empty())
    os << "<p>No tilegpu layouts (the compilation stopped before "
          "convert-tile-to-tilegpu).</p>\n";
  for (auto [i, l] : llvm::enumerate(layouts)) {
    os << "<figure class=\"layout\" id=\"layout-" << i << "\">";
    os << l.svg;
    os << "<figcaption><b>" << htmlEscape(l.name) << "</b>: "
       << htmlEscape(l.description);
    if (!l.file.empty())
      os << " (<a href=\"" << htmlEscape(l.file) << "\">" << htmlEscape(l.file)
         << "</a>)";
    os << "; used at</figcaption></figure>\n";
  }
  os << "</section>\n"
     << "<script type=\"application/json\" id=\"tilec-index\">"
     << scriptSafe(json) << "</script>\n"
     << "<script>" << kScript << "</script>\n</body>\n</html>\n";
  return html;
}
