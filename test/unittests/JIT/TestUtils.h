//===- TestUtils.h - Helpers of the JIT tests -------------------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TEST_UNITTESTS_JIT_TESTUTILS_H
#define TILEC_TEST_UNITTESTS_JIT_TESTUTILS_H

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <string>
#include <unistd.h>
#include <vector>

namespace tilec::jit::testing {

/// A fresh directory, removed with everything in it at the end of the test.
class TempDir {
public:
  TempDir() {
    std::error_code ec =
        llvm::sys::fs::createUniqueDirectory("tilec-jit-test", path);
    EXPECT_FALSE(ec) << ec.message();
  }
  ~TempDir() { llvm::sys::fs::remove_directories(path); }
  std::string str() const { return path.str().str(); }
  std::string file(llvm::StringRef name) const {
    llvm::SmallString<256> p(path);
    llvm::sys::path::append(p, name);
    return p.str().str();
  }

private:
  llvm::SmallString<128> path;
};

/// Writes `text` to `path`.
inline void writeFile(const std::string &path, llvm::StringRef text) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  ASSERT_FALSE(ec) << ec.message();
  os << text;
}

/// Cuts `path` to `size` bytes, as an interrupted copy would leave it.
inline void truncateFile(const std::string &path, off_t size) {
  ASSERT_EQ(::truncate(path.c_str(), size), 0) << path;
}

/// Every file under `dir`, as paths relative to it, sorted.
inline std::vector<std::string> listFiles(const std::string &dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::recursive_directory_iterator it(dir, ec), end;
       it != end && !ec; it.increment(ec))
    if (llvm::sys::fs::is_regular_file(it->path()))
      files.push_back(it->path().substr(dir.size() + 1));
  std::sort(files.begin(), files.end());
  return files;
}

/// Starts the test worker (TestWorker.cpp) with `args`; stdout goes to
/// `output` (a file name).
inline llvm::sys::ProcessInfo startWorker(std::vector<std::string> args,
                                          const std::string &output) {
  std::vector<llvm::StringRef> argv = {TILEC_TEST_WORKER};
  for (const std::string &arg : args)
    argv.push_back(arg);
  std::optional<llvm::StringRef> redirects[] = {
      std::nullopt, llvm::StringRef(output), std::nullopt};
  std::string error;
  llvm::sys::ProcessInfo info = llvm::sys::ExecuteNoWait(
      TILEC_TEST_WORKER, argv, std::nullopt, redirects, 0, &error);
  EXPECT_TRUE(error.empty()) << error;
  return info;
}

/// Waits for a worker; returns its exit code.
inline int waitWorker(const llvm::sys::ProcessInfo &info) {
  std::string error;
  llvm::sys::ProcessInfo done =
      llvm::sys::Wait(info, /*SecondsToWait=*/std::nullopt, &error);
  EXPECT_TRUE(error.empty()) << error;
  return done.ReturnCode;
}

} // namespace tilec::jit::testing

#endif // TILEC_TEST_UNITTESTS_JIT_TESTUTILS_H
