//===- ExplainCommand.h - `tilec explain` -----------------------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// tilec explain FILE --kernel K --signature SIG: per load, dot and loop,
// what the compiler decided and why (docs/cli.md).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TOOLS_TILEC_EXPLAINCOMMAND_H
#define TILEC_TOOLS_TILEC_EXPLAINCOMMAND_H

#include "llvm/Support/CommandLine.h"

namespace tilec::tool {

/// The `explain` subcommand and its option category.
llvm::cl::SubCommand &getExplainSubCommand();
llvm::cl::OptionCategory &getExplainCategory();

/// Runs `tilec explain` with the parsed options; returns the exit status.
int explainMain();

} // namespace tilec::tool

#endif // TILEC_TOOLS_TILEC_EXPLAINCOMMAND_H
