//===- FrontendTestUtils.h - Frontend unit test helpers ---------*- C++ -*-===//
//
// Part of the tilec project.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TEST_UNITTESTS_FRONTEND_FRONTENDTESTUTILS_H
#define TILEC_TEST_UNITTESTS_FRONTEND_FRONTENDTESTUTILS_H

#include "tilec/Frontend/AST.h"
#include "tilec/Frontend/Diagnostics.h"
#include "tilec/Frontend/Parser.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

namespace tilec::frontend::testing {

/// A source buffer, the parse of it, and what was reported.
struct ParseResult {
  std::unique_ptr<llvm::SourceMgr> srcMgr;
  std::unique_ptr<ModuleAST> module;
  /// Each diagnostic as "line:col: message".
  std::vector<std::string> diagnostics;

  /// The module dump (empty if parsing failed).
  std::string dump() const {
    std::string out;
    llvm::raw_string_ostream os(out);
    if (module)
      dumpAST(*module, os);
    return out;
  }
};

/// Adds `source` to a fresh SourceMgr under the name "test.tile".
inline std::unique_ptr<llvm::SourceMgr> makeSourceMgr(llvm::StringRef source) {
  auto srcMgr = std::make_unique<llvm::SourceMgr>();
  srcMgr->AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, "test.tile"), llvm::SMLoc());
  return srcMgr;
}

/// Formats a stored diagnostic as "line:col: message".
inline std::string formatDiagnostic(const llvm::SourceMgr &srcMgr,
                                    const Diagnostic &diag) {
  auto [line, col] = srcMgr.getLineAndColumn(diag.loc);
  return std::to_string(line) + ":" + std::to_string(col) + ": " + diag.message;
}

inline ParseResult parse(llvm::StringRef source) {
  ParseResult result;
  result.srcMgr = makeSourceMgr(source);
  StoringDiagnosticSink sink;
  result.module = parseModule(*result.srcMgr, 1, sink);
  for (const Diagnostic &diag : sink.getDiagnostics())
    result.diagnostics.push_back(formatDiagnostic(*result.srcMgr, diag));
  return result;
}

} // namespace tilec::frontend::testing

#endif // TILEC_TEST_UNITTESTS_FRONTEND_FRONTENDTESTUTILS_H
