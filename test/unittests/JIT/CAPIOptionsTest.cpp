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
// switch (no GPU: PTX only).
//
//===----------------------------------------------------------------------===//

#include "tilec-c/tilec.h"
#include "tilec/JIT/JIT.h"

#include "TestUtils.h"

#include <cstring>
#include <functional>
#include <set>

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
