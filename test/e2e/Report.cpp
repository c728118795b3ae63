//===- Report.cpp - Results of a harness run ------------------------------===//

#include "Report.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>

namespace tilec::e2e {

namespace {

std::string format(const char *fmt, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), fmt, value);
  return buffer;
}

std::string sci(double value) {
  if (std::isinf(value))
    return "inf";
  if (std::isnan(value))
    return "nan";
  return format("%.2e", value);
}

/// Throughput in FLOP/s for arithmetic-heavy cases, else bytes/s.
bool reportsFlops(const CaseResult &result) {
  return result.flops > 0 &&
         (result.bytesMoved == 0 || result.flops / result.bytesMoved >= 8);
}

std::string cell(std::string text) {
  std::replace(text.begin(), text.end(), '|', '/');
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

} // namespace

double CaseResult::maxRelErr() const {
  double worst = 0;
  for (const CheckResult &check : checks)
    worst = std::max(worst, check.maxRelErr);
  return worst;
}

double CaseResult::relL2() const {
  double worst = 0;
  for (const CheckResult &check : checks)
    worst = std::max(worst, check.relL2);
  return worst;
}

double CaseResult::rtol() const {
  double loosest = 0;
  for (const CheckResult &check : checks)
    loosest = std::max(loosest, check.tolerance.rtol);
  return loosest;
}

/// Three significant digits below 100, whole numbers above.
std::string rate(double value, const char *unit) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), value >= 100 ? "%.0f %s" : "%.3g %s",
                value, unit);
  return buffer;
}

std::string CaseResult::throughput() const {
  if (micros <= 0)
    return "";
  if (reportsFlops(*this))
    return rate(flops / (micros * 1e-6) / 1e12, "TFLOP/s");
  if (bytesMoved > 0)
    return rate(bytesMoved / (micros * 1e-6) / 1e9, "GB/s");
  return "";
}

std::string caseLine(const CaseResult &result,
                     const std::string &sharedSkipReason) {
  std::string line = std::string(result.status()) + "  " + result.spec->name;
  if (!result.compiled)
    return line + "  compile failed: " + result.compileError;
  line += result.commandLine.empty()
              ? std::string("  (existing artifacts)")
              : format("  (compiled in %.1f s)", result.compileSeconds);
  if (!result.runError.empty())
    return line + "  run failed: " + result.runError;
  if (!result.ran)
    return line + (result.skipReason == sharedSkipReason && !sharedSkipReason.empty()
                       ? "  run skipped (reason above)"
                       : "  run skipped: " + result.skipReason);
  if (result.loadedFromPtx)
    line += "  (PTX JIT: no cubin)";
  line += "  max rel err " + sci(result.maxRelErr()) + ", rel L2 " +
          sci(result.relL2()) + " (rtol " + format("%g", result.rtol()) + ")";
  if (result.micros > 0)
    line += format(", %.1f us", result.micros) + ", " + result.throughput();
  for (const CheckResult &check : result.checks)
    if (!check.pass) {
      line += "\n      " + check.tensor + ": " +
              std::to_string(check.failures) + " of " +
              std::to_string(check.elements) + " elements out of tolerance";
      if (check.unexpectedNaN)
        line += " (" + std::to_string(check.unexpectedNaN) + " NaN)";
      for (const std::string &example : check.examples)
        line += "\n        " + example;
    }
  return line;
}

std::string markdownTable(const std::vector<CaseResult> &results) {
  std::string table =
      "| kernel | shape | dtype | registers | smem bytes | notable "
      "instructions | max rel err | rel L2 | rtol | pass | time us | GB/s or "
      "TFLOP/s | ratio vs torch |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const CaseResult &r : results) {
    const CaseSpec &spec = *r.spec;
    std::string pass = r.status();
    if (!r.compiled)
      pass += ": compile failed";
    else if (!r.runError.empty())
      pass += ": " + r.runError;
    std::string errors, l2, rtol, time, speed, ratio;
    if (r.ran) {
      errors = sci(r.maxRelErr());
      l2 = sci(r.relL2());
      rtol = format("%g", r.rtol());
      if (r.micros > 0) {
        time = format("%.1f", r.micros);
        speed = r.throughput();
        if (r.baselineMicros)
          ratio = format("%.2f", *r.baselineMicros / r.micros);
      }
    } else if (r.compiled && r.runError.empty()) {
      // The reason is printed once, above the table.
      errors = l2 = rtol = time = speed = ratio = "-";
    }
    table += "| " + cell(spec.name + " (" + spec.kernel + ")") + " | " +
             cell(spec.shapeText()) + " | " + cell(spec.dtype) + " | " +
             (r.registers >= 0 ? std::to_string(r.registers) : "?") + " | " +
             (r.sharedBytes >= 0 ? std::to_string(r.sharedBytes) : "?") +
             " | " + cell(r.notable) + " | " + cell(errors) + " | " +
             cell(l2) + " | " + cell(rtol) + " | " + cell(pass) + " | " +
             cell(time) + " | " + cell(speed) + " | " + cell(ratio) + " |\n";
  }
  return table;
}

bool writeJson(const std::string &path, const std::vector<CaseResult> &results,
               std::uint64_t seed, const std::string &device) {
  using nlohmann::json;
  auto finite = [](double value) -> json {
    return std::isfinite(value) ? json(value) : json(nullptr);
  };
  json cases = json::array();
  for (const CaseResult &r : results) {
    json checks = json::array();
    for (const CheckResult &c : r.checks)
      checks.push_back({{"tensor", c.tensor},
                        {"pass", c.pass},
                        {"rtol", c.tolerance.rtol},
                        {"atol", c.tolerance.atol},
                        {"max_rel_err", finite(c.maxRelErr)},
                        {"rel_l2", finite(c.relL2)},
                        {"elements", c.elements},
                        {"failures", c.failures},
                        {"unexpected_nan", c.unexpectedNaN},
                        {"examples", c.examples}});
    json sizes = json::object();
    for (const auto &[key, value] : r.spec->sizes)
      sizes[key] = value;
    json entry = {{"name", r.spec->name},
                  {"family", r.spec->family},
                  {"file", r.spec->file},
                  {"kernel", r.spec->kernel},
                  {"signature", r.spec->signature},
                  {"num_warps", r.spec->numWarps},
                  {"dtype", r.spec->dtype},
                  {"sizes", sizes},
                  {"status", r.status()},
                  {"compiled", r.compiled},
                  {"compile_error", r.compileError},
                  {"compile_seconds", r.compileSeconds},
                  {"command", r.commandLine},
                  {"registers", r.registers},
                  {"shared_bytes", r.sharedBytes},
                  {"notable_instructions", r.notable},
                  {"ran", r.ran},
                  {"run_error", r.runError},
                  {"skip_reason", r.skipReason},
                  {"seed", r.seed},
                  {"checks", checks},
                  {"micros", r.micros > 0 ? json(r.micros) : json(nullptr)},
                  {"timed_runs", r.timedRuns},
                  {"bytes", r.bytesMoved},
                  {"flops", r.flops},
                  {"throughput", r.throughput()},
                  {"baseline_micros",
                   r.baselineMicros ? json(*r.baselineMicros) : json(nullptr)}};
    cases.push_back(entry);
  }
  json root = {{"seed", seed}, {"device", device}, {"cases", cases}};
  std::ofstream out(path);
  out << root.dump(2) << "\n";
  return static_cast<bool>(out);
}

} // namespace tilec::e2e
