//===- CacheKey.cpp - What a cached kernel depends on ---------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/JIT/CacheKey.h"

#include "tilec/Compiler/Compiler.h"
#include "tilec/Target/PTX.h"
#include "tilec/Target/Ptxas.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <chrono>

// TILEC_SOURCE_HASH: the SHA-256 of lib/ and include/, regenerated at every
// build by cmake/TilecSourceHash.cmake.
#include "SourceHash.inc"

using namespace tilec;
using namespace tilec::jit;

std::string tilec::jit::getCacheKeyText(const CacheKeyInputs &in) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "tilec-cache-key 3\n"
     << "compiler " << in.compiler << "\n"
     << "kernel " << in.kernelName << "\n"
     << "source " << in.sourceHash << "\n"
     << "signature " << in.signature << "\n"
     << "arch " << in.arch << "\n"
     << "ptx " << in.ptxVersion << "\n"
     << "num-warps " << in.numWarps << "\n"
     << "num-stages " << in.numStages << "\n"
     << "line-info " << (in.lineInfo ? 1 : 0) << "\n"
     << "debug " << (in.debug ? 1 : 0) << "\n"
     << "wgmma " << (in.useWgmma ? 1 : 0) << "\n"
     << "mma " << (in.useMMA ? 1 : 0) << "\n"
     << "tma " << (in.useTMA ? 1 : 0) << "\n"
     << "cp-async " << (in.useCpAsync ? 1 : 0) << "\n"
     << "warp-specialize " << in.warpSpecialize << "\n"
     << "ping-pong " << in.pingPong << "\n"
     << "intra-warpgroup-overlap " << in.intraWarpgroupOverlap << "\n"
     << "num-ctas " << in.numCTAs << "\n"
     << "longest-first " << (in.longestFirst ? 1 : 0) << "\n"
     << "prefetch-loads " << (in.prefetchLoads ? 1 : 0) << "\n"
     << "tma-store " << (in.tmaStore ? 1 : 0) << "\n"
     << "issue-dots-early " << (in.issueDotsEarly ? 1 : 0) << "\n"
     << "persistent " << (in.persistent ? 1 : 0) << "\n"
     << "mbarrier-spin-limit " << in.mbarrierSpinLimit << "\n"
     << "cp-async-box-bytes " << in.cpAsyncBoxBytes << "\n"
     << "fp-fusion " << (in.enableFPFusion ? 1 : 0) << "\n"
     << "ptxas " << in.ptxas << "\n"
     << "libdevice " << in.libdevice << "\n";
  return text;
}

std::string tilec::jit::getCacheKey(const CacheKeyInputs &inputs) {
  std::string text = getCacheKeyText(inputs);
  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(text)),
                     /*LowerCase=*/true);
}

//===----------------------------------------------------------------------===//
// The compiler's identity
//===----------------------------------------------------------------------===//

const std::string &tilec::jit::getCompilerIdentity() {
  static const std::string identity = getTilecVersion().str() + " source " +
                                      TILEC_SOURCE_HASH + " llvm " +
                                      TILEC_LLVM_VERSION;
  return identity;
}

//===----------------------------------------------------------------------===//
// The toolchain's identity
//===----------------------------------------------------------------------===//

/// "<size> <mtime in ns>" of a file, or "" if it cannot be read.
static std::string describeFile(llvm::StringRef path) {
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::status(path, status))
    return "";
  auto mtime = std::chrono::duration_cast<std::chrono::nanoseconds>(
                   status.getLastModificationTime().time_since_epoch())
                   .count();
  return std::to_string(status.getSize()) + " " + std::to_string(mtime);
}

llvm::Expected<std::string> tilec::jit::describePtxas(llvm::StringRef path,
                                                      llvm::StringRef memoDir) {
  std::string file = describeFile(path);
  if (file.empty())
    return llvm::createStringError("cannot read ptxas at '" + path + "'");
  std::string identity = (path + " " + file).str();

  llvm::SmallString<256> memo;
  if (!memoDir.empty()) {
    memo = memoDir;
    llvm::sys::path::append(
        memo, "ptxas-" + llvm::utohexstr(llvm::xxh3_64bits(identity),
                                         /*LowerCase=*/true, /*Width=*/16));
    if (auto buffer = llvm::MemoryBuffer::getFile(memo, /*IsText=*/true)) {
      llvm::StringRef text = (*buffer)->getBuffer();
      // The memo holds the identity on its first line, the version on the
      // second; anything else (a torn write) is ignored and redone.
      auto [first, rest] = text.split('\n');
      llvm::StringRef version = rest.trim();
      if (first == identity && !version.empty())
        return identity + " " + version.str();
    }
  }
  llvm::Expected<std::string> version = getPtxasVersion(path);
  if (!version)
    return version.takeError();
  if (!memo.empty() && !llvm::sys::fs::create_directories(memoDir)) {
    llvm::SmallString<256> temp;
    int fd;
    if (!llvm::sys::fs::createUniqueFile(memo + ".tmp-%%%%%%%%", fd, temp)) {
      {
        llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
        os << identity << "\n" << *version << "\n";
      }
      if (llvm::sys::fs::rename(temp, memo))
        llvm::sys::fs::remove(temp);
    }
  }
  return identity + " " + *version;
}

std::string tilec::jit::describeLibdevice() {
  std::optional<std::string> path = findLibdevice();
  if (!path)
    return "none";
  return *path + " " + describeFile(*path);
}
