//===- DeviceDebug.cpp - tl.device_print and tl.device_assert on the host -===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "DeviceDebug.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <tuple>

using namespace tilec;
using namespace tilec::cpu;

namespace {
thread_local AssertSession *currentSession = nullptr;
thread_local ProgramId currentProgram = {0, 0, 0};

/// Reads `rank dim...` from `text`; returns the dimensions.
std::vector<std::int64_t> readShape(const char *&text) {
  char *end;
  long rank = std::strtol(text, &end, 10);
  text = end;
  std::vector<std::int64_t> shape;
  for (long d = 0; d < rank; ++d) {
    shape.push_back(std::strtoll(text, &end, 10));
    text = end;
  }
  return shape;
}

/// The coordinate of row-major element `index` of a tile of `shape`.
std::vector<std::int64_t> coordinateOf(const std::vector<std::int64_t> &shape,
                                       std::int64_t index) {
  std::vector<std::int64_t> coord(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    coord[d] = shape[d] ? index % shape[d] : 0;
    index = shape[d] ? index / shape[d] : 0;
  }
  return coord;
}

/// The digits Triton pads an index of a dimension of `size` to.
int indexWidth(std::int64_t size) {
  return size > 0 ? static_cast<int>(std::ceil(std::log10(static_cast<double>(size))))
                  : 0;
}
} // namespace

void cpu::setDebugProgram(AssertSession *session, ProgramId program) {
  currentSession = session;
  currentProgram = program;
}

void AssertSession::fail(const char *desc, std::int64_t index,
                         ProgramId program) {
  if (!reports.count(program, index))
    return;
  const char *text = desc;
  std::vector<std::int64_t> shape = readShape(text);
  char *end;
  long line = std::strtol(text, &end, 10);
  llvm::SmallVector<llvm::StringRef, 4> fields;
  llvm::StringRef(end).split(fields, '\x1f', /*MaxSplit=*/3);
  fields.resize(4);
  std::string report;
  llvm::raw_string_ostream os(report);
  // CUDA's __assertfail line, with the element's coordinate as the thread.
  os << fields[1] << ":" << line << ": " << fields[2] << ": block: ["
     << program[0] << "," << program[1] << "," << program[2]
     << "], thread: [";
  std::vector<std::int64_t> coord = coordinateOf(shape, index);
  if (coord.empty())
    os << "0";
  for (size_t d = 0; d < coord.size(); ++d)
    os << (d ? "," : "") << coord[d];
  os << "] Assertion `" << fields[3] << "` failed.";
  reports.add(program, index, std::move(report));
}

llvm::Error AssertSession::takeError() {
  std::uint64_t count = reports.getCount();
  if (count == 0)
    return llvm::Error::success();
  std::string message;
  llvm::raw_string_ostream os(message);
  reports.print(os, "");
  os << "device assertion failed " << count << " time"
     << (count == 1 ? "" : "s") << " in kernel '" << kernelName << "'";
  return llvm::createStringError(message);
}

extern "C" void __tilec_cpu_assert_fail(const char *desc, std::int64_t index) {
  if (currentSession)
    currentSession->fail(desc, index, currentProgram);
}

extern "C" void __tilec_cpu_print(const char *desc, std::int64_t index,
                                  std::uint64_t bits) {
  char kind = desc[0];
  const char *text = desc + 1;
  char *end;
  long hexDigits = std::strtol(text, &end, 10);
  long operand = std::strtol(end, &end, 10);
  long numOperands = std::strtol(end, &end, 10);
  text = end;
  std::vector<std::int64_t> shape = readShape(text);
  const char *bar = std::strchr(text, '|');
  const char *prefix = bar ? bar + 1 : "";
  std::string line;
  llvm::raw_string_ostream os(line);
  const ProgramId &pid = currentProgram;
  os << "pid (" << pid[0] << ", " << pid[1] << ", " << pid[2] << ")";
  if (kind == 'n') {
    os << prefix << "\n";
  } else {
    os << " idx (";
    std::vector<std::int64_t> coord = coordinateOf(shape, index);
    for (size_t d = 0; d < coord.size(); ++d) {
      os << (d ? ", " : "");
      os << llvm::format("%*" PRId64, indexWidth(shape[d]), coord[d]);
    }
    os << ")" << prefix;
    if (numOperands > 1)
      os << "(operand " << operand << ") ";
    switch (kind) {
    case 's':
      os << static_cast<std::int64_t>(bits);
      break;
    case 'u':
      os << bits;
      break;
    case 'f': {
      double value;
      std::memcpy(&value, &bits, sizeof(value));
      os << llvm::format("%f", value);
      break;
    }
    case 'p':
      os << llvm::format("%p", reinterpret_cast<void *>(
                                   static_cast<std::uintptr_t>(bits)));
      break;
    default:
      os << llvm::format("0x%0*" PRIx64, static_cast<int>(hexDigits), bits);
      break;
    }
    os << "\n";
  }
  // One write per line, so that lines of concurrent programs do not mix.
  std::fwrite(line.data(), 1, line.size(), stdout);
}
