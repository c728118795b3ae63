//===- UnifiedDiff.cpp - line diffs in the unified format -----------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Myers' greedy algorithm (E. W. Myers, "An O(ND) Difference Algorithm and
// Its Variations", Algorithmica 1(2):251-266, 1986, Fig. 2), keeping the
// furthest-reaching D-paths of every round to recover the edit script, and
// GNU diff's hunk grouping (changes closer than 2 * context lines share a
// hunk).
//
//===----------------------------------------------------------------------===//

#include "tilec/Compiler/UnifiedDiff.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <vector>

using namespace tilec;

namespace {
/// One line of the edit script: ' ' kept, '-' deleted, '+' inserted.
struct Edit {
  char kind;
  llvm::StringRef line;
};
} // namespace

/// The lines of `text`, each with its '\n' (the last one may lack it).
static std::vector<llvm::StringRef> splitLines(llvm::StringRef text) {
  std::vector<llvm::StringRef> lines;
  while (!text.empty()) {
    size_t end = text.find('\n');
    end = end == llvm::StringRef::npos ? text.size() : end + 1;
    lines.push_back(text.take_front(end));
    text = text.drop_front(end);
  }
  return lines;
}

/// The shortest edit script from `a` to `b` (Myers' greedy algorithm), or
/// false when it needs more than `maxEdits` insertions and deletions.
static bool shortestEditScript(llvm::ArrayRef<llvm::StringRef> a,
                               llvm::ArrayRef<llvm::StringRef> b,
                               unsigned maxEdits, std::vector<Edit> &script) {
  const int n = a.size(), m = b.size();
  const int limit = std::min<int>(n + m, maxEdits);
  const int offset = limit + 1;
  // v[offset + k]: the furthest x reached on diagonal k = x - y.
  std::vector<int> v(2 * limit + 3, 0);
  // trace[d]: v over diagonals -d..d before round d.
  std::vector<std::vector<int>> trace;
  int found = -1;
  for (int d = 0; d <= limit && found < 0; ++d) {
    trace.emplace_back(v.begin() + offset - d, v.begin() + offset + d + 1);
    for (int k = -d; k <= d; k += 2) {
      int x = (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]))
                  ? v[offset + k + 1]
                  : v[offset + k - 1] + 1;
      int y = x - k;
      while (x < n && y < m && a[x] == b[y]) {
        ++x;
        ++y;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
  }
  if (found < 0)
    return false;
  // Walk back from (n, m) through the rounds, collecting the script in
  // reverse.
  std::vector<Edit> reversed;
  int x = n, y = m;
  for (int d = found; d > 0; --d) {
    const std::vector<int> &prev = trace[d];
    auto at = [&](int k) { return prev[k + d]; };
    int k = x - y;
    bool down = k == -d || (k != d && at(k - 1) < at(k + 1));
    int prevK = down ? k + 1 : k - 1;
    int prevX = at(prevK), prevY = prevX - prevK;
    int startX = down ? prevX : prevX + 1;
    while (x > startX) {
      reversed.push_back({' ', a[x - 1]});
      --x;
      --y;
    }
    if (down)
      reversed.push_back({'+', b[--y]});
    else
      reversed.push_back({'-', a[--x]});
    (void)prevY;
  }
  while (x > 0 && y > 0) {
    reversed.push_back({' ', a[x - 1]});
    --x;
    --y;
  }
  script.insert(script.end(), reversed.rbegin(), reversed.rend());
  return true;
}

std::string tilec::makeUnifiedDiff(llvm::StringRef before, llvm::StringRef after,
                                   llvm::StringRef beforeName,
                                   llvm::StringRef afterName, unsigned context,
                                   unsigned maxEdits) {
  if (before == after)
    return "";
  std::vector<llvm::StringRef> a = splitLines(before), b = splitLines(after);
  size_t prefix = 0;
  while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix])
    ++prefix;
  size_t suffix = 0;
  while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
         a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix])
    ++suffix;
  std::vector<Edit> edits;
  for (size_t i = 0; i < prefix; ++i)
    edits.push_back({' ', a[i]});
  llvm::ArrayRef<llvm::StringRef> midA(a.data() + prefix, a.size() - prefix - suffix);
  llvm::ArrayRef<llvm::StringRef> midB(b.data() + prefix, b.size() - prefix - suffix);
  if (!shortestEditScript(midA, midB, maxEdits, edits)) {
    for (llvm::StringRef line : midA)
      edits.push_back({'-', line});
    for (llvm::StringRef line : midB)
      edits.push_back({'+', line});
  }
  for (size_t i = a.size() - suffix; i < a.size(); ++i)
    edits.push_back({' ', a[i]});

  // Line numbers (0-based) in `before` and `after` where each edit starts.
  size_t count = edits.size();
  std::vector<size_t> oldPos(count + 1), newPos(count + 1);
  for (size_t i = 0; i < count; ++i) {
    oldPos[i + 1] = oldPos[i] + (edits[i].kind != '+');
    newPos[i + 1] = newPos[i] + (edits[i].kind != '-');
  }
  std::string out;
  llvm::raw_string_ostream os(out);
  os << "--- " << beforeName << "\n+++ " << afterName << "\n";
  auto range = [](size_t start, size_t lines) {
    // GNU diff: "s" for one line, "s,n" otherwise, and the line before the
    // hunk for an empty range.
    if (lines == 1)
      return llvm::formatv("{0}", start + 1).str();
    return llvm::formatv("{0},{1}", lines == 0 ? start : start + 1, lines).str();
  };
  size_t i = 0;
  while (true) {
    size_t change = i;
    while (change < count && edits[change].kind == ' ')
      ++change;
    if (change == count)
      break;
    size_t start = change >= i + context ? change - context : i;
    size_t j = change;
    while (true) {
      while (j < count && edits[j].kind != ' ')
        ++j;
      size_t k = j;
      while (k < count && edits[k].kind == ' ' && k - j <= 2 * context)
        ++k;
      if (k < count && edits[k].kind != ' ') {
        j = k;
        continue;
      }
      break;
    }
    size_t end = std::min(count, j + context);
    os << "@@ -" << range(oldPos[start], oldPos[end] - oldPos[start]) << " +"
       << range(newPos[start], newPos[end] - newPos[start]) << " @@\n";
    for (size_t e = start; e < end; ++e) {
      os << edits[e].kind << edits[e].line;
      if (!edits[e].line.ends_with("\n"))
        os << "\n\\ No newline at end of file\n";
    }
    i = end;
  }
  return out;
}
