//===- RunBatch.cpp - `tilec run --batch`: many runs in one process -------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A `tilec run` process spends most of a small kernel's time starting: the
// shared LLVM/MLIR libraries, the MLIRContext and its dialects, and on the
// GPU a CUDA context. `tilec run --batch` pays that once. It reads requests
// from stdin, one per line: the arguments a single `tilec run` takes (what
// follows `run`), as a JSON array of strings, or an object
// {"args": [...], "id": ANY} whose id is echoed back. For each request it
// resets the run options, parses the arguments with the same llvm::cl
// options (so a request means exactly what the command line means), runs
// it in the one MLIRContext (and, on the GPU, the one device context), and
// writes one JSON line to stdout:
//
//   {"request": N, "id": ..., "status": 0, "output": "...",
//    "diagnostics": "...", "wall": s, "frontend": s, "compile": s,
//    "launch": s}
//
// status is the exit status the single command would have had; output and
// diagnostics are what it would have printed on stdout and stderr (captured
// at the file descriptors, so LLVM's, MLIR's and a kernel's own printing
// are in them too). A request that is not JSON, not an array of strings, or
// asks for something a batch cannot do (--help, reading stdin) gets status
// 1 and a message naming its line; it never ends the batch. A GPU run whose
// launch or copies failed may leave a sticky error in the context: its
// result says "restart": true and the batch ends after it (exit status 3),
// so that the caller starts a fresh process. When a request crashes the
// process, what it had printed is copied to the batch's stderr before the
// process dies, for the caller to report.
//
//===----------------------------------------------------------------------===//

#include "KernelSource.h"
#include "RunCommand.h"

#include "tilec/Compiler/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <unistd.h>

using namespace tilec;
using namespace tilec::tool;
namespace cl = llvm::cl;

namespace {

/// Exit status of a batch that ended early because the GPU context may be
/// unusable (see the file comment).
constexpr int kRestartStatus = 3;

/// Most bytes of one stream kept in a result line.
constexpr std::size_t kMaxCapturedBytes = 1 << 20;

/// What the crash handler needs, set while a request runs (plain ints:
/// it runs in a signal handler).
volatile std::sig_atomic_t requestInFlight = 0;
int captureOutFd = -1, captureErrFd = -1, batchStderrFd = -1;

/// Copies all of `fd` (a capture file) to the batch's real stderr, with
/// async-signal-safe calls only.
void copyCapture(int fd) {
  char buffer[4096];
  off_t offset = 0;
  for (;;) {
    ssize_t n = ::pread(fd, buffer, sizeof(buffer), offset);
    if (n <= 0)
      return;
    offset += n;
    for (ssize_t done = 0; done < n;) {
      ssize_t written = ::write(batchStderrFd, buffer + done, n - done);
      if (written <= 0)
        return;
      done += written;
    }
  }
}

/// On a crash (a signal LLVM handles, after its stack trace) or an exit()
/// inside a request: the request's output would die with the process's
/// capture files, so it goes to the batch's stderr.
void reportRequestInFlight(void * = nullptr) {
  if (!requestInFlight)
    return;
  requestInFlight = 0;
  copyCapture(captureOutFd);
  copyCapture(captureErrFd);
}

void reportRequestInFlightAtExit() { reportRequestInFlight(); }

/// Points stdout and stderr at two (unlinked) temporary files while a
/// request runs, and reads back what it printed.
class OutputCapture {
public:
  llvm::Error open() {
    for (int *fd : {&captureOutFd, &captureErrFd}) {
      llvm::SmallString<128> path;
      if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
              "tilec-batch", "log", *fd, path))
        return llvm::createStringError(
            ec, "cannot create the batch's capture file");
      llvm::sys::fs::remove(path);
    }
    savedOut_ = ::dup(STDOUT_FILENO);
    batchStderrFd = ::dup(STDERR_FILENO);
    if (savedOut_ < 0 || batchStderrFd < 0)
      return llvm::createStringError("cannot duplicate stdout and stderr");
    return llvm::Error::success();
  }

  /// The batch's own stdout (the protocol), which requests cannot write to.
  int protocolFd() const { return savedOut_; }

  void begin() {
    flushAll();
    for (int fd : {captureOutFd, captureErrFd}) {
      (void)::ftruncate(fd, 0);
      ::lseek(fd, 0, SEEK_SET);
    }
    ::dup2(captureOutFd, STDOUT_FILENO);
    ::dup2(captureErrFd, STDERR_FILENO);
    requestInFlight = 1;
  }

  void end(std::string &out, std::string &err) {
    flushAll();
    requestInFlight = 0;
    // stdout points at stderr's file between requests: nothing but the
    // protocol may reach the caller's stdout.
    ::dup2(batchStderrFd, STDOUT_FILENO);
    ::dup2(batchStderrFd, STDERR_FILENO);
    out = read(captureOutFd);
    err = read(captureErrFd);
  }

private:
  static void flushAll() {
    llvm::outs().flush();
    llvm::errs().flush();
    std::fflush(stdout);
    std::fflush(stderr);
    std::cout.flush();
    std::cerr.flush();
  }

  static std::string read(int fd) {
    off_t size = ::lseek(fd, 0, SEEK_END);
    std::size_t keep =
        std::min<std::size_t>(size > 0 ? size : 0, kMaxCapturedBytes);
    std::string text(keep, '\0');
    std::size_t done = 0;
    while (done < keep) {
      ssize_t n = ::pread(fd, text.data() + done, keep - done, done);
      if (n <= 0)
        break;
      done += n;
    }
    text.resize(done);
    if (static_cast<std::size_t>(size) > done)
      text += "\n[tilec run --batch: " + std::to_string(size - done) +
              " more bytes left out]\n";
    return llvm::json::isUTF8(text) ? text : llvm::json::fixUTF8(text);
  }

  int savedOut_ = -1;
};

/// The arguments of one request, or why it is not one.
llvm::Expected<std::vector<std::string>>
parseRequest(llvm::StringRef line, std::optional<llvm::json::Value> &id) {
  auto value = llvm::json::parse(line);
  if (!value)
    return llvm::createStringError("not JSON: " +
                                   llvm::toString(value.takeError()));
  const llvm::json::Array *array = value->getAsArray();
  if (const llvm::json::Object *object = value->getAsObject()) {
    for (const auto &[key, field] : *object)
      if (key != "args" && key != "id")
        return llvm::createStringError(
            "unknown field '" + key.str() +
            "' (a request is {\"args\": [...], \"id\": ...})");
    if (const llvm::json::Value *given = object->get("id"))
      id = *given;
    array = object->getArray("args");
    if (!array)
      return llvm::createStringError(
          "a request object needs \"args\": an array of strings");
  }
  if (!array)
    return llvm::createStringError(
        "a request is a JSON array of `tilec run` arguments (strings) or an "
        "object {\"args\": [...], \"id\": ...}");
  std::vector<std::string> args;
  bool positionalOnly = false;
  for (auto [i, element] : llvm::enumerate(*array)) {
    std::optional<llvm::StringRef> arg = element.getAsString();
    if (!arg)
      return llvm::createStringError("argument " + llvm::Twine(i + 1) +
                                     " is not a string");
    // Options that print and exit the process, or would read the requests.
    llvm::StringRef name = *arg;
    if (!positionalOnly && name == "--") {
      positionalOnly = true;
    } else if (!positionalOnly && name.starts_with("-") && name.size() > 1) {
      name = name.ltrim('-').split('=').first;
      if (llvm::is_contained({"help", "help-hidden", "help-list",
                              "help-list-hidden", "version", "print-options",
                              "print-all-options"},
                             name))
        return llvm::createStringError(
            "--" + name + " is not available in a batch request (it would "
            "end the batch): run `tilec run --" + name + "`");
      if (name == "batch")
        return llvm::createStringError(
            "--batch inside a batch request: a request is one run");
    }
    args.push_back(arg->str());
  }
  return args;
}

/// Resets the run options and parses `args` as `tilec run ARGS`; the
/// parser's complaints go to `errors`.
bool parseRunOptions(const std::vector<std::string> &args,
                     llvm::raw_ostream &errors) {
  cl::ResetAllOptionOccurrences();
  // The program name the parser's messages give ("Try: 'tilec run
  // --help'"): the options of a request are the run subcommand's.
  std::vector<const char *> argv = {"tilec run", "run"};
  for (const std::string &arg : args)
    argv.push_back(arg.c_str());
  return cl::ParseCommandLineOptions(argv.size(), argv.data(), "", &errors);
}

/// The first option of the run subcommand given on the batch's own command
/// line besides --batch (requests carry their options), or "".
std::string optionBesidesBatch() {
  cl::SubCommand &sub = getRunSubCommand();
  for (const auto &entry : sub.OptionsMap)
    if (entry.second->getNumOccurrences() && entry.first != "batch")
      return ("--" + entry.first).str();
  for (const cl::Option *option : sub.PositionalOpts)
    if (option->getNumOccurrences())
      return "an input file";
  return "";
}

} // namespace

int tool::runBatch() {
  std::string extra = optionBesidesBatch();
  if (!extra.empty())
    return fail("tilec run --batch takes its runs' options in its requests "
                "(one JSON array of arguments per line on stdin), not " +
                extra + " on its own command line");

  OutputCapture capture;
  if (llvm::Error err = capture.open())
    return fail(llvm::toString(std::move(err)));
  llvm::sys::AddSignalHandler(reportRequestInFlight, nullptr);
  std::atexit(reportRequestInFlightAtExit);
  // Between requests, stray writes to stdout go to stderr (OutputCapture).
  ::dup2(batchStderrFd, STDOUT_FILENO);
  llvm::raw_fd_ostream protocol(capture.protocolFd(), /*shouldClose=*/true);

  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  keepGpuDevice(true);

  int exitStatus = 0;
  std::string line;
  for (unsigned lineNo = 1; std::getline(std::cin, line); ++lineNo) {
    if (llvm::StringRef(line).trim().empty())
      continue;
    using Clock = std::chrono::steady_clock;
    auto start = Clock::now();
    llvm::json::Object result{{"request", lineNo}};
    std::optional<llvm::json::Value> id;
    auto args = parseRequest(line, id);
    if (id)
      result["id"] = std::move(*id);
    int status = 1;
    std::string output, diagnostics;
    RunSummary summary;
    if (!args) {
      diagnostics = "tilec: error: request on line " + std::to_string(lineNo) +
                    ": " + llvm::toString(args.takeError()) + "\n";
    } else {
      std::string parseErrors;
      llvm::raw_string_ostream errors(parseErrors);
      if (!parseRunOptions(*args, errors)) {
        diagnostics = parseErrors;
      } else if (isBatchRequested()) {
        // Spelled so that the check above missed it (a response file).
        diagnostics = "tilec: error: request on line " +
                      std::to_string(lineNo) +
                      ": --batch inside a batch request: a request is one "
                      "run\n";
      } else if (getRunInput() == "-") {
        diagnostics = "tilec: error: request on line " +
                      std::to_string(lineNo) +
                      ": the kernel cannot come from stdin ('-') in a batch: "
                      "stdin carries the requests\n";
      } else {
        // A crash's stack dump says which request it was.
        std::string request = "tilec run --batch: request on line " +
                              std::to_string(lineNo) + ": tilec run " +
                              llvm::join(*args, " ") + "\n";
        llvm::PrettyStackTraceString entry(request.c_str());
        capture.begin();
        status = runOnce(context, summary);
        capture.end(output, diagnostics);
      }
    }
    result["status"] = status;
    result["output"] = std::move(output);
    result["diagnostics"] = std::move(diagnostics);
    result["wall"] =
        std::chrono::duration<double>(Clock::now() - start).count();
    result["frontend"] = summary.frontend;
    result["compile"] = summary.compile;
    result["launch"] = summary.launch;
    if (summary.deviceFault)
      result["restart"] = true;
    protocol << llvm::json::Value(std::move(result)) << "\n";
    protocol.flush();
    if (summary.deviceFault) {
      exitStatus = kRestartStatus;
      break;
    }
  }
  keepGpuDevice(false);
  return exitStatus;
}
