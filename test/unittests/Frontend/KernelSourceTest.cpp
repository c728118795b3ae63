//===- KernelSourceTest.cpp - Tests of describeKernelSource ---------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The kernel cache keys on KernelSource::hash: it must change when anything
// the kernel's code depends on changes (its text, a callee's, a constant's,
// an import, a line number) and must not change for unrelated edits. The
// dependency set must contain every function the code generator inlines.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/KernelSource.h"

#include "tilec/Frontend/Diagnostics.h"
#include "tilec/Frontend/Frontend.h"
#include "tilec/Frontend/Parser.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include "gtest/gtest.h"

using namespace tilec::frontend;

namespace {

llvm::Expected<KernelSource> describe(llvm::StringRef source,
                                      llvm::StringRef kernel = "",
                                      llvm::StringRef file = "test.tile") {
  llvm::SourceMgr srcMgr;
  unsigned id = srcMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, file), llvm::SMLoc());
  StoringDiagnosticSink sink;
  std::unique_ptr<ModuleAST> module = parseModule(srcMgr, id, sink);
  if (!module)
    return llvm::createStringError("parse error");
  return describeKernelSource(srcMgr, id, *module, kernel);
}

std::string hashOf(llvm::StringRef source, llvm::StringRef kernel = "") {
  llvm::Expected<KernelSource> ks = describe(source, kernel);
  if (!ks) {
    ADD_FAILURE() << llvm::toString(ks.takeError());
    return "";
  }
  return ks->hash;
}

constexpr const char *kBase = R"py(import triton
import triton.language as tl

SCALE = 2.0
UNUSED = 7

@triton.jit
def helper(x):
    return x * SCALE

@triton.jit
def unrelated(x):
    return x + 1

@triton.jit
def kernel(x_ptr, n, BLOCK: tl.constexpr = 128, FLAG: "tl.constexpr" = True):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, helper(x), mask=offs < n)
)py";

std::string replaced(llvm::StringRef from, llvm::StringRef to) {
  std::string text = kBase;
  size_t at = text.find(from.str());
  EXPECT_NE(at, std::string::npos) << from.str();
  text.replace(at, from.size(), to.str());
  return text;
}

TEST(KernelSourceTest, ParametersAndFunctions) {
  llvm::Expected<KernelSource> ks = describe(kBase, "kernel");
  ASSERT_TRUE(!!ks) << llvm::toString(ks.takeError());
  EXPECT_EQ(ks->name, "kernel");
  ASSERT_EQ(ks->parameters.size(), 4u);
  EXPECT_EQ(ks->parameters[0].name, "x_ptr");
  EXPECT_FALSE(ks->parameters[0].isConstexpr);
  EXPECT_TRUE(ks->parameters[2].isConstexpr);
  EXPECT_EQ(ks->parameters[2].defaultText, "128");
  EXPECT_TRUE(ks->parameters[3].isConstexpr);
  EXPECT_EQ(ks->parameters[3].defaultText, "True");
  EXPECT_EQ(ks->functions, (std::vector<std::string>{"helper", "kernel"}));
  EXPECT_EQ(ks->hash.size(), 64u);
}

TEST(KernelSourceTest, DefaultKernelIsTheUncalledOne) {
  // `unrelated` is also uncalled: two candidates.
  llvm::Expected<KernelSource> several = describe(kBase);
  ASSERT_FALSE(!!several);
  EXPECT_EQ(llvm::toString(several.takeError()),
            "test.tile: this file defines several @jit functions (helper, "
            "unrelated, kernel); name the kernel to compile");
  llvm::Expected<KernelSource> missing = describe(kBase, "kernal");
  ASSERT_FALSE(!!missing);
  EXPECT_EQ(llvm::toString(missing.takeError()),
            "test.tile: no @jit function named 'kernal' in this file; it "
            "defines: helper, unrelated, kernel");
  std::string one = replaced("@triton.jit\ndef unrelated", "def unrelated");
  llvm::Expected<KernelSource> picked = describe(one);
  ASSERT_TRUE(!!picked) << llvm::toString(picked.takeError());
  EXPECT_EQ(picked->name, "kernel");
}

TEST(KernelSourceTest, HashFollowsDependencies) {
  std::string base = hashOf(kBase, "kernel");
  EXPECT_EQ(hashOf(kBase, "kernel"), base); // Deterministic.
  // The kernel, a callee, a constant the callee reads, an import.
  EXPECT_NE(hashOf(replaced("BLOCK + tl.arange", "BLOCK + 0 + tl.arange"),
                   "kernel"),
            base);
  EXPECT_NE(hashOf(replaced("return x * SCALE", "return x * SCALE * 1"),
                   "kernel"),
            base);
  EXPECT_NE(hashOf(replaced("SCALE = 2.0", "SCALE = 3.0"), "kernel"), base);
  EXPECT_NE(hashOf(replaced("import triton.language as tl",
                            "import tilec.language as tl"),
                   "kernel"),
            base);
  // Unrelated edits: another function, an unused constant, host code,
  // comments between definitions (same line numbers).
  EXPECT_EQ(hashOf(replaced("return x + 1", "return x + 2"), "kernel"), base);
  EXPECT_EQ(hashOf(replaced("UNUSED = 7", "UNUSED = 8"), "kernel"), base);
  EXPECT_EQ(hashOf(replaced("UNUSED = 7", "# comment"), "kernel"), base);
  EXPECT_EQ(hashOf(std::string(kBase) + "\nif __name__ == '__main__':\n"
                                        "    print('hello')\n",
                   "kernel"),
            base);
  // Moving the kernel down a line changes its line table.
  EXPECT_NE(hashOf(replaced("SCALE = 2.0\n", "SCALE = 2.0\n\n"), "kernel"),
            base);
  // The file name is in the line table too.
  llvm::Expected<KernelSource> renamed = describe(kBase, "kernel", "other.tile");
  ASSERT_TRUE(!!renamed);
  EXPECT_NE(renamed->hash, base);
}

TEST(KernelSourceTest, NamesInStringsAndNestedFunctionsAreFollowed) {
  constexpr const char *source = R"py(import triton
import triton.language as tl
MSG = 3
@triton.jit
def callee(x):
    return x
@triton.jit
def kernel(x_ptr):
    def inner(v):
        return callee(v)
    tl.static_assert(True, f"{MSG}")
    tl.store(x_ptr, inner(tl.load(x_ptr)))
)py";
  llvm::Expected<KernelSource> ks = describe(source, "kernel");
  ASSERT_TRUE(!!ks) << llvm::toString(ks.takeError());
  EXPECT_EQ(ks->functions, (std::vector<std::string>{"callee", "kernel"}));
  std::string changed = source;
  changed.replace(changed.find("MSG = 3"), 7, "MSG = 4");
  EXPECT_NE(hashOf(changed, "kernel"), ks->hash);
}

TEST(KernelSourceTest, InlinedFunctionsAreDependencies) {
  llvm::SourceMgr srcMgr;
  unsigned id = srcMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(kBase, "test.tile"), llvm::SMLoc());
  mlir::MLIRContext context;
  StoringDiagnosticSink sink;
  auto kernel =
      emitKernel(srcMgr, id, "kernel", "*fp32:16, i32, 128, True", context,
                 sink);
  ASSERT_TRUE(mlir::succeeded(kernel));
  EXPECT_EQ(kernel->inlinedFunctions, (std::vector<std::string>{"helper"}));
  llvm::Expected<KernelSource> ks = describe(kBase, "kernel");
  ASSERT_TRUE(!!ks);
  for (const std::string &name : kernel->inlinedFunctions)
    EXPECT_NE(llvm::find(ks->functions, name), ks->functions.end()) << name;
}

} // namespace
