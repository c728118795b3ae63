//===- Ptxas.cpp - PTX to cubin with ptxas --------------------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/Ptxas.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace tilec;

std::optional<std::string> tilec::findPtxas() {
  if (const char *env = std::getenv("TILEC_PTXAS")) {
    if (llvm::sys::fs::can_execute(env))
      return std::string(env);
    return std::nullopt;
  }
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/ptxas"))
    return std::string("/usr/local/cuda/bin/ptxas");
  if (auto path = llvm::sys::findProgramByName("ptxas"))
    return *path;
  return std::nullopt;
}

namespace {
/// A temporary file removed on scope exit.
struct TempFile {
  llvm::SmallString<128> path;
  std::optional<llvm::FileRemover> remover;
  llvm::Error create(llvm::StringRef prefix, llvm::StringRef suffix) {
    if (std::error_code ec =
            llvm::sys::fs::createTemporaryFile(prefix, suffix, path))
      return llvm::createStringError(ec, "cannot create a temporary file");
    remover.emplace(path);
    return llvm::Error::success();
  }
};

llvm::Expected<std::string> readFile(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buffer)
    return llvm::createStringError(buffer.getError(), "cannot read " + path);
  return (*buffer)->getBuffer().str();
}
} // namespace

llvm::Expected<std::string> tilec::getPtxasVersion(llvm::StringRef ptxas) {
  TempFile out;
  if (auto err = out.create("tilec-ptxas-version", "txt"))
    return std::move(err);
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, out.path.str(),
                                                out.path.str()};
  int rc = llvm::sys::ExecuteAndWait(ptxas, {ptxas, "--version"}, std::nullopt,
                                     redirects);
  auto text = readFile(out.path);
  if (!text)
    return text.takeError();
  if (rc != 0)
    return llvm::createStringError("'" + ptxas + " --version' failed");
  llvm::StringRef last;
  for (llvm::StringRef line : llvm::split(llvm::StringRef(*text).trim(), '\n'))
    if (line.contains("release"))
      last = line;
  return last.empty() ? llvm::StringRef(*text).trim().str() : last.trim().str();
}

std::vector<PtxasKernelInfo> tilec::parsePtxasReport(llvm::StringRef log) {
  std::vector<PtxasKernelInfo> kernels;
  llvm::Regex entry("Compiling entry function '([^']+)'");
  llvm::Regex frame("([0-9]+) bytes stack frame, ([0-9]+) bytes spill stores, "
                    "([0-9]+) bytes spill loads");
  llvm::Regex regs("Used ([0-9]+) registers");
  llvm::Regex smem("([0-9]+) bytes smem");
  // Printed before or after the kernel's entry line; matched by name.
  llvm::Regex warning("\\((C75[0-9]+)\\) (.*) in (the )?function '([^']+)'");
  std::vector<std::pair<std::string, std::string>> warnings; // kernel, text
  for (llvm::StringRef line : llvm::split(log, '\n')) {
    llvm::SmallVector<llvm::StringRef> m;
    if (warning.match(line, &m)) {
      warnings.emplace_back(m[4].str(), (m[1] + ": " + m[2].trim()).str());
      continue;
    }
    if (entry.match(line, &m)) {
      kernels.push_back({});
      kernels.back().name = m[1].str();
      continue;
    }
    if (kernels.empty())
      continue;
    PtxasKernelInfo &k = kernels.back();
    if (frame.match(line, &m)) {
      m[1].getAsInteger(10, k.stackFrame);
      m[2].getAsInteger(10, k.spillStores);
      m[3].getAsInteger(10, k.spillLoads);
    }
    if (regs.match(line, &m))
      m[1].getAsInteger(10, k.registers);
    if (smem.match(line, &m))
      m[1].getAsInteger(10, k.sharedBytes);
  }
  for (const auto &[name, text] : warnings)
    for (PtxasKernelInfo &k : kernels)
      if (k.name == name && !llvm::is_contained(k.performanceWarnings, text))
        k.performanceWarnings.push_back(text);
  return kernels;
}

llvm::Expected<PtxasResult> tilec::runPtxas(llvm::StringRef ptxas,
                                            llvm::StringRef ptx,
                                            llvm::StringRef arch,
                                            bool lineInfo) {
  TempFile input, output, log;
  if (auto err = input.create("tilec", "ptx"))
    return std::move(err);
  if (auto err = output.create("tilec", "cubin"))
    return std::move(err);
  if (auto err = log.create("tilec-ptxas", "log"))
    return std::move(err);
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(input.path, ec);
    if (ec)
      return llvm::createStringError(ec, "cannot write " + input.path);
    os << ptx;
  }
  std::string archFlag = ("-arch=" + arch).str();
  llvm::SmallVector<llvm::StringRef> args = {ptxas, archFlag, "-O3", "-v"};
  if (lineInfo)
    args.push_back("-lineinfo");
  args.append({input.path, "-o", output.path});
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, log.path.str(),
                                                log.path.str()};
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects,
                                     /*SecondsToWait=*/300, /*MemoryLimit=*/0,
                                     &execError);
  auto logText = readFile(log.path);
  if (!logText)
    return logText.takeError();
  if (rc != 0)
    return llvm::createStringError(
        "ptxas failed" + (execError.empty() ? "" : " (" + execError + ")") +
        ":\n" + *logText);
  auto cubin = readFile(output.path);
  if (!cubin)
    return cubin.takeError();
  PtxasResult result;
  result.cubin.assign(cubin->begin(), cubin->end());
  result.log = *logText;
  result.kernels = parsePtxasReport(*logText);
  return result;
}
