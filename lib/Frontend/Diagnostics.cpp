//===- Diagnostics.cpp - Frontend diagnostic sink -------------------------===//
//
// Part of the tilec project.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Diagnostics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace tilec::frontend;

DiagnosticSink::~DiagnosticSink() = default;

void DiagnosticSink::report(DiagSeverity severity, llvm::SMLoc loc,
                            const llvm::Twine &msg,
                            llvm::ArrayRef<llvm::SMRange> ranges) {
  if (stopped)
    return;
  Diagnostic diag;
  if (severity == DiagSeverity::Error) {
    ++numErrors;
    if (errorLimit != 0 && numErrors > errorLimit) {
      // Like clang: the error past the limit becomes the last diagnostic.
      stopped = true;
      diag.severity = DiagSeverity::Error;
      diag.message = "too many errors emitted, stopping now";
      handle(diag);
      return;
    }
  }
  diag.severity = severity;
  diag.loc = loc;
  diag.message = msg.str();
  diag.ranges.append(ranges.begin(), ranges.end());
  handle(diag);
}

static llvm::SourceMgr::DiagKind toDiagKind(DiagSeverity severity) {
  switch (severity) {
  case DiagSeverity::Error:
    return llvm::SourceMgr::DK_Error;
  case DiagSeverity::Warning:
    return llvm::SourceMgr::DK_Warning;
  case DiagSeverity::Remark:
    return llvm::SourceMgr::DK_Remark;
  case DiagSeverity::Note:
    return llvm::SourceMgr::DK_Note;
  }
  return llvm::SourceMgr::DK_Error;
}

/// Length of the valid UTF-8 sequence of a non-ASCII character at `text[i]`
/// (its code point in `cp`), or 0 if the bytes there are not valid UTF-8.
static unsigned utf8SequenceLength(llvm::StringRef text, size_t i,
                                   uint32_t &cp) {
  auto byte = [&](size_t j) { return static_cast<uint8_t>(text[j]); };
  uint8_t lead = byte(i);
  unsigned length;
  uint32_t min;
  if ((lead & 0xE0) == 0xC0) {
    length = 2;
    cp = lead & 0x1F;
    min = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3;
    cp = lead & 0x0F;
    min = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4;
    cp = lead & 0x07;
    min = 0x10000;
  } else {
    return 0;
  }
  if (i + length > text.size())
    return 0;
  for (unsigned k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80)
      return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return length;
}

/// Whether a non-ASCII code point is one a terminal may act on, or that
/// changes how the text reads: C1 controls, zero-width and bidirectional
/// formatting characters, the byte order mark.
static bool isInvisibleControl(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || (cp >= 0x200B && cp <= 0x200F) ||
         (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) ||
         cp == 0xFEFF;
}

/// Escapes what a terminal should not receive raw: control characters
/// (except tabs, and newlines if `keepNewlines`) and DEL become `\xNN`, as
/// do bytes of invalid UTF-8; invisible or bidirectional Unicode controls
/// become `\uNNNN`. If `offsets` is given, it receives for every byte offset
/// of `text` (and its end) the offset in the result. Returns whether
/// anything was escaped.
static bool escapeForTerminal(llvm::StringRef text, bool keepNewlines,
                              std::string &out,
                              std::vector<unsigned> *offsets = nullptr) {
  bool escaped = false;
  out.clear();
  out.reserve(text.size());
  if (offsets)
    offsets->assign(text.size() + 1, 0);
  for (size_t i = 0; i < text.size();) {
    auto c = static_cast<uint8_t>(text[i]);
    unsigned length = 1;
    uint32_t cp = c;
    bool plain;
    if (c < 0x80) {
      plain = (c >= 0x20 && c != 0x7F) || c == '\t' ||
              (keepNewlines && c == '\n');
    } else {
      length = utf8SequenceLength(text, i, cp);
      plain = length != 0 && !isInvisibleControl(cp);
      if (length == 0) {
        length = 1;
        cp = c;
      }
    }
    for (unsigned k = 0; k < length; ++k) {
      if (offsets)
        (*offsets)[i + k] = out.size();
    }
    if (plain) {
      out.append(text.data() + i, length);
    } else {
      escaped = true;
      llvm::raw_string_ostream os(out);
      if (length == 1)
        os << llvm::format("\\x%02X", c);
      else
        os << llvm::format("\\u%04X", cp);
    }
    i += length;
  }
  if (offsets)
    offsets->back() = out.size();
  return escaped;
}

/// Renders a source line for display: escapes as escapeForTerminal does,
/// tabs expanded to the next multiple of 8 columns. `columns` receives the
/// display column of every byte offset of `line` (and of its end).
static std::string renderLine(llvm::StringRef line,
                              std::vector<unsigned> &columns) {
  std::string escaped;
  std::vector<unsigned> offsets;
  escapeForTerminal(line, /*keepNewlines=*/false, escaped, &offsets);
  // Display columns of the escaped text: one per character (UTF-8 lead
  // byte), tabs to the next tab stop.
  std::string shown;
  std::vector<unsigned> escapedColumns(escaped.size() + 1, 0);
  unsigned column = 0;
  for (size_t i = 0; i < escaped.size(); ++i) {
    escapedColumns[i] = column;
    char c = escaped[i];
    if (c == '\t') {
      unsigned next = (column / 8 + 1) * 8;
      shown.append(next - column, ' ');
      column = next;
      continue;
    }
    shown += c;
    if ((static_cast<uint8_t>(c) & 0xC0) != 0x80)
      ++column;
  }
  escapedColumns.back() = column;
  columns.resize(offsets.size());
  for (size_t i = 0; i < offsets.size(); ++i)
    columns[i] = escapedColumns[offsets[i]];
  return shown;
}

void SourceMgrDiagnosticSink::handle(const Diagnostic &diag) {
  std::string message;
  escapeForTerminal(diag.message, /*keepNewlines=*/true, message);
  llvm::SourceMgr::DiagKind kind = toDiagKind(diag.severity);
  if (!diag.loc.isValid()) {
    // Not tied to the source: `error: message`.
    llvm::SMDiagnostic(/*filename=*/"", kind, message)
        .print(nullptr, os, showColors);
    return;
  }
  llvm::SMDiagnostic sm =
      srcMgr.GetMessage(diag.loc, kind, message, diag.ranges, /*FixIts=*/{});
  llvm::StringRef lineText = sm.getLineContents();
  bool plainAscii = llvm::all_of(lineText, [](char c) {
    return (c >= 0x20 && c < 0x7F) || c == '\t';
  });
  if (sm.getLineNo() < 0 || sm.getColumnNo() < 0 || plainAscii) {
    sm.print(nullptr, os, showColors);
    return;
  }

  // A line with non-ASCII characters (which SMDiagnostic shows without a
  // caret) or with bytes to escape: show it ourselves, with the caret and
  // ranges at the display columns; the location stays the byte column.
  llvm::ColorMode mode =
      showColors ? llvm::ColorMode::Auto : llvm::ColorMode::Disable;
  llvm::WithColor(os, llvm::raw_ostream::SAVEDCOLOR, /*Bold=*/true,
                  /*BG=*/false, mode)
      << (sm.getFilename() == "-" ? llvm::StringRef("<stdin>")
                                  : sm.getFilename())
      << ':' << sm.getLineNo() << ':' << (sm.getColumnNo() + 1) << ": ";
  llvm::SMDiagnostic(/*filename=*/"", kind, message)
      .print(nullptr, os, showColors, /*ShowKindLabel=*/true,
             /*ShowLocation=*/false);
  std::vector<unsigned> columns;
  std::string shown = renderLine(lineText, columns);
  auto columnOf = [&](unsigned byte) {
    return columns[std::min<size_t>(byte, columns.size() - 1)];
  };
  std::string caret(columns.back() + 1, ' ');
  for (auto [start, end] : sm.getRanges())
    for (unsigned c = columnOf(start); c < columnOf(end) && c < caret.size();
         ++c)
      caret[c] = '~';
  caret[columnOf(sm.getColumnNo())] = '^';
  caret.erase(caret.find_last_not_of(' ') + 1);
  os << shown << '\n';
  llvm::WithColor(os, llvm::raw_ostream::GREEN, /*Bold=*/true, /*BG=*/false,
                  mode)
      << caret;
  os << '\n';
}
