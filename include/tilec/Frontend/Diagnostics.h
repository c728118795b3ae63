//===- Diagnostics.h - Frontend diagnostic sink -----------------*- C++ -*-===//
//
// Part of the tilec project.
//
//===----------------------------------------------------------------------===//
//
// Every problem the frontend finds in the user's source (lexer, parser, and
// the AST-to-IR code generator) is reported through a DiagnosticSink: a
// located severity + message, optionally with highlighted ranges. The sink
// decides what to do with it: print it the way llvm::SourceMgr does
// (`file:line:col: error: message`, the source line, a caret), keep it for a
// test or an API caller, or forward it elsewhere.
//
// A diagnostic is one line; follow-up context (for example "called from
// here") is a separate `note` reported right after it.
//
// Like clang's -ferror-limit, a sink stops after a number of errors (20 by
// default; see setErrorLimit): the next error is replaced by "too many errors
// emitted, stopping now", everything reported after it is dropped, and the
// lexer, parser and code generator check hasReachedErrorLimit() to stop
// early.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FRONTEND_DIAGNOSTICS_H
#define TILEC_FRONTEND_DIAGNOSTICS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/SMLoc.h"

#include <string>
#include <vector>

namespace llvm {
class SourceMgr;
class raw_ostream;
} // namespace llvm

namespace tilec::frontend {

/// How bad a diagnostic is. Only errors make a compilation fail.
enum class DiagSeverity { Error, Warning, Remark, Note };

/// One reported problem. `loc` may be invalid for problems that are not tied
/// to the source (the message is then printed without a location).
struct Diagnostic {
  DiagSeverity severity = DiagSeverity::Error;
  llvm::SMLoc loc;
  std::string message;
  /// Extra source ranges to underline with '~' (may be empty).
  llvm::SmallVector<llvm::SMRange, 1> ranges;
};

/// Receives the frontend's diagnostics. Subclasses implement `handle`; the
/// base class counts errors so that a phase can tell whether it failed.
class DiagnosticSink {
public:
  DiagnosticSink() = default;
  DiagnosticSink(const DiagnosticSink &) = delete;
  DiagnosticSink &operator=(const DiagnosticSink &) = delete;
  virtual ~DiagnosticSink();

  /// Reports a diagnostic of any severity.
  void report(DiagSeverity severity, llvm::SMLoc loc, const llvm::Twine &msg,
              llvm::ArrayRef<llvm::SMRange> ranges = {});

  void error(llvm::SMLoc loc, const llvm::Twine &msg,
             llvm::ArrayRef<llvm::SMRange> ranges = {}) {
    report(DiagSeverity::Error, loc, msg, ranges);
  }
  void warning(llvm::SMLoc loc, const llvm::Twine &msg,
               llvm::ArrayRef<llvm::SMRange> ranges = {}) {
    report(DiagSeverity::Warning, loc, msg, ranges);
  }
  void note(llvm::SMLoc loc, const llvm::Twine &msg,
            llvm::ArrayRef<llvm::SMRange> ranges = {}) {
    report(DiagSeverity::Note, loc, msg, ranges);
  }

  /// Number of errors reported so far (warnings and notes do not count).
  unsigned getNumErrors() const { return numErrors; }

  /// The default of setErrorLimit (clang's -ferror-limit default).
  static constexpr unsigned kDefaultErrorLimit = 20;
  /// Sets how many errors are handled before the sink stops: the error after
  /// the `limit`-th is replaced by "too many errors emitted, stopping now"
  /// (without a location), and every diagnostic after that is dropped.
  /// 0 means no limit.
  void setErrorLimit(unsigned limit) { errorLimit = limit; }
  unsigned getErrorLimit() const { return errorLimit; }
  /// Whether the error limit was exceeded; producers of diagnostics should
  /// stop working (their further reports are dropped anyway).
  bool hasReachedErrorLimit() const { return stopped; }

protected:
  /// Called once per reported diagnostic, in report order.
  virtual void handle(const Diagnostic &diag) = 0;

private:
  unsigned numErrors = 0;
  unsigned errorLimit = kDefaultErrorLimit;
  bool stopped = false;
};

/// Prints each diagnostic with llvm::SourceMgr::PrintMessage to a stream:
///
///   k.tile:3:13: error: expected ':' after 'if' condition, found end of line
///       if x > 0
///               ^
///
/// The terminal never receives raw binary: in the message and in the shown
/// source line, control characters (other than tabs, and newlines in the
/// message), DEL and bytes that are not valid UTF-8 are printed escaped as
/// `\xNN`, with the caret and ranges moved to match (the `line:col` stays
/// the byte column in the file).
class SourceMgrDiagnosticSink final : public DiagnosticSink {
public:
  SourceMgrDiagnosticSink(const llvm::SourceMgr &srcMgr, llvm::raw_ostream &os,
                          bool showColors = false)
      : srcMgr(srcMgr), os(os), showColors(showColors) {}

protected:
  void handle(const Diagnostic &diag) override;

private:
  const llvm::SourceMgr &srcMgr;
  llvm::raw_ostream &os;
  bool showColors;
};

/// Keeps every diagnostic in memory, for tests and for API callers that
/// render diagnostics themselves.
class StoringDiagnosticSink final : public DiagnosticSink {
public:
  llvm::ArrayRef<Diagnostic> getDiagnostics() const { return diagnostics; }
  void clear() { diagnostics.clear(); }

protected:
  void handle(const Diagnostic &diag) override { diagnostics.push_back(diag); }

private:
  std::vector<Diagnostic> diagnostics;
};

} // namespace tilec::frontend

#endif // TILEC_FRONTEND_DIAGNOSTICS_H
