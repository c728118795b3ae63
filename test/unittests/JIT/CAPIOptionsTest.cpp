//===- CAPIOptionsTest.cpp - tilec_options against the C++ options --------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The C API's options (include/tilec-c/tilec.h) mean what the C++ API's do:
// tilec_options_init gives jit::CompilerOptions' defaults, and a compiler
// created from tilec_options compiles what the C++ compiler with the same
// options compiles: the same cache key, setting by setting, for every pass
// switch, debug, enable_fp_fusion, persistent and tma_store (no GPU: PTX
// only). A tilec_options of an older, smaller layout (its struct_size) is
// read up to its size, the other fields taking their defaults; one too
// small for the version-1 fields, or larger than the library knows, is a
// clear error.
//
//===----------------------------------------------------------------------===//

#include "tilec-c/tilec.h"
#include "tilec/JIT/JIT.h"

#include "TestUtils.h"

#include <cstdint>
#include <cstring>
#include <functional>
#include <set>
#include <string>

using namespace tilec;
using namespace tilec::jit;
using namespace tilec::jit::testing;

namespace {

// Program i sums i + 1 rows: tilegpu-longest-first applies (the PTX counts
// program ids down from %nctaid.x).
constexpr const char *kSource = R"py(import triton
import triton.language as tl

@triton.jit
def kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in range(0, pid + 1):
        acc += tl.load(x_ptr + i * BLOCK + offs)
    tl.store(out_ptr + pid * BLOCK + offs, acc)
)py";
constexpr const char *kSignature = "*fp32:16, *fp32:16, 128";

TEST(CAPIOptionsTest, InitGivesTheDefaultsOfTheCppOptions) {
  tilec_options c;
  std::memset(&c, 0x5a, sizeof(c)); // Every field must be written.
  tilec_options_init(&c);
  CompilerOptions cpp;
  EXPECT_EQ(c.arch, nullptr); // NULL: cpp.arch
  EXPECT_EQ(c.ptx_version, cpp.ptxVersion);
  EXPECT_EQ(c.num_warps, cpp.numWarps);
  EXPECT_EQ(c.num_stages, cpp.numStages);
  EXPECT_EQ(c.line_info != 0, cpp.lineInfo);
  EXPECT_EQ(c.disk_cache != 0, cpp.diskCache);
  EXPECT_EQ(c.cache_dir, nullptr);
  EXPECT_EQ(c.dump_dir, nullptr);
  EXPECT_EQ(c.ptxas, nullptr);
  EXPECT_EQ(c.ptx_only != 0, cpp.ptxOnly);
  EXPECT_EQ(c.device, cpp.device);
  EXPECT_EQ(c.use_wgmma, 1);
  EXPECT_EQ(c.use_wgmma != 0, cpp.useWgmma);
  EXPECT_EQ(c.use_mma != 0, cpp.useMMA);
  EXPECT_EQ(c.use_tma != 0, cpp.useTMA);
  EXPECT_EQ(c.use_cp_async != 0, cpp.useCpAsync);
  EXPECT_EQ(c.warp_specialize, nullptr); // NULL: cpp.warpSpecialize
  EXPECT_EQ(cpp.warpSpecialize, "auto");
  EXPECT_EQ(c.ping_pong, TILEC_SWITCH_AUTO);
  EXPECT_EQ(cpp.pingPong, "auto");
  EXPECT_EQ(c.intra_warpgroup_overlap, TILEC_SWITCH_AUTO);
  EXPECT_EQ(cpp.intraWarpgroupOverlap, "auto");
  EXPECT_EQ(c.num_ctas, cpp.numCTAs);
  EXPECT_EQ(c.longest_first != 0, cpp.longestFirst);
  EXPECT_EQ(c.prefetch_loads != 0, cpp.prefetchLoads);
  EXPECT_EQ(c.issue_dots_early != 0, cpp.issueDotsEarly);
  EXPECT_EQ(c.mbarrier_spin_limit, cpp.mbarrierSpinLimit);
  EXPECT_EQ(c.debug, 0);
  EXPECT_EQ(c.debug != 0, cpp.debug);
  EXPECT_EQ(c.enable_fp_fusion, 1);
  EXPECT_EQ(c.enable_fp_fusion != 0, cpp.enableFPFusion);
  EXPECT_EQ(c.persistent, 0);
  EXPECT_EQ(c.persistent != 0, cpp.persistent);
  EXPECT_EQ(c.tma_store, 0);
  EXPECT_EQ(c.tma_store != 0, cpp.tmaStore);
  EXPECT_EQ(c.struct_size, TILEC_OPTIONS_STRUCT_SIZE);
  // The end of the last field, not sizeof: a struct's tail padding (4
  // bytes on LP64 in version 4, none in version 5) is no field.
  EXPECT_EQ(c.struct_size, TILEC_OPTIONS_SIZE_THROUGH(tma_store));
  EXPECT_LE(c.struct_size, sizeof(tilec_options));
}

TEST(CAPIOptionsTest, StructSizesOfTheVersions) {
  // The layout of LP64 (what the ctypes mirrors assert too).
  EXPECT_EQ(TILEC_OPTIONS_STRUCT_SIZE_V1, 72u);
  EXPECT_EQ(TILEC_OPTIONS_STRUCT_SIZE_V2, 128u);
  EXPECT_EQ(TILEC_OPTIONS_STRUCT_SIZE_V3, 136u);
  EXPECT_EQ(TILEC_OPTIONS_STRUCT_SIZE_V4, 140u);
  EXPECT_EQ(TILEC_OPTIONS_STRUCT_SIZE_V5, 144u);
  EXPECT_EQ(TILEC_OPTIONS_STRUCT_SIZE, TILEC_OPTIONS_STRUCT_SIZE_V5);
  EXPECT_EQ(sizeof(tilec_options), 144u); // tma_store fills the padding.
  EXPECT_EQ(tilec_api_version(), 5);
  EXPECT_EQ(tilec_api_version(), TILEC_C_API_VERSION);
}

/// The cache key of kSource compiled by a C API compiler with `options`.
std::string keyThroughC(tilec_options options) {
  tilec_compiler *compiler = nullptr;
  if (tilec_compiler_create(&options, &compiler) != TILEC_SUCCESS) {
    ADD_FAILURE() << tilec_last_error();
    return "";
  }
  tilec_kernel *kernel = nullptr;
  tilec_binary *binary = nullptr;
  std::string key;
  if (tilec_kernel_from_source(compiler, kSource, std::strlen(kSource),
                               "kernel", "test.tile",
                               &kernel) == TILEC_SUCCESS &&
      tilec_kernel_compile(kernel, kSignature, &binary) == TILEC_SUCCESS)
    key = tilec_binary_cache_key(binary);
  else
    ADD_FAILURE() << tilec_last_error();
  tilec_binary_destroy(binary);
  tilec_kernel_destroy(kernel);
  tilec_compiler_destroy(compiler);
  return key;
}

/// The same through the C++ API.
std::string keyThroughCpp(CompilerOptions options) {
  llvm::Expected<Compiler> compiler = Compiler::create(options);
  if (!compiler) {
    ADD_FAILURE() << llvm::toString(compiler.takeError());
    return "";
  }
  llvm::Expected<Kernel> kernel =
      compiler->compileSource(kSource, "kernel", "test.tile");
  if (!kernel) {
    ADD_FAILURE() << llvm::toString(kernel.takeError());
    return "";
  }
  auto compiled = kernel->compile(kSignature);
  if (!compiled) {
    ADD_FAILURE() << llvm::toString(compiled.takeError());
    return "";
  }
  return (*compiled)->key;
}

TEST(CAPIOptionsTest, EveryPassSwitchMeansWhatTheCppOptionMeans) {
  TempDir dir;
  tilec_options c;
  tilec_options_init(&c);
  std::string cacheDir = dir.str();
  c.cache_dir = cacheDir.c_str();
  c.ptx_only = 1;
  CompilerOptions cpp;
  cpp.cacheDir = cacheDir;
  cpp.ptxOnly = true;

  struct Setting {
    const char *name;
    std::function<void(tilec_options &)> setC;
    std::function<void(CompilerOptions &)> setCpp;
  };
  const Setting settings[] = {
      {"defaults", [](tilec_options &) {}, [](CompilerOptions &) {}},
      {"use_wgmma", [](tilec_options &o) { o.use_wgmma = 0; },
       [](CompilerOptions &o) { o.useWgmma = false; }},
      {"use_mma", [](tilec_options &o) { o.use_mma = 0; },
       [](CompilerOptions &o) { o.useMMA = false; }},
      {"use_tma", [](tilec_options &o) { o.use_tma = 0; },
       [](CompilerOptions &o) { o.useTMA = false; }},
      {"use_cp_async", [](tilec_options &o) { o.use_cp_async = 0; },
       [](CompilerOptions &o) { o.useCpAsync = false; }},
      {"warp_specialize", [](tilec_options &o) { o.warp_specialize = "off"; },
       [](CompilerOptions &o) { o.warpSpecialize = "off"; }},
      {"ping_pong off", [](tilec_options &o) { o.ping_pong = TILEC_SWITCH_OFF; },
       [](CompilerOptions &o) { o.pingPong = "off"; }},
      {"ping_pong on", [](tilec_options &o) { o.ping_pong = TILEC_SWITCH_ON; },
       [](CompilerOptions &o) { o.pingPong = "on"; }},
      {"intra_warpgroup_overlap off",
       [](tilec_options &o) { o.intra_warpgroup_overlap = TILEC_SWITCH_OFF; },
       [](CompilerOptions &o) { o.intraWarpgroupOverlap = "off"; }},
      {"intra_warpgroup_overlap on",
       [](tilec_options &o) { o.intra_warpgroup_overlap = TILEC_SWITCH_ON; },
       [](CompilerOptions &o) { o.intraWarpgroupOverlap = "on"; }},
      {"num_ctas", [](tilec_options &o) { o.num_ctas = 4; },
       [](CompilerOptions &o) { o.numCTAs = 4; }},
      {"longest_first", [](tilec_options &o) { o.longest_first = 0; },
       [](CompilerOptions &o) { o.longestFirst = false; }},
      {"prefetch_loads", [](tilec_options &o) { o.prefetch_loads = 0; },
       [](CompilerOptions &o) { o.prefetchLoads = false; }},
      {"issue_dots_early", [](tilec_options &o) { o.issue_dots_early = 0; },
       [](CompilerOptions &o) { o.issueDotsEarly = false; }},
      {"mbarrier_spin_limit",
       [](tilec_options &o) { o.mbarrier_spin_limit = 1 << 20; },
       [](CompilerOptions &o) { o.mbarrierSpinLimit = 1 << 20; }},
      {"debug", [](tilec_options &o) { o.debug = 1; },
       [](CompilerOptions &o) { o.debug = true; }},
      {"enable_fp_fusion", [](tilec_options &o) { o.enable_fp_fusion = 0; },
       [](CompilerOptions &o) { o.enableFPFusion = false; }},
      {"persistent", [](tilec_options &o) { o.persistent = 1; },
       [](CompilerOptions &o) { o.persistent = true; }},
      {"tma_store", [](tilec_options &o) { o.tma_store = 1; },
       [](CompilerOptions &o) { o.tmaStore = true; }},
  };
  std::set<std::string> keys;
  for (const Setting &setting : settings) {
    SCOPED_TRACE(setting.name);
    tilec_options cOptions = c;
    setting.setC(cOptions);
    CompilerOptions cppOptions = cpp;
    setting.setCpp(cppOptions);
    std::string key = keyThroughC(cOptions);
    EXPECT_EQ(key.size(), 64u);
    EXPECT_EQ(key, keyThroughCpp(cppOptions));
    EXPECT_TRUE(keys.insert(key).second) << "the key of another setting";
  }
}

TEST(CAPIOptionsTest, OlderSmallerStructsTakeTheDefaultsOfTheRest) {
  TempDir dir;
  std::string cacheDir = dir.str();
  CompilerOptions cpp;
  cpp.cacheDir = cacheDir;
  cpp.ptxOnly = true;
  const std::string defaultKey = keyThroughCpp(cpp);

  // Every field set away from its default (num_ctas to a value the
  // library refuses): read, they would change the key or fail.
  tilec_options c;
  tilec_options_init(&c);
  c.cache_dir = cacheDir.c_str();
  c.ptx_only = 1;
  c.use_wgmma = 0;
  c.num_ctas = 3;
  c.longest_first = 0;
  c.mbarrier_spin_limit = 1000;
  c.debug = 1;
  c.enable_fp_fusion = 0;
  c.persistent = 1;
  c.tma_store = 1;

  // A caller of the version-1 fields: none of the switches is read.
  c.struct_size = TILEC_OPTIONS_STRUCT_SIZE_V1;
  EXPECT_EQ(keyThroughC(c), defaultKey);
  // Of the version-2 fields: the switches are read, debug and
  // enable_fp_fusion keep their defaults.
  c.num_ctas = 1;
  c.struct_size = TILEC_OPTIONS_STRUCT_SIZE_V2;
  CompilerOptions v2 = cpp;
  v2.useWgmma = false;
  v2.longestFirst = false;
  v2.mbarrierSpinLimit = 1000;
  std::string v2Key = keyThroughC(c);
  EXPECT_EQ(v2Key, keyThroughCpp(v2));
  EXPECT_NE(v2Key, defaultKey);
  // A size that ends inside debug: debug is not read either.
  c.struct_size = TILEC_OPTIONS_STRUCT_SIZE_V2 + 2;
  EXPECT_EQ(keyThroughC(c), v2Key);
  // Of the version-3 fields: debug and enable_fp_fusion are read,
  // persistent and tma_store keep their defaults (off).
  c.struct_size = TILEC_OPTIONS_STRUCT_SIZE_V3;
  CompilerOptions v3 = v2;
  v3.debug = true;
  v3.enableFPFusion = false;
  std::string v3Key = keyThroughC(c);
  EXPECT_EQ(v3Key, keyThroughCpp(v3));
  EXPECT_NE(v3Key, v2Key);
  // A size that ends inside persistent: persistent is not read either.
  c.struct_size = TILEC_OPTIONS_STRUCT_SIZE_V3 + 2;
  EXPECT_EQ(keyThroughC(c), v3Key);
  // Of the version-4 fields: persistent is read, tma_store keeps its
  // default (off).
  c.struct_size = TILEC_OPTIONS_STRUCT_SIZE_V4;
  CompilerOptions v4 = v3;
  v4.persistent = true;
  std::string v4Key = keyThroughC(c);
  EXPECT_EQ(v4Key, keyThroughCpp(v4));
  EXPECT_NE(v4Key, v3Key);
  // A size that ends inside tma_store: tma_store is not read either.
  c.struct_size = TILEC_OPTIONS_STRUCT_SIZE_V4 + 2;
  EXPECT_EQ(keyThroughC(c), v4Key);
  // All of it.
  c.struct_size = TILEC_OPTIONS_STRUCT_SIZE;
  CompilerOptions v5 = v4;
  v5.tmaStore = true;
  std::string v5Key = keyThroughC(c);
  EXPECT_EQ(v5Key, keyThroughCpp(v5));
  EXPECT_NE(v5Key, v4Key);

  // tilec_options_init_sized writes the caller's bytes only: the version-2
  // fields' defaults, and nothing past them.
  tilec_options buffer;
  std::memset(&buffer, 0x5a, sizeof(buffer));
  ASSERT_EQ(tilec_options_init_sized(&buffer, TILEC_OPTIONS_STRUCT_SIZE_V2),
            TILEC_SUCCESS);
  EXPECT_EQ(buffer.struct_size, TILEC_OPTIONS_STRUCT_SIZE_V2);
  EXPECT_EQ(buffer.num_warps, 4u);
  EXPECT_EQ(buffer.arch, nullptr);
  EXPECT_EQ(buffer.mbarrier_spin_limit, 0);
  EXPECT_EQ(buffer.debug, 0x5a5a5a5a);
  EXPECT_EQ(buffer.enable_fp_fusion, 0x5a5a5a5a);
  EXPECT_EQ(buffer.persistent, 0x5a5a5a5a);
  EXPECT_EQ(buffer.tma_store, 0x5a5a5a5a);
  // The version-3 fields: debug and enable_fp_fusion get their defaults,
  // persistent and tma_store stay untouched.
  std::memset(&buffer, 0x5a, sizeof(buffer));
  ASSERT_EQ(tilec_options_init_sized(&buffer, TILEC_OPTIONS_STRUCT_SIZE_V3),
            TILEC_SUCCESS);
  EXPECT_EQ(buffer.struct_size, TILEC_OPTIONS_STRUCT_SIZE_V3);
  EXPECT_EQ(buffer.debug, 0);
  EXPECT_EQ(buffer.enable_fp_fusion, 1);
  EXPECT_EQ(buffer.persistent, 0x5a5a5a5a);
  EXPECT_EQ(buffer.tma_store, 0x5a5a5a5a);
  // The version-4 fields: persistent gets its default, tma_store stays
  // untouched.
  std::memset(&buffer, 0x5a, sizeof(buffer));
  ASSERT_EQ(tilec_options_init_sized(&buffer, TILEC_OPTIONS_STRUCT_SIZE_V4),
            TILEC_SUCCESS);
  EXPECT_EQ(buffer.struct_size, TILEC_OPTIONS_STRUCT_SIZE_V4);
  EXPECT_EQ(buffer.persistent, 0);
  EXPECT_EQ(buffer.tma_store, 0x5a5a5a5a);
}

TEST(CAPIOptionsTest, StructSizesOutOfRangeAreClearErrors) {
  tilec_options options;
  tilec_options_init(&options);
  tilec_compiler *compiler = reinterpret_cast<tilec_compiler *>(1);
  // Too small for the version-1 fields: 0 (a struct zeroed by hand instead
  // of tilec_options_init), a size_t only, one byte short.
  for (size_t size : {size_t(0), sizeof(size_t),
                      size_t(TILEC_OPTIONS_STRUCT_SIZE_V1 - 1)}) {
    SCOPED_TRACE(size);
    options.struct_size = size;
    EXPECT_EQ(tilec_compiler_create(&options, &compiler),
              TILEC_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(compiler, nullptr);
    EXPECT_EQ(std::string(tilec_last_error()),
              "tilec_options.struct_size is " + std::to_string(size) +
                  " bytes, less than the 72 of the fields of C API version 1 "
                  "(arch to device): fill the options with tilec_options_init "
                  "(a binding: tilec_options_init_sized with the size of the "
                  "fields it mirrors)");
  }
  // Larger than this library knows: a program built for a newer tilec, or
  // garbage.
  for (size_t size : {size_t(TILEC_OPTIONS_STRUCT_SIZE + 1),
                      size_t(TILEC_OPTIONS_STRUCT_SIZE + 64), SIZE_MAX}) {
    SCOPED_TRACE(size);
    options.struct_size = size;
    EXPECT_EQ(tilec_compiler_create(&options, &compiler),
              TILEC_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(compiler, nullptr);
    EXPECT_EQ(std::string(tilec_last_error()),
              "tilec_options.struct_size is " + std::to_string(size) +
                  " bytes, more than the 144 this libtilec knows (C API "
                  "version 5): the program was built for a newer tilec; "
                  "rebuild it for this one, or use a newer libtilec");
  }

  // tilec_options_init_sized: too small writes nothing; NULL is refused.
  tilec_options untouched;
  std::memset(&untouched, 0x5a, sizeof(untouched));
  EXPECT_EQ(tilec_options_init_sized(&untouched,
                                     TILEC_OPTIONS_STRUCT_SIZE_V1 - 1),
            TILEC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(tilec_last_error(), "less than the 72"), nullptr);
  tilec_options pattern;
  std::memset(&pattern, 0x5a, sizeof(pattern));
  EXPECT_EQ(std::memcmp(&untouched, &pattern, sizeof(pattern)), 0);
  EXPECT_EQ(tilec_options_init_sized(nullptr, TILEC_OPTIONS_STRUCT_SIZE),
            TILEC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(tilec_last_error(), "'options' is null"), nullptr);
  // A newer caller's larger struct: filled as far as this library knows
  // (the caller owns those bytes), then refused by tilec_compiler_create.
  struct Newer {
    tilec_options known;
    int32_t future;
  } newer;
  std::memset(&newer, 0x5a, sizeof(newer));
  EXPECT_EQ(tilec_options_init_sized(&newer.known, sizeof(Newer)),
            TILEC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(newer.known.struct_size, sizeof(Newer));
  EXPECT_EQ(newer.known.num_warps, 4u);
  EXPECT_EQ(newer.known.enable_fp_fusion, 1);
  EXPECT_EQ(newer.known.persistent, 0);
  EXPECT_EQ(newer.known.tma_store, 0);
  EXPECT_EQ(tilec_compiler_create(&newer.known, &compiler),
            TILEC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(tilec_last_error(), "built for a newer tilec"),
            nullptr);
  // NULL options are the defaults.
  ASSERT_EQ(tilec_compiler_create(nullptr, &compiler), TILEC_SUCCESS);
  tilec_compiler_destroy(compiler);
}

TEST(CAPIOptionsTest, BadSwitchesAreInvalidArguments) {
  tilec_options options;
  tilec_options_init(&options);
  tilec_compiler *compiler = nullptr;
  options.ping_pong = 2;
  EXPECT_EQ(tilec_compiler_create(&options, &compiler),
            TILEC_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tilec_last_error(),
               "ping_pong must be TILEC_SWITCH_AUTO (-1), TILEC_SWITCH_OFF "
               "(0) or TILEC_SWITCH_ON (1), got 2");
  tilec_options_init(&options);
  options.intra_warpgroup_overlap = -2;
  EXPECT_EQ(tilec_compiler_create(&options, &compiler),
            TILEC_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(tilec_last_error(), "intra_warpgroup_overlap must be"),
            nullptr);
  tilec_options_init(&options);
  options.warp_specialize = "sometimes";
  EXPECT_EQ(tilec_compiler_create(&options, &compiler),
            TILEC_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tilec_last_error(), "warpSpecialize must be off, requested, "
                                   "auto or all, got 'sometimes'");
  tilec_options_init(&options);
  options.num_ctas = 3;
  EXPECT_EQ(tilec_compiler_create(&options, &compiler),
            TILEC_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tilec_last_error(), "numCTAs must be 1, 2, 4 or 8, got 3");
  tilec_options_init(&options);
  options.mbarrier_spin_limit = -5;
  EXPECT_EQ(tilec_compiler_create(&options, &compiler),
            TILEC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(compiler, nullptr);
}

} // namespace
