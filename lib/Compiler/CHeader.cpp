//===- CHeader.cpp - A C header with an embedded kernel -------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Compiler/CHeader.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace tilec;

bool tilec::isCIdentifier(llvm::StringRef name) {
  if (name.empty() || llvm::isDigit(name.front()))
    return false;
  return llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

/// C (and C++) keywords a Python parameter may be named after.
static bool isCKeyword(llvm::StringRef name) {
  static constexpr llvm::StringLiteral keywords[] = {
      "auto", "bool", "break", "case", "char", "const", "continue", "default",
      "do", "double", "else", "enum", "extern", "float", "for", "goto", "if",
      "inline", "int", "long", "register", "restrict", "return", "short",
      "signed", "sizeof", "static", "struct", "switch", "typedef", "union",
      "unsigned", "void", "volatile", "while", "class", "delete", "new",
      "namespace", "operator", "private", "public", "template", "this", "true",
      "false", "try", "catch", "throw", "virtual",
      // Names the launch function itself uses.
      "k", "stream", "grid_x", "grid_y", "grid_z", "params"};
  return llvm::is_contained(keywords, name);
}

/// The C type of a scalar parameter passed by value.
static std::optional<llvm::StringRef> cScalarType(llvm::StringRef type) {
  return llvm::StringSwitch<std::optional<llvm::StringRef>>(type)
      .Case("i1", llvm::StringRef("bool"))
      .Case("i8", llvm::StringRef("int8_t"))
      .Case("i16", llvm::StringRef("int16_t"))
      .Case("i32", llvm::StringRef("int32_t"))
      .Case("i64", llvm::StringRef("int64_t"))
      .Case("u8", llvm::StringRef("uint8_t"))
      .Case("u16", llvm::StringRef("uint16_t"))
      .Case("u32", llvm::StringRef("uint32_t"))
      .Case("u64", llvm::StringRef("uint64_t"))
      .Case("fp16", llvm::StringRef("uint16_t"))
      .Case("bf16", llvm::StringRef("uint16_t"))
      .Case("fp32", llvm::StringRef("float"))
      .Case("fp64", llvm::StringRef("double"))
      .Case("fp8e4nv", llvm::StringRef("uint8_t"))
      .Case("fp8e5", llvm::StringRef("uint8_t"))
      .Default(std::nullopt);
}

/// `text` as the body of a C string literal.
static std::string cStringBody(llvm::StringRef text) {
  std::string out;
  for (char c : text) {
    if (c == '\\' || c == '"')
      out += '\\', out += c;
    else if (c == '\n')
      out += "\\n\"\n    \"";
    else if (llvm::isPrint(c))
      out += c;
    else
      out += llvm::formatv("\\{0:o3}", static_cast<unsigned char>(c)).str();
  }
  return out;
}

llvm::Expected<std::string> tilec::emitCHeader(const KernelInterface &kernel,
                                               const CHeaderKernel &info) {
  if (!isCIdentifier(info.prefix))
    return llvm::createStringError("c-header: '" + info.prefix +
                                   "' is not a C identifier (choose another "
                                   "name with --c-name)");
  if (info.cubin.empty())
    return llvm::createStringError("c-header: no cubin to embed");
  const std::string &p = info.prefix;
  std::string upper = llvm::StringRef(p).upper();

  // The launch parameters, their C declarations and divisibility checks.
  struct Param {
    std::string cName, decl, check;
  };
  std::vector<Param> params;
  for (const KernelParameter &param : kernel.parameters) {
    if (!param.isRuntime())
      continue;
    Param out;
    out.cName = param.name;
    if (!isCIdentifier(out.cName))
      return llvm::createStringError("c-header: parameter '" + param.name +
                                     "' is not a C identifier");
    if (isCKeyword(out.cName))
      out.cName += "_";
    if (param.kind == KernelParameter::Kind::Pointer) {
      out.decl = "CUdeviceptr " + out.cName;
      if (param.divisibility > 1)
        out.check =
            llvm::formatv("{0} % {1}u != 0", out.cName, param.divisibility);
    } else {
      std::optional<llvm::StringRef> type = cScalarType(param.type);
      if (!type)
        return llvm::createStringError("c-header: parameter '" + param.name +
                                       "' has unknown type '" + param.type +
                                       "'");
      out.decl = (*type + " " + out.cName).str();
      if (param.divisibility > 1 && type->starts_with("int"))
        out.check =
            llvm::formatv("{0} % {1} != 0", out.cName, param.divisibility);
      else if (param.divisibility > 1 && type->starts_with("uint"))
        out.check =
            llvm::formatv("{0} % {1}u != 0", out.cName, param.divisibility);
    }
    params.push_back(std::move(out));
  }

  std::string text;
  llvm::raw_string_ostream os(text);
  os << "/* Generated by tilec: kernel '" << kernel.name << "' for "
     << info.target << ", signature \"" << kernel.signature << "\".\n"
     << " * Source: " << kernel.sourcePath << " (hash " << kernel.sourceHash
     << ").\n"
     << " *\n"
     << " *   " << p << "_t k;\n"
     << " *   CUresult r = " << p
     << "_load(&k);            (into the current context)\n"
     << " *   r = " << p << "_launch(&k, stream, grid_x, grid_y, grid_z";
  for (const Param &param : params)
    os << ", " << param.cName;
  os << ");\n"
     << " *   " << p << "_unload(&k);\n"
     << " *\n"
     << " * Needs the CUDA driver API (<cuda.h>, -lcuda). Do not edit. */\n"
     << "#ifndef " << upper << "_TILEC_H\n"
     << "#define " << upper << "_TILEC_H\n\n"
     << "#include <cuda.h>\n#include <stdbool.h>\n#include <stddef.h>\n"
     << "#include <stdint.h>\n\n"
     << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  os << "/* Threads per block and dynamic shared memory (bytes) of every "
        "launch. */\n"
     << "#define " << upper << "_NUM_THREADS " << info.numThreads << "u\n"
     << "#define " << upper << "_SHARED_BYTES " << info.dynamicSharedBytes
     << "u\n\n";
  os << "/* The " << info.target << " cubin (" << info.cubin.size()
     << " bytes), 8-byte aligned for cuModuleLoadData. */\n"
     << "static const uint64_t " << p << "_cubin_words["
     << (info.cubin.size() + 7) / 8 << "] = {";
  for (size_t i = 0; i < info.cubin.size(); i += 8) {
    uint64_t word = 0;
    for (size_t b = 0; b < 8 && i + b < info.cubin.size(); ++b)
      word |= uint64_t(static_cast<unsigned char>(info.cubin[i + b]))
              << (8 * b);
    os << (i % 32 == 0 ? "\n    " : " ") << llvm::formatv("{0:x16}", word)
       << "ull,";
  }
  os << "\n};\n"
     << "static const size_t " << p << "_cubin_size = " << info.cubin.size()
     << ";\n\n";
  os << "/* The kernel metadata (docs/metadata.md). */\n"
     << "static const char " << p << "_metadata[] =\n    \""
     << cStringBody(info.metadataJSON) << "\";\n\n";
  os << "/* A loaded instance: one per CUDA context. */\n"
     << "typedef struct " << p << "_t {\n"
     << "  CUmodule module;\n  CUfunction function;\n} " << p << "_t;\n\n";
  os << "/* Loads the kernel into the current context. */\n"
     << "static inline CUresult " << p << "_load(" << p << "_t *k) {\n"
     << "  CUresult r = cuModuleLoadData(&k->module, " << p
     << "_cubin_words);\n"
     << "  if (r != CUDA_SUCCESS)\n    return r;\n"
     << "  r = cuModuleGetFunction(&k->function, k->module, \"" << kernel.name
     << "\");\n"
     << "  if (r == CUDA_SUCCESS && " << upper << "_SHARED_BYTES > 49152u)\n"
     << "    r = cuFuncSetAttribute(k->function,\n"
     << "        CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)"
     << upper << "_SHARED_BYTES);\n"
     << "  if (r != CUDA_SUCCESS) {\n"
     << "    cuModuleUnload(k->module);\n    k->module = NULL;\n  }\n"
     << "  return r;\n}\n\n";
  os << "/* Unloads it. */\n"
     << "static inline CUresult " << p << "_unload(" << p << "_t *k) {\n"
     << "  CUresult r = cuModuleUnload(k->module);\n"
     << "  k->module = NULL;\n  k->function = NULL;\n  return r;\n}\n\n";
  os << "/* Queues one launch of grid_x * grid_y * grid_z programs on "
        "`stream`.\n"
     << " * CUDA_ERROR_INVALID_VALUE, without launching, when an argument "
        "breaks\n"
     << " * the specialization's divisibility promises. */\n"
     << "static inline CUresult " << p << "_launch(const " << p
     << "_t *k, CUstream stream,\n"
     << "    unsigned grid_x, unsigned grid_y, unsigned grid_z";
  for (const Param &param : params)
    os << ",\n    " << param.decl;
  os << ") {\n";
  for (const Param &param : params)
    if (!param.check.empty())
      os << "  if (" << param.check
         << ")\n    return CUDA_ERROR_INVALID_VALUE;\n";
  if (params.empty()) {
    os << "  void **params = NULL;\n";
  } else {
    os << "  void *params[] = {";
    for (auto [i, param] : llvm::enumerate(params))
      os << (i ? ", " : "") << "(void *)&" << param.cName;
    os << "};\n";
  }
  os << "  return cuLaunchKernel(k->function, grid_x, grid_y, grid_z,\n"
     << "      " << upper << "_NUM_THREADS, 1, 1, " << upper
     << "_SHARED_BYTES, stream, params, NULL);\n}\n\n"
     << "#ifdef __cplusplus\n}\n#endif\n\n#endif\n";
  return text;
}
