//===- Compiler.cpp - Running the tilec CLI for a case --------------------===//

#include "Compiler.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>

extern char **environ;

namespace tilec::e2e {

std::string shellQuote(const std::string &argument) {
  bool plain = !argument.empty();
  for (char c : argument)
    if (!(std::isalnum(static_cast<unsigned char>(c)) ||
          std::strchr("-_./:=,+@%", c)))
      plain = false;
  if (plain)
    return argument;
  std::string quoted = "'";
  for (char c : argument)
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::vector<std::string> compilerArguments(const CompileRequest &request) {
  std::vector<std::string> args = {request.compiler,
                                   request.source,
                                   "--kernel",
                                   request.kernel,
                                   "--signature",
                                   request.signature,
                                   "--num-warps",
                                   std::to_string(request.numWarps)};
  if (request.numStages > 0) {
    args.push_back("--num-stages");
    args.push_back(std::to_string(request.numStages));
  }
  args.insert(args.end(), request.extraOptions.begin(),
              request.extraOptions.end());
  for (const char *arg : {"--emit", "cubin", "-o"})
    args.push_back(arg);
  args.push_back(request.outputCubin);
  return args;
}

namespace {

/// The most telling line of a compiler log: the first line mentioning an
/// error, else the last non-empty line.
std::string summarizeLog(const std::string &path) {
  std::ifstream in(path);
  std::string line, firstError, last;
  bool firstLine = true;
  while (std::getline(in, line)) {
    if (firstLine) { // The command line we wrote ourselves.
      firstLine = false;
      continue;
    }
    if (line.find_first_not_of(" \t\r") == std::string::npos)
      continue;
    last = line;
    if (firstError.empty() && (line.find("error") != std::string::npos ||
                               line.find("Error") != std::string::npos))
      firstError = line;
  }
  std::string text = firstError.empty() ? last : firstError;
  if (text.size() > 300)
    text = text.substr(0, 300) + "...";
  return text;
}

} // namespace

CompileResult runCompiler(const CompileRequest &request) {
  CompileResult result = runProcess(compilerArguments(request),
                                    request.logPath, request.timeoutSeconds);
  if (result.error.rfind("cannot start", 0) == 0)
    result.error += " (pass the compiler with --tilec PATH)";
  return result;
}

CompileResult runProcess(std::vector<std::string> args,
                         const std::string &logPath, int timeoutSeconds) {
  CompileResult result;
  for (const std::string &arg : args)
    result.commandLine += (result.commandLine.empty() ? "" : " ") +
                          shellQuote(arg);
  {
    std::ofstream log(logPath, std::ios::trunc);
    log << "$ " << result.commandLine << "\n";
    if (!log) {
      result.error = "cannot write the log '" + logPath + "'";
      return result;
    }
  }

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO,
                                   logPath.c_str(),
                                   O_WRONLY | O_APPEND, 0);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null",
                                   O_RDONLY, 0);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  // A process group of its own, so that a timeout also ends anything the
  // compiler started (ptxas, a Python interpreter...).
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);

  std::vector<char *> argv;
  for (std::string &arg : args)
    argv.push_back(arg.data());
  argv.push_back(nullptr);

  auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  int spawned = posix_spawnp(&pid, argv[0], &actions, &attributes,
                             argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (spawned != 0) {
    result.error = "cannot start '" + args[0] +
                   "': " + std::strerror(spawned);
    return result;
  }

  auto deadline = start + std::chrono::seconds(timeoutSeconds);
  int status = 0;
  bool timedOut = false;
  while (true) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid)
      break;
    if (done < 0 && errno != EINTR) {
      result.error = std::string("waitpid failed: ") + std::strerror(errno);
      return result;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(-pid, SIGKILL); // The child's own process group.
      waitpid(pid, &status, 0);
      timedOut = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  result.seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();

  if (timedOut) {
    result.error =
        "timed out after " + std::to_string(timeoutSeconds) + " s";
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    result.ok = true;
  } else if (WIFEXITED(status)) {
    std::string why = summarizeLog(logPath);
    result.error = "exited with status " +
                   std::to_string(WEXITSTATUS(status)) +
                   (why.empty() ? std::string() : ": " + why);
  } else {
    std::string why = summarizeLog(logPath);
    result.error = "killed by signal " + std::to_string(WTERMSIG(status)) +
                   (why.empty() ? std::string() : ": " + why);
  }
  return result;
}

} // namespace tilec::e2e
