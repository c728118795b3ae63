//===- GridLauncher.h - running every program of a grid ---------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_EXECUTIONENGINE_GRIDLAUNCHER_H
#define TILEC_LIB_EXECUTIONENGINE_GRIDLAUNCHER_H

#include "llvm/ADT/STLFunctionalExtras.h"

#include <array>
#include <cstdint>

namespace tilec::cpu {

/// A program id (x, y, z).
using ProgramId = std::array<unsigned, 3>;

/// The number of worker threads `runGrid` uses for `grid`: `threads` (0:
/// one per hardware thread), at most one per program.
unsigned getNumWorkers(std::array<unsigned, 3> grid, unsigned threads);

/// Calls `program(worker, id)` once for every program id of `grid`, on
/// `workers` threads (the calling thread is worker 0); returns when all
/// calls have returned. Programs are independent (Triton's semantics), so
/// they are handed out in chunks from a shared counter, x fastest.
void runGrid(std::array<unsigned, 3> grid, unsigned workers,
             llvm::function_ref<void(unsigned worker, ProgramId id)> program);

} // namespace tilec::cpu

#endif // TILEC_LIB_EXECUTIONENGINE_GRIDLAUNCHER_H
