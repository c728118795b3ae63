//===- cpu_main.cpp - tilec-e2e-cpu: every example on the host CPU --------===//
//
// The CPU counterpart of tilec-e2e (main.cpp), over the same case list: for
// each case, compile the example in process for the host (CpuBackend), check
// its metadata against the case, run it on fresh random inputs (the seed is
// printed; --seed reproduces a run), compare every output with the case's
// float64 reference under its tolerance, and print a line; then a markdown
// table and a summary. Exit code 1 if any case failed. This is what CI runs
// (test/CMakeLists.txt), so a change that breaks a kernel's numerics fails
// CI without a GPU.
//
//===----------------------------------------------------------------------===//

#include "ArtifactCheck.h"
#include "Case.h"
#include "Compare.h"
#include "CpuBackend.h"
#include "Report.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <cstdlib>
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

const char *kUsage = R"(usage: tilec-e2e-cpu [options]

Compiles every example case for the host CPU (in process: frontend, CPU
pipeline, ORC JIT), runs it on fresh random inputs and checks every output
against the case's float64 reference. Large cases are skipped unless --large.

  --filter REGEX   only cases whose name matches (ECMAScript, search)
  --large          also run the large cases (GiB of data, minutes)
  --seed N         input seed (default: random, printed)
  --sanitize       check every memory access against the case's tensors;
                   an out-of-bounds access fails the case
  --threads N      worker threads (default: one per hardware thread)
  --repeat N       time N launches after a warm-up, report the median
  --examples DIR   the examples directory (default: the source tree's)
  --json FILE      write all results as JSON
  --list           print the cases and exit
  --check-examples check that every kernel in the examples directory has a
                   case that CI runs here (not large, checked against a
                   float64 reference), and exit

Exit code: 0 if every case passed, 1 if one failed, 2 for bad usage.
)";

struct Options {
  std::string filter;
  bool large = false;
  std::optional<std::uint64_t> seed;
  bool sanitize = false;
  unsigned threads = 0;
  int repeat = 0;
  std::string examples = TILEC_E2E_EXAMPLES_DIR;
  std::string json;
  bool list = false;
  bool checkExamples = false;
};

bool parseOptions(int argc, char **argv, Options &options) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> const char * {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "tilec-e2e-cpu: %s needs a value\n", arg.c_str());
        return nullptr;
      }
      return argv[++i];
    };
    auto number = [&](unsigned long long &out) {
      const char *text = value();
      if (!text)
        return false;
      char *end = nullptr;
      out = std::strtoull(text, &end, 10);
      if (!end || *end || end == text) {
        std::fprintf(stderr, "tilec-e2e-cpu: %s needs a number, got '%s'\n",
                     arg.c_str(), text);
        return false;
      }
      return true;
    };
    unsigned long long n = 0;
    const char *text = nullptr;
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else if (arg == "--filter") {
      if (!(text = value()))
        return false;
      options.filter = text;
    } else if (arg == "--examples") {
      if (!(text = value()))
        return false;
      options.examples = text;
    } else if (arg == "--json") {
      if (!(text = value()))
        return false;
      options.json = text;
    } else if (arg == "--seed") {
      if (!number(n))
        return false;
      options.seed = n;
    } else if (arg == "--threads") {
      if (!number(n))
        return false;
      options.threads = static_cast<unsigned>(n);
    } else if (arg == "--repeat") {
      if (!number(n))
        return false;
      options.repeat = static_cast<int>(n);
    } else if (arg == "--large") {
      options.large = true;
    } else if (arg == "--sanitize") {
      options.sanitize = true;
    } else if (arg == "--list") {
      options.list = true;
    } else if (arg == "--check-examples") {
      options.checkExamples = true;
    } else {
      std::fprintf(stderr, "tilec-e2e-cpu: unknown option '%s' (see --help)\n",
                   arg.c_str());
      return false;
    }
  }
  return true;
}

/// The kernels of the examples: top-level functions under a `@…jit`
/// decorator that no other code in their file calls (those are helpers),
/// as "file:kernel" relative to `dir`.
std::set<std::string> findExampleKernels(const std::string &dir) {
  std::set<std::string> kernels;
  std::regex decorator(R"(^@(\w+\.)?jit\b)"), def(R"(^def (\w+)\s*\()");
  for (const auto &entry : std::filesystem::recursive_directory_iterator(dir)) {
    std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".tile" && ext != ".py"))
      continue;
    std::ifstream in(entry.path());
    std::string text((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
    std::istringstream lines(text);
    std::string line;
    bool decorated = false;
    std::vector<std::string> names;
    while (std::getline(lines, line)) {
      std::smatch match;
      if (std::regex_search(line, decorator))
        decorated = true;
      else if (decorated && std::regex_search(line, match, def)) {
        names.push_back(match[1]);
        decorated = false;
      } else if (!line.empty() && line[0] != '@' && line[0] != '#')
        decorated = false;
    }
    std::string file =
        std::filesystem::relative(entry.path(), dir).generic_string();
    for (const std::string &name : names) {
      // A call, or a reference as a value (a combine_fn passed to
      // tl.reduce / tl.associative_scan), makes it a helper.
      std::regex call("[^\\w]" + name + "(\\s*\\(|\\s*[,)])");
      std::ptrdiff_t uses = std::distance(
          std::sregex_iterator(text.begin(), text.end(), call),
          std::sregex_iterator());
      if (uses <= 1) // its own definition
        kernels.insert(file + ":" + name);
    }
  }
  return kernels;
}

std::string formatSeconds(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.2f s", seconds);
  return buffer;
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  if (!parseOptions(argc, argv, options))
    return 2;
  std::regex filter;
  try {
    filter = std::regex(options.filter.empty() ? "." : options.filter);
  } catch (const std::regex_error &error) {
    std::fprintf(stderr, "tilec-e2e-cpu: bad --filter '%s': %s\n",
                 options.filter.c_str(), error.what());
    return 2;
  }
  if (options.checkExamples) {
    // Only cases that the plain run (what CI runs) checks on the CPU count:
    // a large case is skipped there, and a case checked against the other
    // backend needs the GPU.
    std::set<std::string> covered;
    for (const CaseSpec &spec : allCases())
      if (!spec.large && spec.checkedAgainst == Reference::Float64)
        covered.insert(spec.file + ":" + spec.kernel);
    std::set<std::string> kernels = findExampleKernels(options.examples);
    std::size_t missing = 0;
    for (const std::string &kernel : kernels)
      if (!covered.count(kernel)) {
        std::printf("no e2e case runs %s on the CPU in CI (a case that is "
                    "not large, against a float64 reference)\n",
                    kernel.c_str());
        ++missing;
      }
    std::printf("%zu example kernels in %s, %zu without an e2e case "
                "(test/e2e/cases)\n",
                kernels.size(), options.examples.c_str(), missing);
    return missing ? 1 : 0;
  }

  std::vector<CaseSpec> cases;
  std::size_t skippedLarge = 0;
  for (CaseSpec &spec : allCases()) {
    if (!std::regex_search(spec.name, filter))
      continue;
    if (spec.large && !options.large) {
      ++skippedLarge;
      continue;
    }
    cases.push_back(std::move(spec));
  }
  if (cases.empty()) {
    std::fprintf(stderr, "tilec-e2e-cpu: no case matches the filter\n");
    return 2;
  }
  if (options.list) {
    for (const CaseSpec &spec : cases)
      std::printf("%s\n  file: %s\n  kernel: %s\n  signature: \"%s\"\n"
                  "  reference: %s\n",
                  spec.name.c_str(), spec.file.c_str(), spec.kernel.c_str(),
                  spec.signature.c_str(), referenceName(spec.checkedAgainst));
    return 0;
  }

  std::uint64_t seed = options.seed ? *options.seed : std::random_device{}();
  CpuBackend::Options backendOptions;
  backendOptions.sanitize = options.sanitize;
  backendOptions.threads = options.threads;
  CpuBackend backend(backendOptions);
  std::printf("tilec-e2e-cpu: %zu cases on %s, seed %llu (rerun with --seed "
              "%llu)%s\n\n",
              cases.size(), backend.describe().c_str(),
              static_cast<unsigned long long>(seed),
              static_cast<unsigned long long>(seed),
              skippedLarge ? (" [" + std::to_string(skippedLarge) +
                              " large cases skipped: --large]")
                                 .c_str()
                           : "");
  std::fflush(stdout);

  auto start = std::chrono::steady_clock::now();
  RunOptions runOptions;
  runOptions.repeat = options.repeat;
  std::vector<CaseResult> results(cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const CaseSpec &spec = cases[i];
    CaseResult &result = results[i];
    result.spec = &spec;
    result.seed = caseSeed(seed, spec.name);
    result.commandLine = "in process";

    std::string error;
    std::optional<runtime::KernelMetadata> metadata =
        backend.compile(spec, options.examples, result.compileSeconds, error);
    if (!metadata) {
      result.compileError = error;
    } else if (std::string mismatch = checkMetadataAgainstCase(*metadata, spec);
               !mismatch.empty()) {
      result.compileError = "metadata disagrees with the case: " + mismatch;
    } else {
      result.compiled = true;
      Rng rng(result.seed);
      Problem problem = spec.setup(rng);
      result.bytesMoved = problem.bytesMoved;
      result.flops = problem.flops;
      RunOutcome outcome = backend.run(*metadata, problem, runOptions);
      result.ran = outcome.ran;
      result.runError = outcome.error;
      result.micros = outcome.medianMicros;
      result.timedRuns = outcome.timedRuns;
      if (outcome.ran && outcome.error.empty() &&
          spec.checkedAgainst == Reference::OtherBackend) {
        // Its reference is the GPU: tilec-e2e checks it there, against this
        // backend.
        result.ran = false;
        result.skipReason = "checked against the other backend (the GPU), "
                            "which tilec-e2e-cpu does not run";
      } else if (outcome.ran && outcome.error.empty()) {
        Expectations expected;
        spec.reference(problem, expected);
        for (const HostTensor &tensor : problem.tensors)
          if (tensor.isOutput())
            result.checks.push_back(
                compareOutput(tensor, expected[tensor.name()],
                              problem.tolerances.at(tensor.name())));
      }
    }
    std::printf("%s\n", caseLine(result).c_str());
    std::fflush(stdout);
  }
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();

  std::size_t failures = 0, passes = 0;
  for (const CaseResult &result : results) {
    failures += result.failed();
    passes += result.passed();
  }
  std::printf("\n%s\n", markdownTable(results).c_str());
  std::printf("summary: %zu cases on the CPU: %zu passed, %zu failed, in %s "
              "(seed %llu)\n",
              results.size(), passes, failures, formatSeconds(seconds).c_str(),
              static_cast<unsigned long long>(seed));
  if (!options.json.empty() &&
      !writeJson(options.json, results, seed, backend.describe()))
    std::fprintf(stderr, "tilec-e2e-cpu: cannot write '%s'\n",
                 options.json.c_str());
  return failures ? 1 : 0;
}
