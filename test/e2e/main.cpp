//===- main.cpp - tilec-e2e: compile, run and check every example ---------===//
//
// For each case: compile the example with the tilec CLI, check the metadata
// against the case, run the kernel on fresh random inputs (GPU backend),
// compare with a float64 reference, optionally time it, and print a line.
// At the end: a markdown table, a summary, and an exit code that is non-zero
// if any compile or check failed. Without a GPU every case is still compiled
// and the run columns say why they were skipped.
//
//===----------------------------------------------------------------------===//

#include "ArtifactCheck.h"
#include "Case.h"
#include "Compare.h"
#include "Compiler.h"
#include "CpuReference.h"
#include "GpuBackend.h"
#include "PtxStats.h"
#include "Report.h"

#include "tilec/Runtime/KernelMetadata.h"

#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <regex>
#include <string>
#include <vector>

#ifndef TILEC_E2E_EXAMPLES_DIR
#define TILEC_E2E_EXAMPLES_DIR "examples"
#endif

using namespace tilec;
using namespace tilec::e2e;

namespace {

struct Options {
  std::string tilec;
  std::string cpuTilec;
  std::string artifacts = "out/e2e";
  std::string examples;
  std::string filter;
  bool noRun = false;
  bool cpuFallback = false;
  bool noCompile = false;
  bool quick = false;
  bool list = false;
  int repeat = 0;
  bool flushL2 = true;
  std::string baseline;
  std::string json;
  std::string describe;
  std::optional<std::uint64_t> seed;
  int timeoutSeconds = 60;
  int compileTimeoutSeconds = 300;
  std::vector<std::string> tilecOptions;
};

const char *kUsage = R"(usage: tilec-e2e [options]

Compiles every example case with the tilec CLI, runs it on the GPU against a
float64 reference, and prints one line per case and a markdown table.

  --tilec PATH          the compiler (default: tilec next to this program)
  --cpu-tilec PATH      the tilec whose CPU backend computes the reference of
                        cases checked against the other backend (default:
                        tilec next to this program)
  --artifacts DIR       where <case>.cubin/.ptx/.json/.compile.log go
                        (default: out/e2e)
  --examples DIR        the examples directory (default: the source tree's)
  --filter REGEX        only cases whose name matches (ECMAScript, search)
  --quick               skip the large cases
  --no-run              compile and check artifacts only
  --cpu-fallback        without a GPU, run each case on the CPU backend of the
                        --cpu-tilec CLI (tilec run --backend cpu) and check it
                        against its reference (no timings; large cases and
                        cases checked against the CPU backend are skipped)
  --no-compile          reuse the artifacts already in --artifacts
  --repeat N            time N launches (after 3 warm-ups), report the median
  --no-flush-l2         do not flush the L2 cache before each timed launch
  --baseline FILE       JSON {"case": microseconds} of torch timings: ratios
  --json FILE           write all results as JSON
  --describe FILE       write the case list (names, families, sizes) as JSON
                        and exit (input of torch_baseline.py)
  --list                print the cases (signature, grid, tolerances) and exit
  --seed N              input seed (default: random, printed)
  --timeout SEC         longest wait for one kernel run (default 60)
  --compile-timeout SEC longest compile (default 300)
  --tilec-option ARG    pass ARG to every tilec invocation (repeatable), e.g.
                        --tilec-option=--mbarrier-spin-limit=4194304

Exit code: 0 if nothing failed, 1 if a compile or check failed, 2 for bad
usage.
)";

bool parseInt(const char *text, long long &out) {
  char *end = nullptr;
  out = std::strtoll(text, &end, 10);
  return end && *end == '\0' && end != text;
}

/// Parses argv; returns false (after printing why) on bad usage.
bool parseOptions(int argc, char **argv, Options &options) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *name) -> const char * {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "tilec-e2e: %s needs a value\n", name);
        return nullptr;
      }
      return argv[++i];
    };
    auto integer = [&](const char *name, long long min, long long &out) {
      const char *text = value(name);
      if (!text)
        return false;
      if (!parseInt(text, out) || out < min) {
        std::fprintf(stderr, "tilec-e2e: %s needs an integer >= %lld, got "
                             "'%s'\n",
                     name, min, text);
        return false;
      }
      return true;
    };
    long long number = 0;
    const char *text = nullptr;
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else if (arg.rfind("--tilec-option=", 0) == 0) {
      options.tilecOptions.push_back(arg.substr(std::strlen("--tilec-option=")));
    } else if (arg == "--tilec-option") {
      if (!(text = value("--tilec-option")))
        return false;
      options.tilecOptions.push_back(text);
    } else if (arg == "--tilec") {
      if (!(text = value("--tilec")))
        return false;
      options.tilec = text;
    } else if (arg == "--cpu-tilec") {
      if (!(text = value("--cpu-tilec")))
        return false;
      options.cpuTilec = text;
    } else if (arg == "--artifacts") {
      if (!(text = value("--artifacts")))
        return false;
      options.artifacts = text;
    } else if (arg == "--examples") {
      if (!(text = value("--examples")))
        return false;
      options.examples = text;
    } else if (arg == "--filter") {
      if (!(text = value("--filter")))
        return false;
      options.filter = text;
    } else if (arg == "--baseline") {
      if (!(text = value("--baseline")))
        return false;
      options.baseline = text;
    } else if (arg == "--json") {
      if (!(text = value("--json")))
        return false;
      options.json = text;
    } else if (arg == "--describe") {
      if (!(text = value("--describe")))
        return false;
      options.describe = text;
    } else if (arg == "--repeat") {
      if (!integer("--repeat", 0, number))
        return false;
      options.repeat = static_cast<int>(number);
    } else if (arg == "--seed") {
      if (!integer("--seed", 0, number))
        return false;
      options.seed = static_cast<std::uint64_t>(number);
    } else if (arg == "--timeout") {
      if (!integer("--timeout", 1, number))
        return false;
      options.timeoutSeconds = static_cast<int>(number);
    } else if (arg == "--compile-timeout") {
      if (!integer("--compile-timeout", 1, number))
        return false;
      options.compileTimeoutSeconds = static_cast<int>(number);
    } else if (arg == "--no-run") {
      options.noRun = true;
    } else if (arg == "--cpu-fallback") {
      options.cpuFallback = true;
    } else if (arg == "--no-compile") {
      options.noCompile = true;
    } else if (arg == "--no-flush-l2") {
      options.flushL2 = false;
    } else if (arg == "--quick") {
      options.quick = true;
    } else if (arg == "--list") {
      options.list = true;
    } else {
      std::fprintf(stderr, "tilec-e2e: unknown option '%s' (see --help)\n",
                   arg.c_str());
      return false;
    }
  }
  return true;
}

std::string formatSeconds(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.1f s", seconds);
  return buffer;
}

bool exists(const std::string &path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0;
}

bool makeDirectories(const std::string &path) {
  std::string partial;
  for (std::size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') {
      if (!partial.empty() && !exists(partial) &&
          ::mkdir(partial.c_str(), 0755) != 0)
        return false;
    }
    if (i < path.size())
      partial += path[i];
  }
  return true;
}

/// The directory of this executable ("" if unknown).
std::string executableDirectory() {
  char buffer[4096];
  ssize_t length = ::readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  if (length <= 0)
    return "";
  std::string path(buffer, static_cast<std::size_t>(length));
  return path.substr(0, path.find_last_of('/'));
}

std::string absolute(const std::string &path) {
  if (path.empty() || path[0] == '/')
    return path;
  char cwd[4096];
  if (!::getcwd(cwd, sizeof(cwd)))
    return path;
  return std::string(cwd) + "/" + path;
}

std::map<std::string, double> readBaseline(const std::string &path,
                                           std::string &error) {
  std::map<std::string, double> baseline;
  std::ifstream in(path);
  if (!in) {
    error = "cannot read '" + path + "'";
    return baseline;
  }
  nlohmann::json root = nlohmann::json::parse(in, nullptr, false);
  if (root.is_discarded() || !root.is_object()) {
    error = "'" + path + "' is not a JSON object {case: microseconds}";
    return baseline;
  }
  for (auto it = root.begin(); it != root.end(); ++it)
    if (it.value().is_number())
      baseline[it.key()] = it.value().get<double>();
  return baseline;
}

void writeDescription(const std::string &path,
                      const std::vector<CaseSpec> &cases) {
  nlohmann::json list = nlohmann::json::array();
  for (const CaseSpec &spec : cases) {
    nlohmann::json sizes = nlohmann::json::object();
    for (const auto &[key, value] : spec.sizes)
      sizes[key] = value;
    list.push_back({{"name", spec.name},
                    {"family", spec.family},
                    {"dtype", spec.dtype},
                    {"kernel", spec.kernel},
                    {"file", spec.file},
                    {"signature", spec.signature},
                    {"num_warps", spec.numWarps},
                    {"num_stages", spec.numStages},
                    {"sizes", sizes},
                    {"large", spec.large}});
  }
  std::ofstream(path) << list.dump(2) << "\n";
}

void listCases(const std::vector<CaseSpec> &cases, std::uint64_t seed) {
  for (const CaseSpec &spec : cases) {
    Rng rng(caseSeed(seed, spec.name));
    Problem problem = spec.setup(rng);
    std::printf("%s\n  file: %s\n  kernel: %s\n  signature: \"%s\"\n"
                "  num_warps: %d\n  sizes: %s\n  grid: (%u, %u, %u)\n",
                spec.name.c_str(), spec.file.c_str(), spec.kernel.c_str(),
                spec.signature.c_str(), spec.numWarps,
                spec.shapeText().c_str(), problem.grid[0], problem.grid[1],
                problem.grid[2]);
    std::printf("  reference: %s\n", referenceName(spec.checkedAgainst));
    for (const auto &[name, tol] : problem.tolerances)
      std::printf("  check %s: rtol %g, atol %.3g\n", name.c_str(), tol.rtol,
                  tol.atol);
  }
}

/// Compiles one case (unless --no-compile) and reads back its artifacts;
/// returns the metadata when everything is in order.
std::optional<runtime::KernelMetadata>
compileCase(const Options &options, const CaseSpec &spec, CaseResult &result) {
  std::string base = options.artifacts + "/" + spec.name;
  std::string cubin = base + ".cubin", ptx = base + ".ptx",
              json = base + ".json";
  if (!options.noCompile) {
    for (const std::string &stale : {cubin, ptx, json})
      std::remove(stale.c_str());
    CompileRequest request;
    request.compiler = options.tilec;
    request.source = options.examples + "/" + spec.file;
    request.kernel = spec.kernel;
    request.signature = spec.signature;
    request.numWarps = spec.numWarps;
    request.numStages = spec.numStages;
    request.extraOptions = spec.tilecOptions;
    request.extraOptions.insert(request.extraOptions.end(),
                                options.tilecOptions.begin(),
                                options.tilecOptions.end());
    request.outputCubin = cubin;
    request.logPath = base + ".compile.log";
    request.timeoutSeconds = options.compileTimeoutSeconds;
    CompileResult compiled = runCompiler(request);
    result.commandLine = compiled.commandLine;
    result.compileSeconds = compiled.seconds;
    if (!compiled.ok) {
      result.compileError = compiled.error + " (log: " + request.logPath + ")";
      return std::nullopt;
    }
  }
  for (const std::string &artifact : {json, cubin, ptx})
    if (!exists(artifact)) {
      result.compileError =
          options.noCompile
              ? "no artifact '" + artifact + "' (run without --no-compile)"
              : "the compiler succeeded but did not write '" + artifact + "'";
      return std::nullopt;
    }
  runtime::Expected<runtime::KernelMetadata> md =
      runtime::KernelMetadata::loadFile(json);
  if (!md) {
    result.compileError = md.status().message();
    return std::nullopt;
  }
  std::string mismatch = checkMetadataAgainstCase(*md, spec);
  if (!mismatch.empty()) {
    result.compileError = "metadata disagrees with the case: " + mismatch;
    return std::nullopt;
  }
  result.compiled = true;
  if (md->ptxas) {
    result.registers = md->ptxas->registers;
    result.sharedBytes =
        static_cast<long long>(md->ptxas->sharedBytes + md->dynamicSharedBytes);
  } else {
    result.sharedBytes =
        static_cast<long long>(md->staticSharedBytes + md->dynamicSharedBytes);
  }
  result.notable = scanPtx(ptx).summary();
  return md.take();
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  if (!parseOptions(argc, argv, options))
    return 2;
  if (options.noRun && options.noCompile) {
    std::fprintf(stderr, "tilec-e2e: --no-run with --no-compile does "
                         "nothing\n");
    return 2;
  }
  if (options.tilec.empty())
    options.tilec = executableDirectory() + "/tilec";
  if (options.cpuTilec.empty())
    options.cpuTilec = executableDirectory() + "/tilec";
  if (options.examples.empty())
    options.examples = exists(TILEC_E2E_EXAMPLES_DIR) ? TILEC_E2E_EXAMPLES_DIR
                                                      : "examples";
  options.examples = absolute(options.examples);
  options.artifacts = absolute(options.artifacts);

  std::vector<CaseSpec> cases;
  std::regex filter;
  try {
    filter = std::regex(options.filter.empty() ? "." : options.filter);
  } catch (const std::regex_error &error) {
    std::fprintf(stderr, "tilec-e2e: bad --filter '%s': %s\n",
                 options.filter.c_str(), error.what());
    return 2;
  }
  for (CaseSpec &spec : allCases())
    if (std::regex_search(spec.name, filter) && !(options.quick && spec.large))
      cases.push_back(std::move(spec));
  if (cases.empty()) {
    std::fprintf(stderr, "tilec-e2e: no case matches the filter\n");
    return 2;
  }

  std::uint64_t seed = options.seed ? *options.seed : std::random_device{}();
  if (!options.describe.empty()) {
    writeDescription(options.describe, cases);
    return 0;
  }
  if (options.list) {
    listCases(cases, seed);
    return 0;
  }

  std::map<std::string, double> baseline;
  if (!options.baseline.empty()) {
    std::string error;
    baseline = readBaseline(options.baseline, error);
    if (!error.empty()) {
      std::fprintf(stderr, "tilec-e2e: --baseline: %s\n", error.c_str());
      return 2;
    }
  }
  if (!makeDirectories(options.artifacts)) {
    std::fprintf(stderr, "tilec-e2e: cannot create '%s'\n",
                 options.artifacts.c_str());
    return 2;
  }

  std::printf("tilec-e2e: %zu cases, seed %llu (rerun with --seed %llu)\n",
              cases.size(), static_cast<unsigned long long>(seed),
              static_cast<unsigned long long>(seed));
  std::printf("compiler: %s\nexamples: %s\nartifacts: %s\n\n",
              options.noCompile ? "(not run: --no-compile)"
                                : options.tilec.c_str(),
              options.examples.c_str(), options.artifacts.c_str());
  std::fflush(stdout);

  // Step 1: compile everything.
  std::vector<CaseResult> results(cases.size());
  std::vector<std::optional<runtime::KernelMetadata>> metadata(cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    results[i].spec = &cases[i];
    results[i].seed = caseSeed(seed, cases[i].name);
    metadata[i] = compileCase(options, cases[i], results[i]);
    std::string status;
    if (!results[i].compiled)
      status = "FAIL: " + results[i].compileError;
    else if (options.noCompile)
      status = "ok (existing artifacts)";
    else
      status = "ok (" + formatSeconds(results[i].compileSeconds) + ")";
    std::printf("compile %-40s %s\n", cases[i].name.c_str(), status.c_str());
    std::fflush(stdout);
  }
  std::printf("\n");

  // Step 2: run, check and time.
  std::string skipReason;
  std::string device = "none";
  std::unique_ptr<GpuBackend> backend;
  if (options.noRun) {
    skipReason = "--no-run";
  } else {
    runtime::Expected<std::unique_ptr<GpuBackend>> created =
        GpuBackend::create();
    if (created) {
      backend = created.take();
      device = backend->describe();
      std::printf("device: %s\n", device.c_str());
    } else {
      skipReason = created.status().message();
    }
  }
  bool onCpu = !backend && !options.noRun && options.cpuFallback;
  if (onCpu) {
    device = "the CPU backend (" + options.cpuTilec + " run --backend cpu)";
    std::printf("no GPU (%s): the run and check columns come from %s\n",
                skipReason.c_str(), device.c_str());
    skipReason.clear();
  } else if (!skipReason.empty()) {
    std::printf("GPU runs skipped: %s\n", skipReason.c_str());
  }

  RunOptions runOptions;
  runOptions.repeat = options.repeat;
  runOptions.flushL2 = options.flushL2;
  runOptions.timeout = std::chrono::seconds(options.timeoutSeconds);
  bool gpuLost = false;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    CaseResult &result = results[i];
    const CaseSpec &spec = cases[i];
    if (auto it = baseline.find(spec.name); it != baseline.end())
      result.baselineMicros = it->second;
    if (!result.compiled) {
      std::printf("%s\n", caseLine(result, skipReason).c_str());
      continue;
    }
    std::string cpuSkip;
    if (onCpu && spec.large)
      cpuSkip = "large case, not run on the CPU backend";
    else if (onCpu && spec.checkedAgainst == Reference::OtherBackend)
      cpuSkip = "checked against the CPU backend itself";
    if ((!backend && !onCpu) || gpuLost || !cpuSkip.empty()) {
      std::string reason = cpuSkip.empty() ? skipReason : cpuSkip;
      result.skipReason = reason;
      std::printf("%s\n", caseLine(result, reason).c_str());
      continue;
    }

    Rng rng(result.seed);
    Problem problem = spec.setup(rng);
    result.bytesMoved = problem.bytesMoved;
    result.flops = problem.flops;
    RunOutcome outcome;
    if (onCpu) {
      std::string error;
      outcome.ran = runOnCpuBackend(options.cpuTilec, options.examples, spec,
                                    *metadata[i], problem, options.artifacts,
                                    error);
      outcome.error = error;
    } else {
      outcome = backend->run(*metadata[i], problem, runOptions);
    }
    result.loadedFromPtx = outcome.loadedFromPtx;
    if (result.registers < 0)
      result.registers = outcome.registers;
    result.ran = outcome.ran;
    result.runError = outcome.error;
    result.micros = outcome.medianMicros;
    result.timedRuns = outcome.timedRuns;
    if (outcome.ran) {
      Expectations expected;
      std::string referenceError;
      if (spec.checkedAgainst == Reference::OtherBackend) {
        if (!runCpuReference(options.cpuTilec, options.examples, spec,
                             *metadata[i], problem, options.artifacts,
                             expected, referenceError))
          result.runError = "reference: " + referenceError;
      } else {
        spec.reference(problem, expected);
      }
      if (referenceError.empty())
        for (const HostTensor &tensor : problem.tensors)
          if (tensor.isOutput())
            result.checks.push_back(compareOutput(
                tensor, expected[tensor.name()],
                problem.tolerances.at(tensor.name())));
    }
    std::printf("%s\n", caseLine(result, skipReason).c_str());
    std::fflush(stdout);
    if (outcome.fatal) {
      gpuLost = true;
      skipReason = "the GPU is unusable after " + spec.name + " (" +
                   outcome.error + ")";
    }
  }

  // Step 3: report.
  std::size_t compileFailures = 0, failures = 0, passes = 0, skipped = 0;
  for (const CaseResult &result : results) {
    compileFailures += !result.compiled;
    failures += result.failed();
    passes += result.passed();
    skipped += !result.failed() && !result.ran;
  }
  std::printf("\n");
  if (!skipReason.empty())
    std::printf("Run columns skipped: %s\n\n", skipReason.c_str());
  std::printf("%s\n", markdownTable(results).c_str());
  if (onCpu)
    std::printf("backend: no GPU, so the kernels ran on %s (one run each, "
                "no time column); registers, smem and instructions are the "
                "sm_90a compilation's.\n",
                device.c_str());
  std::printf(
      "columns: registers and smem bytes from ptxas and the metadata; notable "
      "instructions: static counts in the PTX; max rel err: largest "
      "|got - ref| / (|ref| + atol/rtol) over the elements; rel L2: "
      "||got - ref|| / ||ref||; a case passes when every element is within "
      "atol + rtol*|ref| and rel L2 < rtol; time: median of the timed "
      "launches (L2 flushed before each unless --no-flush-l2).\n");
  if (!baseline.empty())
    std::printf("ratio vs torch = torch time / tilec time (above 1: tilec "
                "is faster).\n");
  std::printf("summary: %zu cases: %zu passed, %zu failed (%zu in compile), "
              "%zu compiled but not run%s%s\n",
              results.size(), passes, failures, compileFailures, skipped,
              skipped ? ": " : "",
              !skipped      ? ""
              : onCpu       ? "large cases and cases checked against the CPU "
                              "backend (the CPU backend ran the others)"
                            : skipReason.c_str());
  if (!options.json.empty() &&
      !writeJson(options.json, results, seed, device))
    std::fprintf(stderr, "tilec-e2e: cannot write '%s'\n",
                 options.json.c_str());
  std::fflush(stdout);
  std::fflush(stderr);
  int code = failures ? 1 : 0;
  // After a hang or a lost context, tearing down CUDA objects can block on
  // the stuck kernel: leave without destructors.
  if (gpuLost)
    std::_Exit(code);
  return code;
}
