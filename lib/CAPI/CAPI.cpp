//===- CAPI.cpp - The C API of tilec --------------------------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A thin layer over the C++ API (include/tilec/JIT) and the runtime. Every
// entry point validates its pointers, converts, and turns llvm::Error and
// runtime::Status into a tilec_status plus the thread's last-error message.
//
//===----------------------------------------------------------------------===//

#include "tilec-c/tilec.h"

#include "tilec/Compiler/Compiler.h"
#include "tilec/Compiler/Registration.h"
#include "tilec/ExecutionEngine/CpuKernel.h"
#include "tilec/Frontend/Frontend.h"
#include "tilec/JIT/JIT.h"
#include "tilec/Runtime/Device.h"
#include "tilec/Runtime/Kernel.h"
#include "tilec/Support/ScalarType.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <tuple>

using namespace tilec;

namespace {

thread_local std::string lastError;

tilec_status fail(tilec_status status, std::string message) {
  lastError = std::move(message);
  return status;
}

tilec_status fail(tilec_status status, llvm::Error err) {
  return fail(status, llvm::toString(std::move(err)));
}

/// What the C handles share: the C++ compiler, and the device modules
/// (tilec_binary_load) are loaded on.
struct CompilerState {
  explicit CompilerState(jit::Compiler compiler)
      : compiler(std::move(compiler)) {}
  jit::Compiler compiler;
  std::mutex mutex;
  std::unique_ptr<runtime::Device> device;
  std::optional<std::string> deviceError;
  /// The CPU backend's context (tilec_kernel_compile_cpu), made on first use;
  /// guarded by cpuMutex (one CPU compilation at a time).
  std::mutex cpuMutex;
  std::unique_ptr<mlir::MLIRContext> cpuContext;
};

bool toArgs(const tilec_arg *args, size_t count, std::vector<jit::Arg> &out) {
  out.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    const tilec_arg &a = args[i];
    if (a.type < TILEC_I1 || a.type > TILEC_FP8E5) {
      fail(TILEC_ERROR_INVALID_ARGUMENT, "argument " + std::to_string(i + 1) +
                                             ": unknown type " +
                                             std::to_string(a.type));
      return false;
    }
    auto type = static_cast<runtime::ScalarType>(a.type);
    switch (a.kind) {
    case TILEC_ARG_POINTER:
      out.push_back(jit::Arg::pointer(a.bits, type));
      break;
    case TILEC_ARG_INT:
      if (a.raw) {
        out.push_back(jit::Arg::scalarBits(type, a.bits));
        break;
      }
      switch (type) {
      case runtime::ScalarType::I8:
        out.emplace_back(static_cast<int8_t>(a.bits));
        break;
      case runtime::ScalarType::I16:
        out.emplace_back(static_cast<int16_t>(a.bits));
        break;
      case runtime::ScalarType::I32:
        out.emplace_back(static_cast<int32_t>(a.bits));
        break;
      case runtime::ScalarType::I64:
        out.emplace_back(static_cast<int64_t>(a.bits));
        break;
      case runtime::ScalarType::U8:
        out.emplace_back(static_cast<uint8_t>(a.bits));
        break;
      case runtime::ScalarType::U16:
        out.emplace_back(static_cast<uint16_t>(a.bits));
        break;
      case runtime::ScalarType::U32:
        out.emplace_back(static_cast<uint32_t>(a.bits));
        break;
      case runtime::ScalarType::U64:
        out.emplace_back(static_cast<uint64_t>(a.bits));
        break;
      default:
        fail(TILEC_ERROR_INVALID_ARGUMENT,
             "argument " + std::to_string(i + 1) +
                 ": an integer needs an integer type");
        return false;
      }
      break;
    case TILEC_ARG_FLOAT:
      if (a.raw)
        out.push_back(jit::Arg::scalarBits(type, a.bits));
      else if (type == runtime::ScalarType::FP32)
        out.emplace_back(static_cast<float>(a.number));
      else if (type == runtime::ScalarType::FP64)
        out.emplace_back(a.number);
      else {
        fail(TILEC_ERROR_INVALID_ARGUMENT,
             "argument " + std::to_string(i + 1) +
                 ": give fp16/bf16/fp8 values as raw bits (tilec_arg_bits)");
        return false;
      }
      break;
    case TILEC_ARG_BOOL:
      out.emplace_back(a.bits != 0);
      break;
    case TILEC_ARG_STRING:
      if (!a.text) {
        fail(TILEC_ERROR_INVALID_ARGUMENT,
             "argument " + std::to_string(i + 1) + ": null string");
        return false;
      }
      out.emplace_back(static_cast<const char *>(a.text));
      break;
    default:
      fail(TILEC_ERROR_INVALID_ARGUMENT, "argument " + std::to_string(i + 1) +
                                             ": unknown kind " +
                                             std::to_string(a.kind));
      return false;
    }
  }
  return true;
}

#define TILEC_CHECK_NOT_NULL(pointer)                                          \
  do {                                                                         \
    if (!(pointer))                                                            \
      return fail(TILEC_ERROR_INVALID_ARGUMENT,                                \
                  std::string(__func__) + ": '" #pointer "' is null");         \
  } while (false)

} // namespace

struct tilec_compiler {
  std::shared_ptr<CompilerState> state;
};

struct tilec_kernel {
  std::shared_ptr<CompilerState> state;
  jit::Kernel kernel;
  /// The source and its name in diagnostics, for the CPU backend.
  std::string source, fileName;
};

struct tilec_cpu_kernel {
  std::shared_ptr<CompilerState> state;
  std::unique_ptr<cpu::CpuKernel> kernel;
  std::string signature;
};

struct tilec_binary {
  std::shared_ptr<const jit::CompiledKernel> compiled;
};

struct tilec_module {
  std::shared_ptr<CompilerState> state;
  std::unique_ptr<runtime::Kernel> kernel;
};

/// The table's row of C API type `type`, or null out of range.
static const ScalarTypeInfo *lookupScalarType(int32_t type) {
  if (type < 0 || static_cast<std::size_t>(type) >= kNumScalarTypes)
    return nullptr;
  return &kScalarTypes[type];
}

// tilec_type spells the enumerators by hand (a C header cannot include the
// .def); they must be the table's, in its order.
#define TILEC_SCALAR_TYPE(Enum, Name, DTypeName, LanguageName, Bits, CType)    \
  static_assert(static_cast<int>(ScalarType::Enum) == TILEC_##Enum,            \
                "tilec_type and ScalarTypes.def disagree on " Name);
#include "tilec/Support/ScalarTypes.def"
static_assert(kNumScalarTypes == TILEC_FP8E5 + 1,
              "tilec_type and ScalarTypes.def disagree on the number of types");

extern "C" {

const char *tilec_last_error(void) { return lastError.c_str(); }

const char *tilec_version(void) {
  static const std::string version = getTilecVersion().str();
  return version.c_str();
}

int tilec_api_version(void) { return TILEC_C_API_VERSION; }

size_t tilec_type_count(void) { return kNumScalarTypes; }

const char *tilec_type_name(int32_t type) {
  const ScalarTypeInfo *info = lookupScalarType(type);
  return info ? info->name.data() : nullptr;
}

const char *tilec_type_language_name(int32_t type) {
  const ScalarTypeInfo *info = lookupScalarType(type);
  return info ? info->languageName.data() : nullptr;
}

uint32_t tilec_type_bits(int32_t type) {
  const ScalarTypeInfo *info = lookupScalarType(type);
  return info ? info->bits : 0;
}

size_t tilec_type_size(int32_t type) {
  const ScalarTypeInfo *info = lookupScalarType(type);
  return info ? info->getBytes() : 0;
}

int32_t tilec_type_kind_of(int32_t type) {
  const ScalarTypeInfo *info = lookupScalarType(type);
  if (!info)
    return -1;
  if (info->isFloat)
    return TILEC_TYPE_KIND_FLOAT;
  if (info->bits == 1)
    return TILEC_TYPE_KIND_BOOL;
  return info->isSigned ? TILEC_TYPE_KIND_SIGNED : TILEC_TYPE_KIND_UNSIGNED;
}

uint32_t tilec_type_mantissa_bits(int32_t type) {
  const ScalarTypeInfo *info = lookupScalarType(type);
  return info ? info->mantissaBits : 0;
}

int32_t tilec_type_from_name(const char *name) {
  if (!name)
    return -1;
  for (const ScalarTypeInfo &info : kScalarTypes)
    if (info.name == name)
      return static_cast<int32_t>(info.type);
  return -1;
}

/// A tri-state mode of jit::CompilerOptions ("auto", "on", "off") as a
/// tilec_switch.
static int32_t toSwitch(llvm::StringRef mode) {
  return mode == "on" ? TILEC_SWITCH_ON
         : mode == "off" ? TILEC_SWITCH_OFF
                         : TILEC_SWITCH_AUTO;
}

/// A tilec_switch as the mode jit::CompilerOptions takes; none for a value
/// that is not one.
static std::optional<llvm::StringRef> fromSwitch(int32_t value) {
  switch (value) {
  case TILEC_SWITCH_AUTO:
    return llvm::StringRef("auto");
  case TILEC_SWITCH_OFF:
    return llvm::StringRef("off");
  case TILEC_SWITCH_ON:
    return llvm::StringRef("on");
  default:
    return std::nullopt;
  }
}

/// Every field of tilec_options after struct_size, in order: the fields a
/// caller's struct_size may or may not cover. A field missing here would
/// never be read (CAPIOptionsTest.EveryPassSwitchMeansWhatTheCppOptionMeans
/// sets each one and would find the default's key).
#define TILEC_OPTIONS_FIELDS(X)                                                \
  X(arch) X(ptx_version) X(num_warps) X(num_stages) X(line_info)               \
  X(disk_cache) X(cache_dir) X(dump_dir) X(ptxas) X(ptx_only) X(device)        \
  X(use_wgmma) X(use_mma) X(use_tma) X(use_cp_async) X(warp_specialize)        \
  X(ping_pong) X(intra_warpgroup_overlap) X(num_ctas) X(longest_first)         \
  X(prefetch_loads) X(issue_dots_early) X(mbarrier_spin_limit) X(debug)        \
  X(enable_fp_fusion) X(persistent) X(tma_store)

static_assert(TILEC_OPTIONS_STRUCT_SIZE <= sizeof(tilec_options),
              "TILEC_OPTIONS_STRUCT_SIZE ends past the struct");
static_assert(offsetof(tilec_options, struct_size) == 0,
              "struct_size must be the first field");
static_assert(TILEC_OPTIONS_SIZE_THROUGH(tma_store) ==
                  TILEC_OPTIONS_STRUCT_SIZE,
              "TILEC_OPTIONS_STRUCT_SIZE must end at the last field (and "
              "TILEC_OPTIONS_FIELDS list it)");

/// Copies the fields that lie wholly within the first `size` bytes from
/// `from` to `to` (struct_size excepted).
static void copyFieldsWithin(const tilec_options &from, tilec_options &to,
                             size_t size) {
#define TILEC_COPY_IF_WITHIN(field)                                            \
  if (TILEC_OPTIONS_SIZE_THROUGH(field) <= size)                               \
    to.field = from.field;
  TILEC_OPTIONS_FIELDS(TILEC_COPY_IF_WITHIN)
#undef TILEC_COPY_IF_WITHIN
}

/// Every field's default (jit::CompilerOptions'), struct_size this
/// library's TILEC_OPTIONS_STRUCT_SIZE.
static tilec_options getDefaultOptions() {
  jit::CompilerOptions defaults;
  tilec_options options;
  std::memset(&options, 0, sizeof(options));
  options.struct_size = TILEC_OPTIONS_STRUCT_SIZE;
  // arch, cache_dir, dump_dir, ptxas and warp_specialize stay NULL: their
  // defaults (tilec_compiler_create leaves the C++ option as it is).
  options.ptx_version = defaults.ptxVersion;
  options.num_warps = defaults.numWarps;
  options.num_stages = defaults.numStages;
  options.line_info = defaults.lineInfo;
  options.disk_cache = defaults.diskCache;
  options.ptx_only = defaults.ptxOnly;
  options.device = defaults.device;
  options.use_wgmma = defaults.useWgmma;
  options.use_mma = defaults.useMMA;
  options.use_tma = defaults.useTMA;
  options.use_cp_async = defaults.useCpAsync;
  options.ping_pong = toSwitch(defaults.pingPong);
  options.intra_warpgroup_overlap = toSwitch(defaults.intraWarpgroupOverlap);
  options.num_ctas = defaults.numCTAs;
  options.longest_first = defaults.longestFirst;
  options.prefetch_loads = defaults.prefetchLoads;
  options.issue_dots_early = defaults.issueDotsEarly;
  options.mbarrier_spin_limit = defaults.mbarrierSpinLimit;
  options.debug = defaults.debug;
  options.enable_fp_fusion = defaults.enableFPFusion;
  options.persistent = defaults.persistent;
  options.tma_store = defaults.tmaStore;
  return options;
}

/// Whether this library takes a tilec_options of `size` bytes (its
/// struct_size); if not, sets the message and returns false.
static bool checkStructSize(size_t size) {
  if (size < TILEC_OPTIONS_STRUCT_SIZE_V1) {
    fail(TILEC_ERROR_INVALID_ARGUMENT,
         "tilec_options.struct_size is " + std::to_string(size) +
             " bytes, less than the " +
             std::to_string(TILEC_OPTIONS_STRUCT_SIZE_V1) +
             " of the fields of C API version 1 (arch to device): fill the "
             "options with tilec_options_init (a binding: "
             "tilec_options_init_sized with the size of the fields it "
             "mirrors)");
    return false;
  }
  if (size > TILEC_OPTIONS_STRUCT_SIZE) {
    fail(TILEC_ERROR_INVALID_ARGUMENT,
         "tilec_options.struct_size is " + std::to_string(size) +
             " bytes, more than the " +
             std::to_string(TILEC_OPTIONS_STRUCT_SIZE) +
             " this libtilec knows (C API version " +
             std::to_string(TILEC_C_API_VERSION) +
             "): the program was built for a newer tilec; rebuild it for "
             "this one, or use a newer libtilec");
    return false;
  }
  return true;
}

tilec_status tilec_options_init_sized(tilec_options *options,
                                      size_t struct_size) {
  TILEC_CHECK_NOT_NULL(options);
  bool supported = checkStructSize(struct_size);
  // Too small to hold even struct_size and the version-1 fields: nothing
  // is written.
  if (struct_size < TILEC_OPTIONS_STRUCT_SIZE_V1)
    return TILEC_ERROR_INVALID_ARGUMENT;
  // The caller owns struct_size bytes; of a larger struct than this
  // library knows, only the part it knows is written.
  std::memset(options, 0, std::min<size_t>(struct_size, TILEC_OPTIONS_STRUCT_SIZE));
  copyFieldsWithin(getDefaultOptions(), *options, struct_size);
  options->struct_size = struct_size;
  return supported ? TILEC_SUCCESS : TILEC_ERROR_INVALID_ARGUMENT;
}

tilec_status tilec_compiler_create(const tilec_options *options,
                                   tilec_compiler **compiler) {
  TILEC_CHECK_NOT_NULL(compiler);
  *compiler = nullptr;
  tilec_options o = getDefaultOptions();
  if (options) {
    if (!checkStructSize(options->struct_size))
      return TILEC_ERROR_INVALID_ARGUMENT;
    // The fields past the caller's struct_size keep their defaults.
    copyFieldsWithin(*options, o, options->struct_size);
  }
  jit::CompilerOptions cpp;
  if (o.arch)
    cpp.arch = o.arch;
  cpp.ptxVersion = o.ptx_version;
  cpp.numWarps = o.num_warps;
  cpp.numStages = o.num_stages;
  cpp.lineInfo = o.line_info != 0;
  cpp.diskCache = o.disk_cache != 0;
  if (o.cache_dir)
    cpp.cacheDir = o.cache_dir;
  if (o.dump_dir)
    cpp.dumpDir = o.dump_dir;
  if (o.ptxas)
    cpp.ptxas = o.ptxas;
  cpp.ptxOnly = o.ptx_only != 0;
  cpp.device = o.device;
  cpp.useWgmma = o.use_wgmma != 0;
  cpp.useMMA = o.use_mma != 0;
  cpp.useTMA = o.use_tma != 0;
  cpp.useCpAsync = o.use_cp_async != 0;
  if (o.warp_specialize)
    cpp.warpSpecialize = o.warp_specialize;
  for (auto [name, value, mode] :
       {std::tuple<const char *, int32_t, std::string *>{
            "ping_pong", o.ping_pong, &cpp.pingPong},
        {"intra_warpgroup_overlap", o.intra_warpgroup_overlap,
         &cpp.intraWarpgroupOverlap}}) {
    std::optional<llvm::StringRef> parsed = fromSwitch(value);
    if (!parsed)
      return fail(TILEC_ERROR_INVALID_ARGUMENT,
                  std::string(name) +
                      " must be TILEC_SWITCH_AUTO (-1), TILEC_SWITCH_OFF (0) "
                      "or TILEC_SWITCH_ON (1), got " +
                      std::to_string(value));
    *mode = parsed->str();
  }
  cpp.numCTAs = o.num_ctas;
  cpp.longestFirst = o.longest_first != 0;
  cpp.prefetchLoads = o.prefetch_loads != 0;
  cpp.issueDotsEarly = o.issue_dots_early != 0;
  cpp.mbarrierSpinLimit = o.mbarrier_spin_limit;
  cpp.debug = o.debug != 0;
  cpp.enableFPFusion = o.enable_fp_fusion != 0;
  cpp.persistent = o.persistent != 0;
  cpp.tmaStore = o.tma_store != 0;
  llvm::Expected<jit::Compiler> created = jit::Compiler::create(cpp);
  if (!created)
    return fail(TILEC_ERROR_INVALID_ARGUMENT, created.takeError());
  *compiler =
      new tilec_compiler{std::make_shared<CompilerState>(std::move(*created))};
  return TILEC_SUCCESS;
}

void tilec_compiler_destroy(tilec_compiler *compiler) { delete compiler; }

tilec_status tilec_compiler_stats(const tilec_compiler *compiler,
                                  tilec_cache_stats *stats) {
  TILEC_CHECK_NOT_NULL(compiler);
  TILEC_CHECK_NOT_NULL(stats);
  jit::CacheStats s = compiler->state->compiler.getStats();
  stats->source_hits = s.sourceHits;
  stats->source_misses = s.sourceMisses;
  stats->memory_hits = s.memoryHits;
  stats->disk_hits = s.diskHits;
  stats->compiles = s.compiles;
  stats->disk_corrupt = s.diskCorrupt;
  stats->disk_store_errors = s.diskStoreErrors;
  stats->loads = s.loads;
  return TILEC_SUCCESS;
}

tilec_status tilec_kernel_from_source(tilec_compiler *compiler,
                                      const char *source, size_t size,
                                      const char *kernel_name,
                                      const char *file_name,
                                      tilec_kernel **kernel) {
  TILEC_CHECK_NOT_NULL(compiler);
  TILEC_CHECK_NOT_NULL(source);
  TILEC_CHECK_NOT_NULL(kernel);
  *kernel = nullptr;
  llvm::Expected<jit::Kernel> made = compiler->state->compiler.compileSource(
      llvm::StringRef(source, size), kernel_name ? kernel_name : "",
      file_name ? file_name : "<source>");
  if (!made)
    return fail(TILEC_ERROR_COMPILE, made.takeError());
  *kernel = new tilec_kernel{compiler->state, std::move(*made),
                             std::string(source, size),
                             file_name ? file_name : "<source>"};
  return TILEC_SUCCESS;
}

tilec_status tilec_kernel_from_file(tilec_compiler *compiler, const char *path,
                                    const char *kernel_name,
                                    tilec_kernel **kernel) {
  TILEC_CHECK_NOT_NULL(compiler);
  TILEC_CHECK_NOT_NULL(path);
  TILEC_CHECK_NOT_NULL(kernel);
  *kernel = nullptr;
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return fail(TILEC_ERROR_IO, std::string("cannot read '") + path +
                                    "': " + buffer.getError().message());
  llvm::Expected<jit::Kernel> made = compiler->state->compiler.compileFile(
      path, kernel_name ? kernel_name : "");
  if (!made)
    return fail(TILEC_ERROR_COMPILE, made.takeError());
  *kernel = new tilec_kernel{compiler->state, std::move(*made),
                             (*buffer)->getBuffer().str(), path};
  return TILEC_SUCCESS;
}

void tilec_kernel_destroy(tilec_kernel *kernel) { delete kernel; }

const char *tilec_kernel_name(const tilec_kernel *kernel) {
  return kernel ? kernel->kernel.getName().c_str() : "";
}

size_t tilec_kernel_num_parameters(const tilec_kernel *kernel) {
  return kernel ? kernel->kernel.getParameters().size() : 0;
}

const char *tilec_kernel_parameter_name(const tilec_kernel *kernel,
                                        size_t index) {
  if (!kernel || index >= kernel->kernel.getParameters().size())
    return nullptr;
  return kernel->kernel.getParameters()[index].name.c_str();
}

int tilec_kernel_parameter_is_constexpr(const tilec_kernel *kernel,
                                        size_t index) {
  if (!kernel || index >= kernel->kernel.getParameters().size())
    return 0;
  return kernel->kernel.getParameters()[index].isConstexpr ? 1 : 0;
}

tilec_status tilec_kernel_specialize(const tilec_kernel *kernel,
                                     const tilec_arg *args, size_t num_args,
                                     char **signature) {
  TILEC_CHECK_NOT_NULL(kernel);
  TILEC_CHECK_NOT_NULL(signature);
  *signature = nullptr;
  if (num_args && !args)
    return fail(TILEC_ERROR_INVALID_ARGUMENT, "tilec_kernel_specialize: "
                                              "'args' is null");
  std::vector<jit::Arg> cppArgs;
  if (!toArgs(args, num_args, cppArgs))
    return TILEC_ERROR_INVALID_ARGUMENT;
  llvm::Expected<std::string> text = kernel->kernel.specialize(cppArgs);
  if (!text)
    return fail(TILEC_ERROR_INVALID_ARGUMENT, text.takeError());
  *signature = static_cast<char *>(std::malloc(text->size() + 1));
  std::memcpy(*signature, text->c_str(), text->size() + 1);
  return TILEC_SUCCESS;
}

void tilec_string_destroy(char *string) { std::free(string); }

tilec_status tilec_kernel_launch(const tilec_kernel *kernel, uint32_t grid_x,
                                 uint32_t grid_y, uint32_t grid_z, void *stream,
                                 const tilec_arg *args, size_t num_args) {
  TILEC_CHECK_NOT_NULL(kernel);
  if (num_args && !args)
    return fail(TILEC_ERROR_INVALID_ARGUMENT, "tilec_kernel_launch: 'args' "
                                              "is null");
  std::vector<jit::Arg> cppArgs;
  if (!toArgs(args, num_args, cppArgs))
    return TILEC_ERROR_INVALID_ARGUMENT;
  llvm::Error err =
      kernel->kernel.launchArgs(jit::Grid(grid_x, grid_y, grid_z),
                                static_cast<jit::Stream>(stream), cppArgs);
  if (!err)
    return TILEC_SUCCESS;
  // Classify the failure (costs nothing on success).
  std::string message = llvm::toString(std::move(err));
  llvm::Expected<std::string> signature = kernel->kernel.specialize(cppArgs);
  if (!signature) {
    llvm::consumeError(signature.takeError());
    return fail(TILEC_ERROR_INVALID_ARGUMENT, message);
  }
  auto compiled = kernel->kernel.compile(*signature);
  if (!compiled) {
    llvm::consumeError(compiled.takeError());
    return fail(TILEC_ERROR_COMPILE, message);
  }
  return fail(TILEC_ERROR_CUDA, message);
}

tilec_status tilec_kernel_compile(const tilec_kernel *kernel,
                                  const char *signature,
                                  tilec_binary **binary) {
  TILEC_CHECK_NOT_NULL(kernel);
  TILEC_CHECK_NOT_NULL(signature);
  TILEC_CHECK_NOT_NULL(binary);
  *binary = nullptr;
  auto compiled = kernel->kernel.compile(signature);
  if (!compiled)
    return fail(TILEC_ERROR_COMPILE, compiled.takeError());
  *binary = new tilec_binary{std::move(*compiled)};
  return TILEC_SUCCESS;
}

void tilec_binary_destroy(tilec_binary *binary) { delete binary; }

const char *tilec_binary_signature(const tilec_binary *binary) {
  return binary ? binary->compiled->signature.c_str() : "";
}

const char *tilec_binary_cache_key(const tilec_binary *binary) {
  return binary ? binary->compiled->key.c_str() : "";
}

const char *tilec_binary_metadata(const tilec_binary *binary) {
  return binary ? binary->compiled->metadata.c_str() : "";
}

const char *tilec_binary_ptx(const tilec_binary *binary, size_t *size) {
  if (size)
    *size = binary ? binary->compiled->ptx.size() : 0;
  return binary ? binary->compiled->ptx.c_str() : "";
}

const void *tilec_binary_cubin(const tilec_binary *binary, size_t *size) {
  bool have = binary && !binary->compiled->cubin.empty();
  if (size)
    *size = have ? binary->compiled->cubin.size() : 0;
  return have ? binary->compiled->cubin.data() : nullptr;
}

const char *tilec_binary_ptxas_log(const tilec_binary *binary) {
  return binary ? binary->compiled->ptxasLog.c_str() : "";
}

int tilec_binary_from_disk_cache(const tilec_binary *binary) {
  return binary && binary->compiled->origin == jit::CacheOrigin::Disk;
}

double tilec_binary_stage_seconds(const tilec_binary *binary,
                                  tilec_stage stage) {
  if (!binary)
    return 0;
  const StageTimes &t = binary->compiled->times;
  switch (stage) {
  case TILEC_STAGE_FRONTEND:
    return t.frontend;
  case TILEC_STAGE_PASSES:
    return t.passes;
  case TILEC_STAGE_LLVM:
    return t.llvm;
  case TILEC_STAGE_PTX:
    return t.ptx;
  case TILEC_STAGE_PTXAS:
    return t.ptxas;
  case TILEC_STAGE_TOTAL:
    return t.total();
  case TILEC_STAGE_DISK:
    return binary->compiled->diskSeconds;
  }
  return 0;
}

tilec_status tilec_binary_load(tilec_compiler *compiler,
                               const tilec_binary *binary,
                               tilec_module **module) {
  TILEC_CHECK_NOT_NULL(compiler);
  TILEC_CHECK_NOT_NULL(binary);
  TILEC_CHECK_NOT_NULL(module);
  *module = nullptr;
  CompilerState &state = *compiler->state;
  runtime::Device *device = nullptr;
  {
    std::lock_guard<std::mutex> lock(state.mutex);
    if (!state.device && !state.deviceError) {
      auto opened = runtime::Device::open(state.compiler.getOptions().device);
      if (opened)
        state.device = opened.take();
      else
        state.deviceError = opened.status().message();
    }
    if (state.deviceError)
      return fail(TILEC_ERROR_CUDA, *state.deviceError);
    device = state.device.get();
  }
  const jit::CompiledKernel &ck = *binary->compiled;
  auto metadata = runtime::KernelMetadata::parse(ck.metadata);
  if (!metadata)
    return fail(TILEC_ERROR_INVALID_ARGUMENT, metadata.status().message());
  if (runtime::Status current = device->ensureCurrent(); !current.ok())
    return fail(TILEC_ERROR_CUDA, current.message());
  const std::string &image = ck.cubin.empty() ? ck.ptx : ck.cubin;
  auto loaded =
      runtime::Kernel::load(*device, *metadata, image.data(), image.size());
  if (!loaded) // A kernel the device cannot run (shared memory, threads)
    return fail(loaded.status().code() == runtime::ErrorCode::InvalidArgument
                    ? TILEC_ERROR_INVALID_ARGUMENT
                    : TILEC_ERROR_CUDA,
                loaded.status().message());
  *module = new tilec_module{compiler->state, loaded.take()};
  return TILEC_SUCCESS;
}

tilec_status tilec_module_launch(tilec_module *module, uint32_t grid_x,
                                 uint32_t grid_y, uint32_t grid_z, void *stream,
                                 const tilec_arg *args, size_t num_args) {
  TILEC_CHECK_NOT_NULL(module);
  if (num_args && !args)
    return fail(TILEC_ERROR_INVALID_ARGUMENT, "tilec_module_launch: 'args' "
                                              "is null");
  const runtime::KernelMetadata &md = module->kernel->metadata();
  if (num_args != md.parameters.size())
    return fail(TILEC_ERROR_INVALID_ARGUMENT,
                "kernel '" + md.name + "' has " +
                    std::to_string(md.parameters.size()) + " parameters, got " +
                    std::to_string(num_args) + " arguments");
  std::vector<jit::Arg> cppArgs;
  if (!toArgs(args, num_args, cppArgs))
    return TILEC_ERROR_INVALID_ARGUMENT;
  llvm::SmallVector<runtime::KernelArg, 16> passed;
  for (size_t i = 0; i < num_args; ++i) {
    if (md.parameters[i].kind == runtime::ParameterInfo::Kind::Constexpr)
      continue;
    if (cppArgs[i].kind() == jit::Arg::Kind::String)
      return fail(TILEC_ERROR_INVALID_ARGUMENT,
                  "argument " + std::to_string(i + 1) + " ('" +
                      md.parameters[i].name +
                      "'): a string for a run-time "
                      "parameter");
    // The binary reads the elements as its parameter's type: a pointer to
    // other elements would be read as the wrong type (the JIT launch would
    // specialize a new kernel instead).
    const runtime::ParameterInfo &param = md.parameters[i];
    if (param.kind == runtime::ParameterInfo::Kind::Pointer &&
        cppArgs[i].kind() == jit::Arg::Kind::Pointer &&
        cppArgs[i].type() != param.type)
      return fail(TILEC_ERROR_INVALID_ARGUMENT,
                  "kernel '" + md.name + "': argument " +
                      std::to_string(i + 1) + " ('" + param.name +
                      "'): a pointer to " +
                      runtime::scalarTypeName(cppArgs[i].type()) +
                      " for a parameter compiled for pointers to " +
                      runtime::scalarTypeName(param.type));
    passed.push_back(cppArgs[i].toRuntimeArg());
  }
  if (runtime::Status current = module->state->device->ensureCurrent();
      !current.ok())
    return fail(TILEC_ERROR_CUDA, current.message());
  runtime::Status launched =
      module->kernel->launch(runtime::LaunchGrid{grid_x, grid_y, grid_z},
                             runtime::KernelArgs(passed.data(), passed.size()),
                             static_cast<CUstream_st *>(stream));
  if (!launched.ok())
    return fail(launched.code() == runtime::ErrorCode::InvalidArgument
                    ? TILEC_ERROR_INVALID_ARGUMENT
                    : TILEC_ERROR_CUDA,
                launched.message());
  return TILEC_SUCCESS;
}

tilec_status tilec_module_launch_words(tilec_module *module, uint32_t grid_x,
                                       uint32_t grid_y, uint32_t grid_z,
                                       void *stream, const uint64_t *words,
                                       size_t num_words) {
  TILEC_CHECK_NOT_NULL(module);
  if (num_words && !words)
    return fail(TILEC_ERROR_INVALID_ARGUMENT, "tilec_module_launch_words: "
                                              "'words' is null");
  const runtime::KernelMetadata &md = module->kernel->metadata();
  if (num_words != md.parameters.size())
    return fail(TILEC_ERROR_INVALID_ARGUMENT,
                "kernel '" + md.name + "' has " +
                    std::to_string(md.parameters.size()) + " parameters, got " +
                    std::to_string(num_words) + " words");
  llvm::SmallVector<runtime::KernelArg, 16> passed;
  for (size_t i = 0; i < num_words; ++i) {
    const runtime::ParameterInfo &param = md.parameters[i];
    if (param.kind == runtime::ParameterInfo::Kind::Constexpr)
      continue;
    passed.push_back(param.kind == runtime::ParameterInfo::Kind::Pointer
                         ? runtime::KernelArg::pointer(words[i])
                         : runtime::KernelArg::scalarBits(param.type, words[i]));
  }
  if (runtime::Status current = module->state->device->ensureCurrent();
      !current.ok())
    return fail(TILEC_ERROR_CUDA, current.message());
  runtime::Status launched =
      module->kernel->launch(runtime::LaunchGrid{grid_x, grid_y, grid_z},
                             runtime::KernelArgs(passed.data(), passed.size()),
                             static_cast<CUstream_st *>(stream));
  if (!launched.ok())
    return fail(launched.code() == runtime::ErrorCode::InvalidArgument
                    ? TILEC_ERROR_INVALID_ARGUMENT
                    : TILEC_ERROR_CUDA,
                launched.message());
  return TILEC_SUCCESS;
}

tilec_status tilec_module_launch_packet(tilec_module *module,
                                        const uint64_t *packet,
                                        size_t num_words) {
  if (!packet)
    return fail(TILEC_ERROR_INVALID_ARGUMENT, "tilec_module_launch_packet: "
                                              "'packet' is null");
  return tilec_module_launch_words(
      module, static_cast<uint32_t>(packet[0]),
      static_cast<uint32_t>(packet[0] >> 32), static_cast<uint32_t>(packet[1]),
      reinterpret_cast<void *>(static_cast<uintptr_t>(packet[2])), packet + 3,
      num_words);
}

void tilec_module_destroy(tilec_module *module) { delete module; }

tilec_status tilec_kernel_compile_cpu(const tilec_kernel *kernel,
                                      const char *signature,
                                      tilec_cpu_kernel **cpu_kernel) {
  TILEC_CHECK_NOT_NULL(kernel);
  TILEC_CHECK_NOT_NULL(signature);
  TILEC_CHECK_NOT_NULL(cpu_kernel);
  *cpu_kernel = nullptr;
  CompilerState &state = *kernel->state;
  std::lock_guard<std::mutex> lock(state.cpuMutex);
  if (!state.cpuContext) {
    mlir::DialectRegistry registry;
    registerAllDialects(registry);
    state.cpuContext = std::make_unique<mlir::MLIRContext>(registry);
    state.cpuContext->loadAllAvailableDialects();
  }
  llvm::SourceMgr srcMgr;
  unsigned bufferId = srcMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(kernel->source, kernel->fileName,
                                       /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  std::string diagnostics;
  llvm::raw_string_ostream diagOS(diagnostics);
  frontend::SourceMgrDiagnosticSink sink(srcMgr, diagOS);
  mlir::SourceMgrDiagnosticHandler handler(srcMgr, state.cpuContext.get(),
                                           diagOS);
  auto failure = [&](std::string message) {
    std::string text = llvm::StringRef(diagnostics).rtrim().str();
    return fail(TILEC_ERROR_COMPILE,
                text.empty() ? message : text + "\n" + message);
  };
  const std::string &name = kernel->kernel.getName();
  auto emitted = frontend::emitKernel(srcMgr, bufferId, name, signature,
                                      *state.cpuContext, sink);
  if (mlir::failed(emitted))
    return failure("kernel '" + name + "' does not compile for signature '" +
                   signature + "'");
  emitted->interface.sourcePath = kernel->fileName;
  auto compiled = cpu::CpuKernel::compile(emitted->module.get(),
                                          emitted->interface);
  if (!compiled)
    return failure(llvm::toString(compiled.takeError()));
  *cpu_kernel =
      new tilec_cpu_kernel{kernel->state, std::move(*compiled), signature};
  return TILEC_SUCCESS;
}

tilec_status tilec_cpu_kernel_launch_words(tilec_cpu_kernel *cpu_kernel,
                                           uint32_t grid_x, uint32_t grid_y,
                                           uint32_t grid_z,
                                           const uint64_t *words,
                                           size_t num_words, uint32_t threads) {
  TILEC_CHECK_NOT_NULL(cpu_kernel);
  if (num_words && !words)
    return fail(TILEC_ERROR_INVALID_ARGUMENT, "tilec_cpu_kernel_launch_words: "
                                              "'words' is null");
  const KernelInterface &interface = cpu_kernel->kernel->interface();
  if (num_words != interface.parameters.size())
    return fail(TILEC_ERROR_INVALID_ARGUMENT,
                "kernel '" + interface.name + "' has " +
                    std::to_string(interface.parameters.size()) +
                    " parameters, got " + std::to_string(num_words) + " words");
  llvm::SmallVector<cpu::CpuArgument, 16> passed;
  for (size_t i = 0; i < num_words; ++i) {
    const KernelParameter &param = interface.parameters[i];
    if (!param.isRuntime())
      continue;
    uint64_t word = words[i];
    if (param.kind == KernelParameter::Kind::Pointer) {
      if (param.divisibility > 1 && word % param.divisibility)
        return fail(TILEC_ERROR_INVALID_ARGUMENT,
                    "'" + param.name + "': the address is not a multiple of " +
                        std::to_string(param.divisibility));
      passed.push_back(cpu::CpuArgument::pointer(
          reinterpret_cast<const void *>(static_cast<uintptr_t>(word))));
    } else {
      passed.push_back(
          cpu::CpuArgument::scalarBytes(&word, scalarTypeSize(param.type)));
    }
  }
  cpu::CpuLaunchOptions options;
  options.threads = threads;
  if (llvm::Error err = cpu_kernel->kernel->launch({grid_x, grid_y, grid_z},
                                                   passed, options))
    return fail(TILEC_ERROR_INVALID_ARGUMENT, std::move(err));
  return TILEC_SUCCESS;
}

tilec_status tilec_cpu_kernel_launch(tilec_cpu_kernel *cpu_kernel,
                                     uint32_t grid_x, uint32_t grid_y,
                                     uint32_t grid_z, const tilec_arg *args,
                                     size_t num_args, uint32_t threads) {
  TILEC_CHECK_NOT_NULL(cpu_kernel);
  if (num_args && !args)
    return fail(TILEC_ERROR_INVALID_ARGUMENT, "tilec_cpu_kernel_launch: "
                                              "'args' is null");
  const KernelInterface &interface = cpu_kernel->kernel->interface();
  if (num_args != interface.parameters.size())
    return fail(TILEC_ERROR_INVALID_ARGUMENT,
                "kernel '" + interface.name + "' has " +
                    std::to_string(interface.parameters.size()) +
                    " parameters, got " + std::to_string(num_args) +
                    " arguments");
  llvm::SmallVector<cpu::CpuArgument, 16> passed;
  for (size_t i = 0; i < num_args; ++i) {
    const KernelParameter &param = interface.parameters[i];
    if (!param.isRuntime())
      continue;
    const tilec_arg &a = args[i];
    std::string where = "argument " + std::to_string(i + 1) + " ('" +
                        param.name + "')";
    if (param.kind == KernelParameter::Kind::Pointer) {
      if (a.kind != TILEC_ARG_POINTER)
        return fail(TILEC_ERROR_INVALID_ARGUMENT,
                    where + ": the kernel takes a pointer (*" + param.type +
                        ")");
      if (param.divisibility > 1 && a.bits % param.divisibility)
        return fail(TILEC_ERROR_INVALID_ARGUMENT,
                    where + ": the address is not a multiple of " +
                        std::to_string(param.divisibility));
      passed.push_back(cpu::CpuArgument::pointer(
          reinterpret_cast<const void *>(static_cast<uintptr_t>(a.bits))));
      continue;
    }
    std::optional<ScalarType> type = parseScalarType(param.type);
    std::size_t bytes = type ? scalarTypeSize(*type) : 0;
    uint64_t bits = a.bits;
    if (a.kind == TILEC_ARG_POINTER || a.kind == TILEC_ARG_STRING)
      return fail(TILEC_ERROR_INVALID_ARGUMENT,
                  where + ": the kernel takes a " + param.type + " scalar");
    if (a.kind == TILEC_ARG_FLOAT && !a.raw) {
      if (type == ScalarType::FP32) {
        float f = static_cast<float>(a.number);
        uint32_t b;
        std::memcpy(&b, &f, sizeof(b));
        bits = b;
      } else if (type == ScalarType::FP64) {
        std::memcpy(&bits, &a.number, sizeof(bits));
      } else {
        return fail(TILEC_ERROR_INVALID_ARGUMENT,
                    where + ": give a " + param.type +
                        " value as raw bits (tilec_arg_bits)");
      }
    } else if (type && isFloatType(*type) && !a.raw) {
      return fail(TILEC_ERROR_INVALID_ARGUMENT,
                  where + ": the kernel takes a " + param.type + " scalar");
    }
    passed.push_back(cpu::CpuArgument::scalarBytes(&bits, bytes));
  }
  cpu::CpuLaunchOptions options;
  options.threads = threads;
  if (llvm::Error err = cpu_kernel->kernel->launch({grid_x, grid_y, grid_z},
                                                   passed, options))
    return fail(TILEC_ERROR_INVALID_ARGUMENT, std::move(err));
  return TILEC_SUCCESS;
}

tilec_status tilec_cpu_kernel_launch_packet(tilec_cpu_kernel *cpu_kernel,
                                            const uint64_t *packet,
                                            size_t num_words) {
  if (!packet)
    return fail(TILEC_ERROR_INVALID_ARGUMENT, "tilec_cpu_kernel_launch_packet: "
                                              "'packet' is null");
  return tilec_cpu_kernel_launch_words(
      cpu_kernel, static_cast<uint32_t>(packet[0]),
      static_cast<uint32_t>(packet[0] >> 32), static_cast<uint32_t>(packet[1]),
      packet + 3, num_words, static_cast<uint32_t>(packet[2]));
}

const char *tilec_cpu_kernel_signature(const tilec_cpu_kernel *cpu_kernel) {
  return cpu_kernel ? cpu_kernel->signature.c_str() : "";
}

void tilec_cpu_kernel_destroy(tilec_cpu_kernel *cpu_kernel) {
  delete cpu_kernel;
}

} // extern "C"
