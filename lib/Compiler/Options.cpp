//===- Options.cpp - The checks of the options every entry point shares ---===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// One definition of which num_warps, num_stages, architectures and PTX
// versions a compilation accepts, and of the messages that say why not: the
// CLI's subcommands, the JIT and the C API call these instead of checking
// on their own.
//
//===----------------------------------------------------------------------===//

#include "tilec/Compiler/Compiler.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace tilec;

/// `flag` (`num-warps`) as `spelling` writes it: `--num-warps` or
/// `numWarps` (`fieldName`, when the field is not the flag in camelBack:
/// `numCTAs`).
static std::string spell(llvm::StringRef flag, OptionSpelling spelling,
                         llvm::StringRef fieldName = "") {
  if (spelling == OptionSpelling::Flag)
    return ("--" + flag).str();
  if (!fieldName.empty())
    return fieldName.str();
  std::string field;
  bool upper = false;
  for (char c : flag) {
    if (c == '-') {
      upper = true;
      continue;
    }
    field += upper ? llvm::toUpper(c) : c;
    upper = false;
  }
  return field;
}

llvm::Error tilec::verifyPipelineOptions(const PipelineOptions &options,
                                         OptionSpelling spelling) {
  if (!tilegpu::isValidNumWarps(options.numWarps))
    return llvm::createStringError(
        spell("num-warps", spelling) + " must be a power of two between 1 and " +
        llvm::Twine(tilegpu::kMaxNumWarps) + ", got " +
        llvm::Twine(options.numWarps));
  if (options.numStages == 0)
    return llvm::createStringError(spell("num-stages", spelling) +
                                   " must be at least 1");
  if (!llvm::is_contained({1u, 2u, 4u, 8u}, options.numCTAs))
    return llvm::createStringError(spell("num-ctas", spelling, "numCTAs") +
                                   " must be 1, 2, 4 or 8, got " +
                                   llvm::Twine(options.numCTAs));
  if (!llvm::is_contained({"off", "requested", "auto", "all"},
                          llvm::StringRef(options.warpSpecialize)))
    return llvm::createStringError(
        spell("warp-specialize", spelling) + " must be off, requested, auto "
        "or all, got '" + options.warpSpecialize + "'");
  for (auto [name, value] :
       {std::pair<llvm::StringRef, llvm::StringRef>{"ping-pong",
                                                    options.pingPong},
        {"intra-warpgroup-overlap", options.intraWarpgroupOverlap}})
    if (!llvm::is_contained({"off", "auto", "on"}, value))
      return llvm::createStringError(spell(name, spelling) +
                                     " must be off, auto or on, got '" +
                                     value + "'");
  if (options.mbarrierSpinLimit < 0)
    return llvm::createStringError(spell("mbarrier-spin-limit", spelling) +
                                   " must not be negative, got " +
                                   llvm::Twine(options.mbarrierSpinLimit));
  if (options.cpAsyncBoxBytes < 0)
    return llvm::createStringError(spell("cp-async-box-bytes", spelling) +
                                   " must not be negative, got " +
                                   llvm::Twine(options.cpAsyncBoxBytes));
  return llvm::Error::success();
}

llvm::Expected<unsigned>
tilec::resolvePTXVersion(llvm::StringRef arch,
                         std::optional<unsigned> ptxVersion,
                         OptionSpelling spelling) {
  std::string archName = spell("arch", spelling);
  std::string ptxName = spell("ptx-version", spelling);
  std::optional<unsigned> sm = getSmVersion(arch);
  unsigned smVersion = sm.value_or(0);
  if (smVersion < 70)
    return llvm::createStringError("unknown " + archName + " '" + arch +
                                   "' (expected sm_NN or sm_NNa, e.g. sm_90a)");
  // The first PTX ISA version that knows the architecture.
  unsigned required = smVersion >= 120   ? 87
                      : smVersion >= 100 ? 86
                      : smVersion >= 90  ? 80
                      : smVersion >= 80  ? 70
                                         : 60;
  // Without a choice: sm_90's vector reductions (red.global.add.v2/.v4.f32)
  // need PTX 8.1 (CUDA 12.1).
  if (!ptxVersion)
    return smVersion >= 90 ? std::max(required, 81u) : required;
  // PTX ISA versions LLVM 22 knows (PTX ISA "Release Notes").
  static const unsigned knownPtx[] = {60, 61, 62, 63, 64, 65, 70, 71,
                                      72, 73, 74, 75, 76, 77, 78, 80,
                                      81, 82, 83, 84, 85, 86, 87, 88};
  if (*ptxVersion < required)
    return llvm::createStringError(
        ptxName + " " + llvm::Twine(*ptxVersion) + " is too old for " + arch +
        " (needs " + llvm::Twine(required) + " or newer)");
  if (!llvm::is_contained(knownPtx, *ptxVersion))
    return llvm::createStringError(
        "unknown " + ptxName + " " + llvm::Twine(*ptxVersion) +
        " (expected the PTX ISA version times 10, 60 to 88, e.g. 80)");
  return *ptxVersion;
}
