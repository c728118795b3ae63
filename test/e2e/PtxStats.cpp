//===- PtxStats.cpp - Notable instructions in generated PTX ---------------===//

#include "PtxStats.h"

#include <fstream>

namespace tilec::e2e {

namespace {
/// Display name and the texts an instruction starts with (after any
/// predicate; the second may be null). Order is the table's order.
struct Pattern {
  const char *name;
  const char *prefix;
  const char *otherPrefix;
};
const Pattern kPatterns[] = {
    {"ld.global.v4", "ld.global.v4", "ld.global.nc.v4"},
    {"ld.global.v2", "ld.global.v2", "ld.global.nc.v2"},
    {"st.global.v4", "st.global.v4", nullptr},
    {"st.global.v2", "st.global.v2", nullptr},
    {"shfl.sync", "shfl.sync", nullptr},
    {"bar.sync", "bar.sync", "barrier.sync"},
    {"ex2.approx", "ex2.approx", nullptr},
    {"fma.rn", "fma.rn", nullptr},
    {"mma.sync", "mma.sync", nullptr},
    {"wgmma", "wgmma.mma_async", nullptr},
    {"ldmatrix", "ldmatrix", nullptr},
    {"cp.async", "cp.async.cg", "cp.async.ca"},
    {"cp.async.bulk.tensor", "cp.async.bulk.tensor", nullptr},
    {"mbarrier", "mbarrier", nullptr},
};

/// The instruction of a PTX line: leading blanks and a "@%p1 " predicate
/// stripped; empty for comments, directives and labels.
std::string instructionOf(const std::string &line) {
  std::size_t at = line.find_first_not_of(" \t");
  if (at == std::string::npos || line.compare(at, 2, "//") == 0)
    return "";
  if (line[at] == '@') {
    at = line.find_first_of(" \t", at);
    if (at == std::string::npos)
      return "";
    at = line.find_first_not_of(" \t", at);
    if (at == std::string::npos)
      return "";
  }
  return line.substr(at);
}
} // namespace

PtxStats scanPtx(const std::string &path) {
  PtxStats stats;
  std::ifstream in(path);
  if (!in)
    return stats;
  stats.found = true;
  std::vector<int> counts(std::size(kPatterns), 0);
  std::string line;
  while (std::getline(in, line)) {
    std::string instruction = instructionOf(line);
    if (instruction.empty())
      continue;
    for (std::size_t i = 0; i < std::size(kPatterns); ++i)
      if (instruction.rfind(kPatterns[i].prefix, 0) == 0 ||
          (kPatterns[i].otherPrefix &&
           instruction.rfind(kPatterns[i].otherPrefix, 0) == 0))
        ++counts[i];
  }
  for (std::size_t i = 0; i < std::size(kPatterns); ++i)
    if (counts[i] > 0)
      stats.counts.push_back({kPatterns[i].name, counts[i]});
  return stats;
}

std::string PtxStats::summary() const {
  if (!found)
    return "no PTX";
  if (counts.empty())
    return "-";
  std::string text;
  for (const auto &[name, count] : counts)
    text += (text.empty() ? "" : ", ") + name + " x" + std::to_string(count);
  return text;
}

} // namespace tilec::e2e
