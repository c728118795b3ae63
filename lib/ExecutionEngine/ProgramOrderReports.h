//===- ProgramOrderReports.h - the first N reports in program order -*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// What the CPU backend's run-time checks (the sanitizer, device
// assertions) report: from every worker thread, the events of a launch are
// counted, and the first `maxReports` of them in program order (program z,
// y, x, then element) are kept, so the report does not depend on the
// thread schedule.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_EXECUTIONENGINE_PROGRAMORDERREPORTS_H
#define TILEC_LIB_EXECUTIONENGINE_PROGRAMORDERREPORTS_H

#include "GridLauncher.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace tilec::cpu {

class ProgramOrderReports {
public:
  explicit ProgramOrderReports(unsigned maxReports) : maxReports(maxReports) {}

  /// Counts one event of element `element` in `program`; returns whether
  /// its text would be kept (so that a caller builds the text only then).
  bool count(ProgramId program, std::int64_t element) {
    total.fetch_add(1, std::memory_order_relaxed);
    std::lock_guard<std::mutex> lock(mutex);
    return maxReports != 0 && (reports.size() < maxReports ||
                               before(key(program, element), reports.back()));
  }

  /// Keeps `text` for an event counted with count() that it said to keep.
  void add(ProgramId program, std::int64_t element, std::string text) {
    Report report = key(program, element);
    report.text = std::move(text);
    std::lock_guard<std::mutex> lock(mutex);
    reports.insert(llvm::upper_bound(reports, report, before), std::move(report));
    if (reports.size() > maxReports)
      reports.pop_back();
  }

  /// The number of events counted.
  std::uint64_t getCount() const { return total.load(); }

  /// One line per kept report, then "… and N more <what>" when events were
  /// left out.
  void print(llvm::raw_ostream &os, llvm::StringRef what) {
    std::lock_guard<std::mutex> lock(mutex);
    for (const Report &report : reports)
      os << report.text << "\n";
    std::uint64_t count = total.load();
    if (count > reports.size())
      os << "… and " << (count - reports.size()) << " more" << what << "\n";
  }

private:
  struct Report {
    std::array<unsigned, 3> zyx;
    std::int64_t element;
    std::string text;
  };
  static Report key(ProgramId program, std::int64_t element) {
    return {{program[2], program[1], program[0]}, element, ""};
  }
  static bool before(const Report &a, const Report &b) {
    return std::tie(a.zyx, a.element) < std::tie(b.zyx, b.element);
  }

  unsigned maxReports;
  std::atomic<std::uint64_t> total{0};
  std::mutex mutex;
  std::vector<Report> reports;
};

} // namespace tilec::cpu

#endif // TILEC_LIB_EXECUTIONENGINE_PROGRAMORDERREPORTS_H
