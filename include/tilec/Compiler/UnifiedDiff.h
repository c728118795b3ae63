//===- UnifiedDiff.h - line diffs in the unified format ---------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A line-based diff in the unified format of GNU diff and `patch` (hunks
// `@@ -a,b +c,d @@` with `context` lines around each change), for the
// pass-by-pass IR dumps (`--dump-ir`). LLVM has no text diff of its own
// (llvm/ADT/edit_distance.h computes the distance only), so this is the
// greedy O((N+M)D) algorithm of E. W. Myers, "An O(ND) Difference Algorithm
// and Its Variations", Algorithmica 1(2), 1986, §2-3, on the lines left
// after the common prefix and suffix are stripped.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_COMPILER_UNIFIEDDIFF_H
#define TILEC_COMPILER_UNIFIEDDIFF_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace tilec {

/// The unified diff turning `before` into `after` (texts split at '\n'),
/// with headers `--- beforeName` and `+++ afterName`; empty when the texts
/// are equal. When more than `maxEdits` lines differ (after the common
/// prefix and suffix), the middle is given as one hunk that deletes all old
/// lines and inserts all new ones instead of a minimal script (still a
/// correct diff, bounded in time and memory: O((N+M) * maxEdits)).
/// A text not ending in '\n' gets `\ No newline at end of file`, as in GNU
/// diff, so `patch` reproduces it byte for byte.
std::string makeUnifiedDiff(llvm::StringRef before, llvm::StringRef after,
                            llvm::StringRef beforeName,
                            llvm::StringRef afterName, unsigned context = 3,
                            unsigned maxEdits = 4000);

} // namespace tilec

#endif // TILEC_COMPILER_UNIFIEDDIFF_H
