//===- Diagnostics.cpp - Frontend diagnostic sink -------------------------===//
//
// Part of the tilec project.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Diagnostics.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace tilec::frontend;

DiagnosticSink::~DiagnosticSink() = default;

void DiagnosticSink::report(DiagSeverity severity, llvm::SMLoc loc,
                            const llvm::Twine &msg,
                            llvm::ArrayRef<llvm::SMRange> ranges) {
  if (severity == DiagSeverity::Error)
    ++numErrors;
  Diagnostic diag;
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

void SourceMgrDiagnosticSink::handle(const Diagnostic &diag) {
  srcMgr.PrintMessage(os, diag.loc, toDiagKind(diag.severity), diag.message,
                      diag.ranges, /*FixIts=*/{}, showColors);
}
