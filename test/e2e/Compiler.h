//===- Compiler.h - Running the tilec CLI for a case ------------*- C++ -*-===//

#ifndef TILEC_E2E_COMPILER_H
#define TILEC_E2E_COMPILER_H

#include <string>
#include <vector>

namespace tilec::e2e {

/// One `tilec` invocation, following the CLI contract:
///   tilec <source> --kernel <name> --signature "<sig>" --num-warps N
///         [--num-stages S] --emit cubin -o <dir>/<case>.cubin
/// which writes <dir>/<case>.cubin, <dir>/<case>.ptx and the metadata
/// <dir>/<case>.json.
struct CompileRequest {
  std::string compiler; ///< Path of the tilec executable (or a stand-in).
  std::string source;
  std::string kernel;
  std::string signature;
  int numWarps = 4;
  int numStages = 0; ///< 0: not passed.
  /// Further tilec options, passed before the output ones.
  std::vector<std::string> extraOptions;
  std::string outputCubin;
  std::string logPath; ///< Receives the command line, stdout and stderr.
  int timeoutSeconds = 300;
};

struct CompileResult {
  bool ok = false;
  /// Why it failed: "exited with status 1: <first error line of the log>",
  /// "timed out after 300 s", "cannot start ...".
  std::string error;
  double seconds = 0;
  std::string commandLine; ///< Shell-quoted, for logs and reproduction.
};

/// The argument vector of a request (argv[0] = the compiler).
std::vector<std::string> compilerArguments(const CompileRequest &request);

/// Runs the compiler as a child process (its own process group, killed as a
/// group on timeout) with stdout and stderr in `request.logPath`.
CompileResult runCompiler(const CompileRequest &request);

/// Runs `args` (args[0] is looked up in PATH) the same way: stdout and
/// stderr in `logPath` (after the command line), killed after
/// `timeoutSeconds`.
CompileResult runProcess(std::vector<std::string> args,
                         const std::string &logPath, int timeoutSeconds);

/// Quotes `argument` for a POSIX shell when needed.
std::string shellQuote(const std::string &argument);

} // namespace tilec::e2e

#endif // TILEC_E2E_COMPILER_H
