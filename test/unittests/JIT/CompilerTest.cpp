//===- CompilerTest.cpp - The JIT compiler and its caches -----------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Real compilations (frontend to cubin) through jit::Compiler, each test in
// its own cache directory: the in-memory and disk hits, misses when a callee
// or the architecture changes, a corrupt entry rebuilt, several processes
// compiling one kernel at once, dumps, diagnostics and line tables. Tests
// that need ptxas skip (saying so) without it.
//
//===----------------------------------------------------------------------===//

#include "tilec/JIT/JIT.h"

#include "tilec/Compiler/Compiler.h"
#include "tilec/JIT/CacheKey.h"
#include "tilec/JIT/DiskCache.h"
#include "tilec/Target/Ptxas.h"

#include "TestUtils.h"

#include "llvm/Support/MemoryBuffer.h"

#include <set>

using namespace tilec;
using namespace tilec::jit;
using namespace tilec::jit::testing;

namespace {

constexpr const char *kSource = R"py(import triton
import triton.language as tl

@triton.jit
def scale(x):
    return x * 2.0

@triton.jit
def unrelated(x):
    return x + 1.0

@triton.jit
def kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, scale(tl.load(x_ptr + offs, mask=mask)), mask=mask)
)py";

constexpr const char *kSignature = "*fp32:16, *fp32:16, i32, 256";

std::string edited(llvm::StringRef from, llvm::StringRef to) {
  std::string text = kSource;
  size_t at = text.find(from.str());
  EXPECT_NE(at, std::string::npos);
  text.replace(at, from.size(), to.str());
  return text;
}

#define REQUIRE_PTXAS()                                                        \
  do {                                                                         \
    if (!findPtxas())                                                          \
      GTEST_SKIP() << "no ptxas (set TILEC_PTXAS or install CUDA)";            \
  } while (false)

Compiler makeCompiler(const std::string &cacheDir,
                      CompilerOptions options = {}) {
  options.cacheDir = cacheDir;
  llvm::Expected<Compiler> compiler = Compiler::create(options);
  EXPECT_TRUE(!!compiler);
  if (!compiler) {
    llvm::consumeError(compiler.takeError());
    std::abort();
  }
  return std::move(*compiler);
}

std::shared_ptr<const CompiledKernel>
compile(Compiler &compiler, llvm::StringRef source,
        llvm::StringRef signature = kSignature) {
  llvm::Expected<Kernel> kernel =
      compiler.compileSource(source, "kernel", "test.tile");
  EXPECT_TRUE(!!kernel);
  if (!kernel) {
    ADD_FAILURE() << llvm::toString(kernel.takeError());
    return nullptr;
  }
  auto compiled = kernel->compile(signature);
  if (!compiled) {
    ADD_FAILURE() << llvm::toString(compiled.takeError());
    return nullptr;
  }
  return *compiled;
}

TEST(CompilerTest, HitsInMemoryThenOnDisk) {
  REQUIRE_PTXAS();
  TempDir dir;
  Compiler first = makeCompiler(dir.str());
  auto a = compile(first, kSource);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->origin, CacheOrigin::Compiled);
  EXPECT_FALSE(a->cubin.empty());
  EXPECT_NE(a->ptxasLog.find("registers"), std::string::npos);
  EXPECT_GT(a->times.passes, 0);
  EXPECT_GT(a->times.ptxas, 0);
  // The same source again: the same Kernel, the same compiled kernel.
  auto b = compile(first, kSource);
  EXPECT_EQ(a.get(), b.get());
  CacheStats stats = first.getStats();
  EXPECT_EQ(stats.sourceHits, 1u);
  EXPECT_EQ(stats.compiles, 1u);
  EXPECT_EQ(stats.memoryHits, 1u);
  // The cache key names the exact target and toolchain.
  EXPECT_NE(a->keyText.find("arch sm_90a\n"), std::string::npos);
  EXPECT_NE(a->keyText.find("signature *fp32:16, *fp32:16, i32, 256\n"),
            std::string::npos);
  EXPECT_NE(a->keyText.find("release"), std::string::npos) << a->keyText;
  EXPECT_NE(a->keyText.find("compiler " + getCompilerIdentity()),
            std::string::npos);

  // A new compiler (a new process, as far as the caches know).
  Compiler second = makeCompiler(dir.str());
  auto c = compile(second, kSource);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->origin, CacheOrigin::Disk);
  EXPECT_EQ(c->key, a->key);
  EXPECT_EQ(c->cubin, a->cubin);
  EXPECT_EQ(c->metadata, a->metadata);
  EXPECT_EQ(second.getStats().diskHits, 1u);
  EXPECT_EQ(second.getStats().compiles, 0u);
}

TEST(CompilerTest, ChangedCalleeMissesUnrelatedEditHits) {
  TempDir dir;
  CompilerOptions options;
  options.ptxOnly = true; // The key logic does not need cubins.
  Compiler original = makeCompiler(dir.str(), options);
  auto base = compile(original, kSource);
  ASSERT_TRUE(base);
  Compiler fresh = makeCompiler(dir.str(), options);
  auto callee = compile(fresh, edited("x * 2.0", "x * 3.0"));
  ASSERT_TRUE(callee);
  EXPECT_EQ(callee->origin, CacheOrigin::Compiled);
  EXPECT_NE(callee->key, base->key);
  EXPECT_NE(callee->ptx.find("0f40400000"), std::string::npos); // 3.0f
  auto other = compile(fresh, edited("x + 1.0", "x + 5.0"));
  ASSERT_TRUE(other);
  EXPECT_EQ(other->origin, CacheOrigin::Disk);
  EXPECT_EQ(other->key, base->key);
  // Another signature, another kernel.
  auto block = compile(fresh, kSource, "*fp32:16, *fp32:16, i32, 512");
  ASSERT_TRUE(block);
  EXPECT_EQ(block->origin, CacheOrigin::Compiled);
}

TEST(CompilerTest, ChangedArchMisses) {
  REQUIRE_PTXAS();
  TempDir dir;
  Compiler original = makeCompiler(dir.str());
  auto a = compile(original, kSource);
  CompilerOptions options;
  options.arch = "sm_90";
  Compiler other = makeCompiler(dir.str(), options);
  auto b = compile(other, kSource);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(b->origin, CacheOrigin::Compiled);
  EXPECT_NE(a->key, b->key);
  EXPECT_NE(b->ptx.find(".target sm_90\n"), std::string::npos);
  EXPECT_NE(b->keyText.find("arch sm_90\n"), std::string::npos);
  // The other option changes too: warps.
  CompilerOptions warps;
  warps.numWarps = 8;
  Compiler eight = makeCompiler(dir.str(), warps);
  auto c = compile(eight, kSource);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->origin, CacheOrigin::Compiled);
  EXPECT_NE(c->metadata.find("\"num_threads\":256"), std::string::npos);
}

// Program i sums i + 1 rows: tilegpu-longest-first hands out its program
// ids longest first (the PTX counts them down from %nctaid.x).
constexpr const char *kGrowingLoopSource = R"py(import triton
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

TEST(CompilerTest, DefaultsAreThoseOfThePipelineAndTheCommandLine) {
  CompilerOptions jit;
  PipelineOptions pipeline;
  EXPECT_EQ(jit.numWarps, pipeline.numWarps);
  EXPECT_EQ(jit.numStages, pipeline.numStages);
  EXPECT_EQ(jit.lineInfo, pipeline.lineInfo);
  EXPECT_EQ(jit.useWgmma, pipeline.useWgmma);
  EXPECT_EQ(jit.useMMA, pipeline.useMMA);
  EXPECT_EQ(jit.useTMA, pipeline.useTMA);
  EXPECT_EQ(jit.useCpAsync, pipeline.useCpAsync);
  EXPECT_EQ(jit.warpSpecialize, pipeline.warpSpecialize);
  EXPECT_EQ(jit.pingPong, pipeline.pingPong);
  EXPECT_EQ(jit.intraWarpgroupOverlap, pipeline.intraWarpgroupOverlap);
  EXPECT_EQ(jit.numCTAs, pipeline.numCTAs);
  EXPECT_EQ(jit.longestFirst, pipeline.longestFirst);
  EXPECT_EQ(jit.prefetchLoads, pipeline.prefetchLoads);
  EXPECT_EQ(jit.tmaStore, pipeline.tmaStore);
  EXPECT_FALSE(jit.tmaStore); // Off unless asked for (--tma-store).
  EXPECT_EQ(jit.issueDotsEarly, pipeline.issueDotsEarly);
  EXPECT_EQ(jit.persistent, pipeline.persistent);
  EXPECT_FALSE(jit.persistent); // Off unless asked for (--persistent).
  EXPECT_EQ(jit.mbarrierSpinLimit, pipeline.mbarrierSpinLimit);
  EXPECT_EQ(jit.enableFPFusion, pipeline.enableFPFusion);
  EXPECT_TRUE(jit.enableFPFusion); // Triton's enable_fp_fusion default.
  // The cache key's inputs start from the same values.
  CacheKeyInputs key;
  EXPECT_EQ(key.useWgmma, jit.useWgmma);
  EXPECT_EQ(key.useMMA, jit.useMMA);
  EXPECT_EQ(key.useTMA, jit.useTMA);
  EXPECT_EQ(key.useCpAsync, jit.useCpAsync);
  EXPECT_EQ(key.warpSpecialize, jit.warpSpecialize);
  EXPECT_EQ(key.pingPong, jit.pingPong);
  EXPECT_EQ(key.intraWarpgroupOverlap, jit.intraWarpgroupOverlap);
  EXPECT_EQ(key.numCTAs, jit.numCTAs);
  EXPECT_EQ(key.longestFirst, jit.longestFirst);
  EXPECT_EQ(key.prefetchLoads, jit.prefetchLoads);
  EXPECT_EQ(key.tmaStore, jit.tmaStore);
  EXPECT_EQ(key.issueDotsEarly, jit.issueDotsEarly);
  EXPECT_EQ(key.persistent, jit.persistent);
  EXPECT_EQ(key.mbarrierSpinLimit, jit.mbarrierSpinLimit);
  EXPECT_EQ(key.enableFPFusion, jit.enableFPFusion);
}

TEST(CompilerTest, EveryPassSwitchIsInTheKeyAndReachesThePasses) {
  TempDir dir;
  CompilerOptions base;
  base.ptxOnly = true; // The key logic does not need cubins.
  // One compiler per setting, all on one disk cache: a switch left out of
  // the key would find the default's entry there (a disk hit, the same key).
  std::vector<std::pair<std::string, CompilerOptions>> settings;
  auto add = [&](std::string line, auto change) {
    CompilerOptions options = base;
    change(options);
    settings.emplace_back(std::move(line), options);
  };
  add("wgmma 0", [](CompilerOptions &o) { o.useWgmma = false; });
  add("mma 0", [](CompilerOptions &o) { o.useMMA = false; });
  add("tma 0", [](CompilerOptions &o) { o.useTMA = false; });
  add("cp-async 0", [](CompilerOptions &o) { o.useCpAsync = false; });
  add("warp-specialize all",
      [](CompilerOptions &o) { o.warpSpecialize = "all"; });
  add("ping-pong off", [](CompilerOptions &o) { o.pingPong = "off"; });
  add("ping-pong on", [](CompilerOptions &o) { o.pingPong = "on"; });
  add("intra-warpgroup-overlap off",
      [](CompilerOptions &o) { o.intraWarpgroupOverlap = "off"; });
  add("num-ctas 2", [](CompilerOptions &o) { o.numCTAs = 2; });
  add("longest-first 0", [](CompilerOptions &o) { o.longestFirst = false; });
  add("prefetch-loads 0",
      [](CompilerOptions &o) { o.prefetchLoads = false; });
  add("tma-store 1", [](CompilerOptions &o) { o.tmaStore = true; });
  add("issue-dots-early 0",
      [](CompilerOptions &o) { o.issueDotsEarly = false; });
  add("persistent 1", [](CompilerOptions &o) { o.persistent = true; });
  add("mbarrier-spin-limit 1000",
      [](CompilerOptions &o) { o.mbarrierSpinLimit = 1000; });
  add("cp-async-box-bytes 0",
      [](CompilerOptions &o) { o.cpAsyncBoxBytes = 0; });
  add("fp-fusion 0", [](CompilerOptions &o) { o.enableFPFusion = false; });

  Compiler defaults = makeCompiler(dir.str(), base);
  auto reference = compile(defaults, kGrowingLoopSource,
                           "*fp32:16, *fp32:16, 128");
  ASSERT_TRUE(reference);
  for (llvm::StringRef line :
       {"wgmma 1\n", "mma 1\n", "tma 1\n", "cp-async 1\n",
        "warp-specialize auto\n", "ping-pong auto\n",
        "intra-warpgroup-overlap auto\n", "num-ctas 1\n",
        "longest-first 1\n", "prefetch-loads 1\n", "tma-store 0\n",
        "issue-dots-early 1\n", "persistent 0\n", "mbarrier-spin-limit 0\n",
        "cp-async-box-bytes 8192\n", "fp-fusion 1\n"})
    EXPECT_NE(reference->keyText.find(line.str()), std::string::npos)
        << line.str() << reference->keyText;
  // The default programs are handed out longest first.
  EXPECT_NE(reference->ptx.find("%nctaid.x"), std::string::npos);
  // With fp fusion, the loop's adds carry no rounding modifier (ptxas may
  // fuse them); without, they are add.rn (checked below).
  EXPECT_NE(reference->ptx.find("add.f32"), std::string::npos);
  EXPECT_EQ(reference->ptx.find("add.rn.f32"), std::string::npos);

  std::set<std::string> keys = {reference->key};
  for (auto &[line, options] : settings) {
    SCOPED_TRACE(line);
    Compiler compiler = makeCompiler(dir.str(), options);
    auto compiled = compile(compiler, kGrowingLoopSource,
                            "*fp32:16, *fp32:16, 128");
    ASSERT_TRUE(compiled);
    EXPECT_EQ(compiled->origin, CacheOrigin::Compiled);
    EXPECT_NE(compiled->keyText.find(line + "\n"), std::string::npos)
        << compiled->keyText;
    EXPECT_TRUE(keys.insert(compiled->key).second) << "a key seen before";
    if (!options.longestFirst)
      EXPECT_EQ(compiled->ptx.find("%nctaid"), std::string::npos);
    if (!options.enableFPFusion) {
      EXPECT_NE(compiled->ptx.find("add.rn.f32"), std::string::npos);
      EXPECT_EQ(compiled->ptx.find("add.f32"), std::string::npos);
    }
  }
}

TEST(CompilerTest, PersistentReachesThePass) {
  TempDir dir;
  CompilerOptions options;
  options.ptxOnly = true;
  Compiler plain = makeCompiler(dir.str(), options);
  options.persistent = true;
  Compiler persistent = makeCompiler(dir.str(), options);
  // An elementwise kernel: made persistent (the metadata says so; the
  // runtime sizes its grid from it).
  auto a = compile(plain, kSource);
  auto b = compile(persistent, kSource);
  ASSERT_TRUE(a && b);
  EXPECT_NE(a->metadata.find("\"persistent\":false"), std::string::npos)
      << a->metadata;
  EXPECT_NE(b->metadata.find("\"persistent\":true"), std::string::npos)
      << b->metadata;
  EXPECT_NE(b->keyText.find("persistent 1\n"), std::string::npos);
  EXPECT_NE(a->key, b->key);
  EXPECT_NE(a->ptx, b->ptx);
  // Programs of unequal work (program i runs i + 1 iterations) are left as
  // they are, with a remark: the same code under another key.
  auto c = compile(plain, kGrowingLoopSource, "*fp32:16, *fp32:16, 128");
  auto d = compile(persistent, kGrowingLoopSource, "*fp32:16, *fp32:16, 128");
  ASSERT_TRUE(c && d);
  EXPECT_NE(d->metadata.find("\"persistent\":false"), std::string::npos)
      << d->metadata;
  EXPECT_EQ(d->ptx, c->ptx);
  EXPECT_NE(d->key, c->key);
}

TEST(CompilerTest, CorruptEntryIsRebuilt) {
  TempDir dir;
  CompilerOptions options;
  options.ptxOnly = true;
  Compiler original = makeCompiler(dir.str(), options);
  auto a = compile(original, kSource);
  ASSERT_TRUE(a);
  std::string path = DiskCache(dir.str()).getEntryPath(a->key);
  // Flip one byte in the middle of the PTX.
  {
    auto buffer = llvm::MemoryBuffer::getFile(path);
    ASSERT_TRUE(!!buffer);
    std::string bytes = (*buffer)->getBuffer().str();
    bytes[bytes.size() / 2] ^= 1;
    writeFile(path, bytes);
  }
  Compiler second = makeCompiler(dir.str(), options);
  auto b = compile(second, kSource);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->origin, CacheOrigin::Compiled);
  EXPECT_EQ(b->ptx, a->ptx);
  EXPECT_EQ(second.getStats().diskCorrupt, 1u);
  // Truncated (an interrupted copy): detected and rebuilt as well.
  truncateFile(path, 100);
  Compiler third = makeCompiler(dir.str(), options);
  auto c = compile(third, kSource);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->origin, CacheOrigin::Compiled);
  EXPECT_EQ(third.getStats().diskCorrupt, 1u);
  // And the rebuilt entry serves the next process.
  Compiler fourth = makeCompiler(dir.str(), options);
  auto d = compile(fourth, kSource);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->origin, CacheOrigin::Disk);
}

TEST(CompilerTest, ConcurrentProcessesCompilingOneKernel) {
  REQUIRE_PTXAS();
  TempDir dir;
  std::string source = dir.file("k.tile");
  writeFile(source, kSource);
  std::string cache = dir.file("cache");
  const int kProcesses = 4;
  std::vector<llvm::sys::ProcessInfo> workers;
  for (int i = 0; i < kProcesses; ++i)
    workers.push_back(
        startWorker({"compile", cache, source, "kernel", kSignature},
                    dir.file("out" + std::to_string(i))));
  std::string key;
  for (int i = 0; i < kProcesses; ++i) {
    EXPECT_EQ(waitWorker(workers[i]), 0);
    auto out = llvm::MemoryBuffer::getFile(dir.file("out" + std::to_string(i)));
    ASSERT_TRUE(!!out);
    llvm::StringRef line = (*out)->getBuffer().trim();
    llvm::StringRef processKey = line.rsplit(' ').second;
    EXPECT_TRUE(line.starts_with("compiled ") || line.starts_with("disk "))
        << line.str();
    if (key.empty())
      key = processKey.str();
    EXPECT_EQ(processKey, key);
  }
  // One complete entry, no temporary file left, and it serves a new process.
  std::vector<std::string> files = listFiles(cache);
  std::vector<std::string> entries;
  for (const std::string &file : files)
    if (llvm::StringRef(file).starts_with("v1/"))
      entries.push_back(file);
  EXPECT_EQ(entries, std::vector<std::string>{"v1/" + key.substr(0, 2) + "/" +
                                              key + ".tkc"});
  Compiler after = makeCompiler(cache);
  llvm::Expected<Kernel> kernel = after.compileFile(source, "kernel");
  ASSERT_TRUE(!!kernel);
  auto compiled = kernel->compile(kSignature);
  ASSERT_TRUE(!!compiled);
  EXPECT_EQ((*compiled)->origin, CacheOrigin::Disk);
}

TEST(CompilerTest, DumpOfADiskCacheHitSaysWhereTheKernelCameFrom) {
  REQUIRE_PTXAS();
  TempDir dir;
  std::string cache = dir.file("cache");
  Compiler original = makeCompiler(cache);
  auto stored = compile(original, kSource);
  ASSERT_TRUE(stored);
  CompilerOptions options;
  options.dumpDir = dir.file("dump");
  Compiler dumping = makeCompiler(cache, options);
  auto hit = compile(dumping, kSource);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->origin, CacheOrigin::Disk);
  std::string sub = "kernel-" + hit->key.substr(0, 12);
  EXPECT_EQ(listFiles(options.dumpDir),
            std::vector<std::string>{sub + "/cache-hit.json"});
  auto note = llvm::MemoryBuffer::getFile(options.dumpDir + "/" + sub +
                                          "/cache-hit.json");
  ASSERT_TRUE(!!note);
  EXPECT_NE((*note)->getBuffer().find("\"origin\": \"disk\""), llvm::StringRef::npos);
  EXPECT_NE((*note)->getBuffer().find(cache), llvm::StringRef::npos);
  // A kernel the selection leaves out is not dumped at all.
  CompilerOptions other;
  other.dumpDir = dir.file("dump-none");
  other.dumpKernel = "^not_this_one$";
  Compiler selecting = makeCompiler(cache, other);
  ASSERT_TRUE(compile(selecting, kSource));
  EXPECT_TRUE(listFiles(other.dumpDir).empty());
}

TEST(CompilerTest, DumpsEveryStageOnCacheHitWhenAsked) {
  REQUIRE_PTXAS();
  TempDir dir;
  std::string cache = dir.file("cache");
  Compiler original = makeCompiler(cache);
  auto stored = compile(original, kSource);
  ASSERT_TRUE(stored);
  CompilerOptions options;
  options.dumpDir = dir.file("dump");
  options.dumpOnCacheHit = true;
  options.dumpKernel = "^kern";
  Compiler dumping = makeCompiler(cache, options);
  auto dumped = compile(dumping, kSource);
  ASSERT_TRUE(dumped);
  EXPECT_EQ(dumped->origin, CacheOrigin::Compiled); // Not the disk entry.
  std::string sub = "kernel-" + dumped->key.substr(0, 12);
  EXPECT_EQ(dumped->dumpDir, options.dumpDir + "/" + sub);
  std::vector<std::string> files = listFiles(options.dumpDir);
  ASSERT_GE(files.size(), 10u);
  EXPECT_EQ(files.front(), sub + "/00-input.mlir");
  auto has = [&](llvm::StringRef suffix) {
    return llvm::any_of(files, [&](const std::string &f) {
      return llvm::StringRef(f).ends_with(suffix);
    });
  };
  EXPECT_TRUE(has("-convert-tile-to-tilegpu.mlir"));
  EXPECT_TRUE(has("-convert-tilegpu-to-llvm.mlir"));
  EXPECT_TRUE(has("-ensure-debug-info-scope-on-llvm-func.mlir"));
  EXPECT_TRUE(has("-llvm-ir.ll"));
  EXPECT_TRUE(has("-llvm-ir-opt.ll"));
  EXPECT_TRUE(has("-kernel.ptx"));
  EXPECT_TRUE(has("-ptxas.log"));
  EXPECT_TRUE(has("-kernel.cubin"));
  EXPECT_TRUE(has("-kernel.json"));
  EXPECT_TRUE(has("/index.json"));
  EXPECT_TRUE(has("/index.html"));
  // The IR keeps the source locations.
  auto input = llvm::MemoryBuffer::getFile(options.dumpDir + "/" + sub +
                                           "/00-input.mlir");
  ASSERT_TRUE(!!input);
  EXPECT_NE((*input)->getBuffer().find("loc(\"test.tile\":16:"),
            llvm::StringRef::npos);
}

TEST(CompilerTest, LineTablesMapPtxToSourceLines) {
  TempDir dir;
  CompilerOptions options;
  options.ptxOnly = true;
  Compiler compiler = makeCompiler(dir.str(), options);
  auto compiled = compile(compiler, kSource);
  ASSERT_TRUE(compiled);
  EXPECT_NE(compiled->ptx.find("test.tile\""), std::string::npos)
      << compiled->ptx.substr(0, 2000);
  EXPECT_NE(compiled->ptx.find(".loc\t1 16 "), std::string::npos);
  // Line tables only: ptxas must still optimize (no `debug` target).
  EXPECT_EQ(compiled->ptx.find(", debug"), std::string::npos);

  options.lineInfo = false;
  Compiler plain = makeCompiler(dir.str(), options);
  auto noLines = compile(plain, kSource);
  ASSERT_TRUE(noLines);
  EXPECT_EQ(noLines->ptx.find(".loc"), std::string::npos);
  EXPECT_NE(noLines->key, compiled->key);
}

TEST(CompilerTest, DebugModeCompilesDeviceAssertions) {
  TempDir dir;
  std::string source = kSource;
  std::string store = "    tl.store(out_ptr + offs,";
  size_t at = source.find(store);
  ASSERT_NE(at, std::string::npos);
  source.insert(at, "    tl.device_assert(offs < n, \"offs < n\")\n");
  CompilerOptions options;
  options.ptxOnly = true;
  Compiler plain = makeCompiler(dir.str(), options);
  auto off = compile(plain, source);
  ASSERT_TRUE(off);
  EXPECT_EQ(off->ptx.find("__assertfail"), std::string::npos);

  options.debug = true;
  Compiler debug = makeCompiler(dir.str(), options);
  auto on = compile(debug, source);
  ASSERT_TRUE(on);
  EXPECT_NE(on->ptx.find("call.uni __assertfail"), std::string::npos);
  EXPECT_NE(on->key, off->key);
}

TEST(CompilerTest, ErrorsCarryDiagnostics) {
  TempDir dir;
  CompilerOptions options;
  options.ptxOnly = true;
  Compiler compiler = makeCompiler(dir.str(), options);
  llvm::Expected<Kernel> syntax =
      compiler.compileSource("@triton.jit\ndef k(x:\n", "", "bad.tile");
  ASSERT_FALSE(!!syntax);
  std::string message = llvm::toString(syntax.takeError());
  EXPECT_NE(message.find("bad.tile:2:"), std::string::npos) << message;
  EXPECT_NE(message.find("^"), std::string::npos) << message;

  llvm::Expected<Kernel> missing =
      compiler.compileSource(kSource, "nope", "test.tile");
  ASSERT_FALSE(!!missing);
  EXPECT_EQ(llvm::toString(missing.takeError()),
            "test.tile: no @jit function named 'nope' in this file; it "
            "defines: scale, unrelated, kernel");

  llvm::Expected<Kernel> kernel =
      compiler.compileSource(kSource, "kernel", "test.tile");
  ASSERT_TRUE(!!kernel);
  // BLOCK = 100: tl.arange needs a power of two.
  auto wrong = kernel->compile("*fp32:16, *fp32:16, i32, 100");
  ASSERT_FALSE(!!wrong);
  message = llvm::toString(wrong.takeError());
  EXPECT_NE(message.find("test.tile:"), std::string::npos) << message;
  EXPECT_NE(message.find("error:"), std::string::npos) << message;
  EXPECT_NE(message.find("does not compile for signature"), std::string::npos)
      << message;
  auto invalid = kernel->compile("*fp31, i32");
  ASSERT_FALSE(!!invalid);
  EXPECT_EQ(llvm::toString(invalid.takeError()),
            "kernel 'kernel': invalid signature: signature entry 1 "
            "('*fp31'): unknown type 'fp31'; did you mean 'fp32'?");
}

TEST(CompilerTest, InvalidOptions) {
  CompilerOptions options;
  options.numWarps = 3;
  llvm::Expected<Compiler> compiler = Compiler::create(options);
  ASSERT_FALSE(!!compiler);
  EXPECT_EQ(llvm::toString(compiler.takeError()),
            "numWarps must be a power of two between 1 and 32, got 3");
}

TEST(CompilerTest, InvalidOptionsAreCheckedAsTheCommandLineChecksThem) {
  auto errorOf = [](const CompilerOptions &options) {
    llvm::Expected<Compiler> compiler = Compiler::create(options);
    return compiler ? std::string() : llvm::toString(compiler.takeError());
  };
  CompilerOptions options;
  options.numWarps = 64;
  EXPECT_EQ(errorOf(options),
            "numWarps must be a power of two between 1 and 32, got 64");
  options = CompilerOptions();
  options.numStages = 0;
  EXPECT_EQ(errorOf(options), "numStages must be at least 1");
  options = CompilerOptions();
  options.arch = "gfx90a";
  EXPECT_EQ(errorOf(options),
            "unknown arch 'gfx90a' (expected sm_NN or sm_NNa, e.g. sm_90a)");
  options = CompilerOptions();
  options.ptxVersion = 78;
  EXPECT_EQ(errorOf(options),
            "ptxVersion 78 is too old for sm_90a (needs 80 or newer)");
  options = CompilerOptions();
  options.ptxVersion = 99;
  EXPECT_EQ(errorOf(options), "unknown ptxVersion 99 (expected the PTX ISA "
                              "version times 10, 60 to 88, e.g. 80)");
  // The pass switches.
  options = CompilerOptions();
  options.warpSpecialize = "sometimes";
  EXPECT_EQ(errorOf(options), "warpSpecialize must be off, requested, auto "
                              "or all, got 'sometimes'");
  options = CompilerOptions();
  options.pingPong = "yes";
  EXPECT_EQ(errorOf(options), "pingPong must be off, auto or on, got 'yes'");
  options = CompilerOptions();
  options.intraWarpgroupOverlap = "";
  EXPECT_EQ(errorOf(options),
            "intraWarpgroupOverlap must be off, auto or on, got ''");
  options = CompilerOptions();
  options.numCTAs = 3;
  EXPECT_EQ(errorOf(options), "numCTAs must be 1, 2, 4 or 8, got 3");
  options = CompilerOptions();
  options.mbarrierSpinLimit = -1;
  EXPECT_EQ(errorOf(options), "mbarrierSpinLimit must not be negative, got -1");
}

} // namespace
