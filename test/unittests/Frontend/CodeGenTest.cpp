//===- CodeGenTest.cpp - Tests of emitKernel ------------------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The code generator through its API: the kernel interface it reports, the
// locations it puts on ops, kernel selection, and diagnostics (several
// independent errors in one run, none for uses of a failed value). The IR
// itself is checked by the lit tests in test/Frontend.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Frontend.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include "gtest/gtest.h"

using namespace tilec;
using namespace tilec::frontend;

namespace {

/// Compiles `source` and keeps what was reported as "line:col: message".
struct Compiled {
  llvm::SourceMgr srcMgr;
  mlir::MLIRContext context;
  StoringDiagnosticSink sink;
  mlir::FailureOr<KernelModule> result = mlir::failure();
  std::vector<std::string> diagnostics;

  Compiled(llvm::StringRef source, llvm::StringRef kernel,
           llvm::StringRef signature) {
    unsigned id = srcMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(source, "test.tile"),
        llvm::SMLoc());
    result = emitKernel(srcMgr, id, kernel, signature, context, sink);
    for (const Diagnostic &diag : sink.getDiagnostics()) {
      auto [line, col] = srcMgr.getLineAndColumn(diag.loc);
      std::string kind = diag.severity == DiagSeverity::Note ? "note" : "error";
      diagnostics.push_back(std::to_string(line) + ":" + std::to_string(col) +
                            ": " + kind + ": " + diag.message);
    }
  }
};

constexpr const char *kVectorAdd = R"py(import triton
import triton.language as tl

@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
)py";

TEST(CodeGenTest, InterfaceFromSignature) {
  Compiled c(kVectorAdd, "add_kernel", "*fp32:16,*fp32:16,*fp16, i32, 1024");
  ASSERT_TRUE(succeeded(c.result)) << ::testing::PrintToString(c.diagnostics);
  const KernelInterface &iface = c.result->interface;
  EXPECT_EQ(iface.name, "add_kernel");
  EXPECT_EQ(iface.signature, "*fp32:16, *fp32:16, *fp16, i32, 1024");
  EXPECT_EQ(iface.sourcePath, "test.tile");
  EXPECT_EQ(iface.sourceHash.size(), 16u);
  ASSERT_EQ(iface.parameters.size(), 5u);
  EXPECT_EQ(iface.parameters[0].name, "x_ptr");
  EXPECT_EQ(iface.parameters[0].kind, KernelParameter::Kind::Pointer);
  EXPECT_EQ(iface.parameters[0].type, "fp32");
  EXPECT_EQ(iface.parameters[0].divisibility, 16);
  EXPECT_EQ(iface.parameters[2].type, "fp16");
  EXPECT_EQ(iface.parameters[2].divisibility, 1);
  EXPECT_EQ(iface.parameters[3].kind, KernelParameter::Kind::Scalar);
  EXPECT_EQ(iface.parameters[3].type, "i32");
  EXPECT_EQ(iface.parameters[4].kind, KernelParameter::Kind::Constexpr);
  EXPECT_EQ(iface.parameters[4].type, "i32");
  EXPECT_EQ(iface.parameters[4].value, "1024");

  // One public kernel function with the runtime parameters only.
  mlir::ModuleOp module = *c.result->module;
  auto funcs = llvm::to_vector(module.getOps<mlir::func::FuncOp>());
  ASSERT_EQ(funcs.size(), 1u);
  mlir::func::FuncOp func = funcs.front();
  EXPECT_EQ(func.getName(), "add_kernel");
  EXPECT_TRUE(func->hasAttr(tile::kKernelAttrName));
  EXPECT_EQ(func.getNumArguments(), 4u);
  EXPECT_TRUE(func.getArgAttr(0, tile::kDivisibilityAttrName));
  EXPECT_FALSE(func.getArgAttr(2, tile::kDivisibilityAttrName));
}

TEST(CodeGenTest, EveryOpHasAFileLocation) {
  Compiled c(kVectorAdd, "", "*fp32, *fp32, *fp32, i32, 256");
  ASSERT_TRUE(succeeded(c.result));
  unsigned ops = 0;
  c.result->module->walk([&](mlir::Operation *op) {
    if (llvm::isa<mlir::ModuleOp>(op))
      return;
    ++ops;
    auto loc = llvm::dyn_cast<mlir::FileLineColLoc>(op->getLoc());
    ASSERT_TRUE(loc) << "op without a file location: "
                     << op->getName().getStringRef().str();
    EXPECT_EQ(loc.getFilename(), "test.tile");
    EXPECT_GE(loc.getLine(), 5u);
    EXPECT_LE(loc.getLine(), 10u);
  });
  EXPECT_GT(ops, 10u);
  // The load of x is on line 8, where `tl.load` starts (column 9).
  bool found = false;
  c.result->module->walk([&](tile::LoadOp load) {
    auto loc = llvm::cast<mlir::FileLineColLoc>(load->getLoc());
    if (loc.getLine() == 8) {
      EXPECT_EQ(loc.getColumn(), 9u);
      found = true;
    }
  });
  EXPECT_TRUE(found);
}

TEST(CodeGenTest, AnnotatedKernelWithoutSignature) {
  Compiled c(R"py(import triton.language as tl

@triton.jit
def fill(out: tl.pointer_type(tl.float16), n: tl.int64, FLAG: tl.constexpr = True,
         BLOCK: tl.constexpr = 64, SCALE: tl.constexpr = 0.5):
    offs = tl.arange(0, BLOCK)
    if FLAG:
        tl.store(out + offs, SCALE, mask=offs < n)
)py",
             "", "");
  ASSERT_TRUE(succeeded(c.result)) << ::testing::PrintToString(c.diagnostics);
  const KernelInterface &iface = c.result->interface;
  EXPECT_EQ(iface.signature, "*fp16, i64, True, 64, 0.5");
  ASSERT_EQ(iface.parameters.size(), 5u);
  EXPECT_EQ(iface.parameters[1].type, "i64");
  EXPECT_EQ(iface.parameters[2].value, "true");
  EXPECT_EQ(iface.parameters[3].value, "64");
  EXPECT_EQ(iface.parameters[4].type, "fp32");
}

TEST(CodeGenTest, PicksTheKernelAmongHelpers) {
  const char *source = R"py(import triton.language as tl

@triton.jit
def helper(x):
    return x * 2

@triton.jit
def kernel(p):
    tl.store(p, helper(tl.load(p)))
)py";
  Compiled c(source, "", "*fp32");
  ASSERT_TRUE(succeeded(c.result)) << ::testing::PrintToString(c.diagnostics);
  EXPECT_EQ(c.result->interface.name, "kernel");

  Compiled two(R"py(import triton.language as tl

@triton.jit
def a(p):
    tl.store(p, 1.0)

@triton.jit
def b(p):
    tl.store(p, 2.0)
)py",
               "", "*fp32");
  ASSERT_TRUE(failed(two.result));
  ASSERT_EQ(two.diagnostics.size(), 1u);
  EXPECT_EQ(two.diagnostics[0],
            "1:1: error: this file defines several @jit functions (a, b); "
            "choose the kernel with --kernel");
}

TEST(CodeGenTest, ReportsIndependentErrorsOnce) {
  Compiled c(R"py(import triton.language as tl

@triton.jit
def k(p, n):
    a = tl.arange(0, 3)
    b = a * 2 + a
    c = undefined_name
    for i in range(n):
        d = c + b
    tl.store(p + b, d)
    tl.store(n, 1.0)
)py",
             "k", "*fp32, i32");
  ASSERT_TRUE(failed(c.result));
  EXPECT_EQ(c.diagnostics,
            (std::vector<std::string>{
                "5:9: error: tl.arange()'s range must be a power of two, but "
                "end - start = 3",
                "7:9: error: unknown name 'undefined_name'",
                "11:14: error: tl.store() expects a pointer, a tile of "
                "pointers or a block pointer as its first argument, got "
                "int32"}));
}

TEST(CodeGenTest, ErrorInsideACallHasTheCallChain) {
  Compiled c(R"py(import triton.language as tl

@triton.jit
def inner(x):
    return x + tl.arange(0, 8)

@triton.jit
def outer(x):
    return inner(x) * 2

@triton.jit
def k(p):
    tl.store(p + tl.arange(0, 16), outer(tl.arange(0, 16)))
)py",
             "k", "*i32");
  ASSERT_TRUE(failed(c.result));
  ASSERT_EQ(c.diagnostics.size(), 5u);
  EXPECT_EQ(c.diagnostics[0], "5:14: error: cannot broadcast [16] with [8]");
  EXPECT_EQ(c.diagnostics[3], "9:12: note: in call from here");
  EXPECT_EQ(c.diagnostics[4], "13:36: note: in call from here");
}

TEST(CodeGenTest, ParseErrorsFail) {
  Compiled c("import triton.language as tl\n\n@triton.jit\ndef k(p):\n"
             "    x = (1 +\n",
             "k", "*fp32");
  EXPECT_TRUE(failed(c.result));
  EXPECT_FALSE(c.diagnostics.empty());
}

} // namespace
