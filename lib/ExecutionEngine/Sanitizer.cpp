//===- Sanitizer.cpp - out-of-bounds checks of sanitized kernels ----------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "Sanitizer.h"

#include "tilec/Conversion/TileToLinalg/TileToLinalg.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <tuple>

using namespace tilec;
using namespace tilec::cpu;

namespace {
/// The session and program of the calling worker thread.
thread_local SanitizerSession *currentSession = nullptr;
thread_local ProgramId currentProgram = {0, 0, 0};

std::uint64_t begin(const HostBuffer &buffer) {
  return reinterpret_cast<std::uintptr_t>(buffer.data);
}
std::uint64_t end(const HostBuffer &buffer) {
  return begin(buffer) + buffer.bytes;
}
} // namespace

SanitizerSession::SanitizerSession(std::string kernelName,
                                   std::vector<HostBuffer> buffers,
                                   unsigned maxReports)
    : kernelName(std::move(kernelName)), buffers(std::move(buffers)),
      reports(maxReports) {
  llvm::sort(this->buffers, [](const HostBuffer &a, const HostBuffer &b) {
    return begin(a) < begin(b);
  });
}

const HostBuffer *SanitizerSession::findNearest(std::uint64_t address) const {
  const HostBuffer *nearest = nullptr;
  std::uint64_t best = UINT64_MAX;
  for (const HostBuffer &buffer : buffers) {
    std::uint64_t distance = address < begin(buffer) ? begin(buffer) - address
                             : address >= end(buffer) ? address - end(buffer) + 1
                                                      : 0;
    if (distance < best) {
      best = distance;
      nearest = &buffer;
    }
  }
  return nearest;
}

bool SanitizerSession::check(std::uint64_t address, std::uint64_t bytes,
                             std::int32_t kind, std::int64_t element,
                             const char *site, ProgramId program) {
  // The last buffer starting at or below the address is the only candidate.
  auto it = std::upper_bound(
      buffers.begin(), buffers.end(), address,
      [](std::uint64_t a, const HostBuffer &b) { return a < begin(b); });
  if (it != buffers.begin()) {
    const HostBuffer &candidate = *std::prev(it);
    if (address + bytes <= end(candidate))
      return true;
  }
  if (!reports.count(program, element))
    return false;

  std::string line;
  llvm::raw_string_ostream os(line);
  os << "kernel '" << kernelName << "', program (" << program[0] << ", "
     << program[1] << ", " << program[2] << "): out-of-bounds "
     << getAccessKindName(kind) << " of element " << element
     << " at address " << llvm::format_hex(address, 2);
  if (const HostBuffer *nearest = findNearest(address))
    os << " (buffer '" << nearest->name << "' is ["
       << llvm::format_hex(begin(*nearest), 2) << ", "
       << llvm::format_hex(end(*nearest), 2) << "))";
  else
    os << " (no buffer registered)";
  if (site && *site)
    os << "; " << site;
  reports.add(program, element, std::move(line));
  return false;
}

llvm::Error SanitizerSession::takeError() {
  std::uint64_t count = reports.getCount();
  if (count == 0)
    return llvm::Error::success();
  std::string message;
  llvm::raw_string_ostream os(message);
  reports.print(os, " out-of-bounds accesses");
  os << "sanitizer: " << count << " out-of-bounds access"
     << (count == 1 ? "" : "es") << " in kernel '" << kernelName
     << "' (skipped: loads read their 'other' value or zero)";
  return llvm::createStringError(message);
}

void cpu::setSanitizerProgram(SanitizerSession *session, ProgramId program) {
  currentSession = session;
  currentProgram = program;
}

extern "C" std::int32_t __tilec_cpu_check_access(std::uint64_t address,
                                                 std::uint64_t bytes,
                                                 std::int32_t kind,
                                                 std::int64_t element,
                                                 const char *site) {
  if (!currentSession)
    return 1;
  return currentSession->check(address, bytes, kind, element, site,
                               currentProgram);
}
