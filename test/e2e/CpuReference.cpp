//===- CpuReference.cpp - A case's expectations from the CPU backend ------===//

#include "CpuReference.h"

#include "Compiler.h"

#include "tilec/Runtime/FloatConversion.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

namespace tilec::e2e {

namespace {

/// The text `tilec run --arg` parses back to exactly `arg`'s value.
std::string scalarText(const runtime::KernelArg &arg) {
  using runtime::ScalarType;
  std::uint64_t bits = arg.bits();
  char buffer[64];
  switch (arg.type()) {
  case ScalarType::FP32:
    std::snprintf(buffer, sizeof(buffer), "%.9g",
                  runtime::bitsToFloat(static_cast<std::uint32_t>(bits)));
    return buffer;
  case ScalarType::FP64: {
    double value;
    std::memcpy(&value, &bits, sizeof(value));
    std::snprintf(buffer, sizeof(buffer), "%.17g", value);
    return buffer;
  }
  case ScalarType::FP16:
    std::snprintf(buffer, sizeof(buffer), "%.9g",
                  runtime::halfBitsToFloat(static_cast<std::uint16_t>(bits)));
    return buffer;
  case ScalarType::BF16:
    std::snprintf(buffer, sizeof(buffer), "%.9g",
                  runtime::bfloat16BitsToFloat(
                      static_cast<std::uint16_t>(bits)));
    return buffer;
  case ScalarType::I1:
    return bits ? "true" : "false";
  case ScalarType::I8:
    return std::to_string(static_cast<std::int8_t>(bits));
  case ScalarType::I16:
    return std::to_string(static_cast<std::int16_t>(bits));
  case ScalarType::I32:
    return std::to_string(static_cast<std::int32_t>(bits));
  case ScalarType::I64:
    return std::to_string(static_cast<std::int64_t>(bits));
  default: // Unsigned integers and fp8 (as raw bits: not expected here).
    return std::to_string(bits);
  }
}

bool writeBytes(const std::string &path, const void *data, std::size_t bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(static_cast<const char *>(data), static_cast<std::streamsize>(bytes));
  return static_cast<bool>(out);
}

} // namespace

bool runOnCpuBackend(const std::string &tilec, const std::string &examples,
                     const CaseSpec &spec,
                     const runtime::KernelMetadata &metadata, Problem &problem,
                     const std::string &workDir, std::string &error) {
  std::vector<const runtime::ParameterInfo *> params =
      metadata.launchParameters();
  if (params.size() != problem.args.size()) {
    error = "the metadata has " + std::to_string(params.size()) +
            " launch parameters, the case passes " +
            std::to_string(problem.args.size());
    return false;
  }
  std::string base = workDir + "/" + spec.name + ".cpu-reference";
  std::vector<std::string> args = {
      tilec, "run", examples + "/" + spec.file, "--kernel", spec.kernel,
      "--signature", spec.signature, "--backend", "cpu", "--grid",
      std::to_string(problem.grid[0]) + "," + std::to_string(problem.grid[1]) +
          "," + std::to_string(problem.grid[2])};
  std::vector<std::pair<std::size_t, std::string>> outputs;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const CaseArg &arg = problem.args[i];
    const std::string &name = params[i]->name;
    if (arg.scalar) {
      args.push_back("--arg");
      args.push_back(name + "=" + scalarText(*arg.scalar));
      continue;
    }
    const HostTensor &tensor = problem.tensors[*arg.tensor];
    std::string path = base + "." + name + ".bin";
    // Outputs start poisoned (accumulators zeroed), as for the run being
    // checked (the GPU run has overwritten this Problem's outputs by now).
    HostTensor initial = tensor;
    initial.resetOutput();
    if (!writeBytes(path, initial.data(), initial.bytes())) {
      error = "cannot write '" + path + "'";
      return false;
    }
    args.push_back("--input");
    args.push_back(name + "=" + path);
    if (tensor.isOutput()) {
      args.push_back("--output");
      args.push_back(name + "=" + path);
      outputs.push_back({*arg.tensor, path});
    }
  }
  CompileResult run = runProcess(args, base + ".log", /*timeoutSeconds=*/600);
  if (!run.ok) {
    error = "the CPU backend (" + run.commandLine + ") " + run.error +
            " (log: " + base + ".log)";
    return false;
  }
  for (const auto &[index, path] : outputs) {
    HostTensor &result = problem.tensors[index];
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)),
                      std::istreambuf_iterator<char>());
    if (bytes.size() != result.bytes()) {
      error = "'" + path + "' has " + std::to_string(bytes.size()) +
              " bytes, expected " + std::to_string(result.bytes());
      return false;
    }
    std::memcpy(result.data(), bytes.data(), bytes.size());
  }
  return true;
}

bool runCpuReference(const std::string &tilec, const std::string &examples,
                     const CaseSpec &spec,
                     const runtime::KernelMetadata &metadata,
                     const Problem &problem, const std::string &workDir,
                     Expectations &expected, std::string &error) {
  Problem copy = problem;
  if (!runOnCpuBackend(tilec, examples, spec, metadata, copy, workDir, error))
    return false;
  for (const HostTensor &tensor : copy.tensors)
    if (tensor.isOutput())
      expected[tensor.name()] = tensor.toDoubles();
  return true;
}

} // namespace tilec::e2e
