//===- UnifiedDiffTest.cpp - makeUnifiedDiff ------------------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The diffs of the --dump-ir report: applying one (strictly, as `patch`
// would: context and deleted lines must match) gives the new text byte for
// byte, the script is minimal (its deletions and insertions are
// n + m - 2 LCS, the LCS by dynamic programming), and the format is GNU
// diff's.
//
//===----------------------------------------------------------------------===//

#include "tilec/Compiler/UnifiedDiff.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "gtest/gtest.h"

#include <random>
#include <string>
#include <vector>

using namespace tilec;

namespace {

std::vector<std::string> lines(llvm::StringRef text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    size_t end = text.find('\n');
    end = end == llvm::StringRef::npos ? text.size() : end + 1;
    out.push_back(text.take_front(end).str());
    text = text.drop_front(end);
  }
  return out;
}

/// `before` patched with `diff`; fails the test on a mismatch.
std::string apply(llvm::StringRef before, llvm::StringRef diff, int *edits) {
  std::vector<std::string> old = lines(before), d = lines(diff);
  std::string out;
  size_t pos = 0;
  *edits = 0;
  EXPECT_GE(d.size(), 2u);
  for (size_t i = 2; i < d.size();) {
    unsigned start = 0, count = 1;
    llvm::StringRef header(d[i]);
    EXPECT_TRUE(header.consume_front("@@ -")) << d[i];
    header.consumeInteger(10, start);
    if (header.consume_front(","))
      header.consumeInteger(10, count);
    size_t from = count ? start - 1 : start;
    EXPECT_GE(from, pos);
    for (; pos < from; ++pos)
      out += old[pos];
    for (++i; i < d.size() && !llvm::StringRef(d[i]).starts_with("@@"); ++i) {
      char tag = d[i][0];
      std::string text = d[i].substr(1);
      if (i + 1 < d.size() && llvm::StringRef(d[i + 1]).starts_with("\\ No newline")) {
        text.pop_back();
        ++i;
      }
      if (tag == ' ' || tag == '-') {
        EXPECT_LT(pos, old.size());
        if (pos < old.size())
          EXPECT_EQ(old[pos], text);
        ++pos;
      }
      if (tag == ' ' || tag == '+')
        out += text;
      if (tag != ' ')
        ++*edits;
    }
  }
  for (; pos < old.size(); ++pos)
    out += old[pos];
  return out;
}

int lcs(const std::vector<std::string> &a, const std::vector<std::string> &b) {
  std::vector<std::vector<int>> t(a.size() + 1, std::vector<int>(b.size() + 1));
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j)
      t[i][j] = a[i - 1] == b[j - 1] ? t[i - 1][j - 1] + 1
                                     : std::max(t[i - 1][j], t[i][j - 1]);
  return t[a.size()][b.size()];
}

TEST(UnifiedDiffTest, RandomEditsPatchBackAndAreMinimal) {
  std::mt19937 rng(20261202);
  const char *alphabet[] = {"a\n", "b\n", "c\n", "%0 = arith.addi\n", "}\n", "d"};
  for (int round = 0; round < 300; ++round) {
    auto text = [&](int n) {
      std::string t;
      for (int i = 0; i < n; ++i)
        t += alphabet[rng() % 5];
      if (rng() % 4 == 0)
        t += alphabet[5]; // no newline at the end
      return t;
    };
    std::string a = text(rng() % 40), b = text(rng() % 40);
    std::string diff = makeUnifiedDiff(a, b, "a.mlir", "b.mlir", rng() % 4);
    if (a == b) {
      EXPECT_EQ(diff, "");
      continue;
    }
    ASSERT_TRUE(llvm::StringRef(diff).starts_with("--- a.mlir\n+++ b.mlir\n"));
    int edits = 0;
    EXPECT_EQ(apply(a, diff, &edits), b) << diff;
    std::vector<std::string> la = lines(a), lb = lines(b);
    EXPECT_EQ(edits, int(la.size() + lb.size()) - 2 * lcs(la, lb)) << diff;
  }
}

TEST(UnifiedDiffTest, GnuFormat) {
  // What `diff -u` prints for these texts (headers aside).
  std::string a = "1\n2\n3\n4\n5\n6\n7\n8\n9\n", b = "1\n2\nthree\n4\n5\n6\n7\n8\n9\nten";
  EXPECT_EQ(makeUnifiedDiff(a, b, "a", "b", 1),
            "--- a\n+++ b\n@@ -2,3 +2,3 @@\n 2\n-3\n+three\n 4\n@@ -9 +9,2 @@\n 9\n+ten\n"
            "\\ No newline at end of file\n");
}

TEST(UnifiedDiffTest, TooManyEditsStillGiveACorrectDiff) {
  std::string a, b;
  for (int i = 0; i < 300; ++i) {
    a += "old " + std::to_string(i) + "\n";
    b += "new " + std::to_string(i) + "\n";
  }
  std::string diff = makeUnifiedDiff(a, b, "a", "b", 3, /*maxEdits=*/50);
  int edits = 0;
  EXPECT_EQ(apply(a, diff, &edits), b);
  EXPECT_EQ(edits, 600);
}

} // namespace
