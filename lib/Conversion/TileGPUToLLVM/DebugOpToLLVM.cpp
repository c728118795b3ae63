//===- DebugOpToLLVM.cpp - tl.device_print and tl.device_assert -----------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// `tile.print` becomes one CUDA `vprintf` per element, called by the one
// thread that owns the element (layouts replicate small tiles across lanes
// and warps; a scalar is printed by thread 0), in Triton's line format
// `pid (x, y, z) idx (i, j)<prefix><value>`. The arguments go in a local
// buffer laid out like C varargs after promotion: floats as f64, integers
// narrower than 32 bits as i32, pointers as 64-bit addresses (`%p`).
//
// `tile.assert` becomes, in every thread holding a false element, a call of
// `__assertfail(message, file, line, function, charSize)`, the CUDA device
// runtime's assert entry point: it prints `file:line: function: block:
// [..], thread: [..] Assertion `message` failed.` and traps the kernel.
// Its `block` is the hardware's %ctaid; the print's `pid` is the program id
// (emitProgramId: they differ in a kernel launched longest first).
//
//===----------------------------------------------------------------------===//

#include "LoweringSupport.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <cmath>

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;
using tilegpu::HwDim;
using tilegpu::LinearLayout;

namespace {

/// `text` with every `%` doubled, to be part of a printf format.
std::string escapeFormat(StringRef text) {
  std::string result;
  for (char c : text) {
    result.push_back(c);
    if (c == '%')
      result.push_back('%');
  }
  return result;
}

/// One printed value after C varargs promotion, and its conversion.
struct PrintedValue {
  std::string format;
  Value value;
};

/// Promotes `value` (a register of the printed tile) for vprintf and gives
/// its conversion: Triton's `%i`/`%u` (`%lli`/`%llu` for 64 bits), `%f`,
/// `%p`, or with `hex` `0x%0<n>x` of the bits (n: hex digits of the type).
PrintedValue promote(OpBuilder &b, Location loc, Value value, bool isSigned,
                     bool hex) {
  Type type = value.getType();
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  if (isa<LLVM::LLVMPointerType>(type))
    return {"%p", LLVM::PtrToIntOp::create(b, loc, i64, value)};
  unsigned bits = type.getIntOrFloatBitWidth();
  if (hex) {
    if (isa<FloatType>(type))
      value = arith::BitcastOp::create(b, loc, b.getIntegerType(bits), value);
    if (bits < 32)
      value = arith::ExtUIOp::create(b, loc, i32, value);
    unsigned digits = std::max(1u, (bits + 3) / 4);
    return {"0x%0" + std::to_string(digits) + (bits > 32 ? "llx" : "x"),
            value};
  }
  if (isa<FloatType>(type)) {
    if (!type.isF64())
      value = arith::ExtFOp::create(b, loc, b.getF64Type(), value);
    return {"%f", value};
  }
  bool isSignedInt = isSigned && bits > 1;
  if (bits < 32)
    value = isSignedInt ? arith::ExtSIOp::create(b, loc, i32, value).getResult()
                        : arith::ExtUIOp::create(b, loc, i32, value).getResult();
  std::string conv = isSignedInt ? "i" : "u";
  return {(bits > 32 ? "%ll" : "%") + conv, value};
}

/// An alloca in the entry block of the function around `op` (not in the
/// loops the op may be in).
Value allocaAtEntry(OpBuilder &b, Location loc, Operation *op, Type type) {
  OpBuilder::InsertionGuard guard(b);
  auto func = op->getParentOfType<FunctionOpInterface>();
  b.setInsertionPointToStart(&func.getFunctionBody().front());
  Value one = LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                       b.getI64IntegerAttr(1));
  return LLVM::AllocaOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()),
                                type, one);
}

/// `vprintf(format, args)` where `pred` holds (always without one): the
/// arguments are stored in `buffer`, a struct of their types.
void emitPrintf(OpBuilder &b, Location loc, Operation *anchor, Value pred,
                Value format, Value buffer, Type bufferType,
                ArrayRef<Value> args) {
  auto body = [&](OpBuilder &nb) {
    auto ptr = LLVM::LLVMPointerType::get(nb.getContext());
    for (auto [i, arg] : llvm::enumerate(args)) {
      Value field = LLVM::GEPOp::create(
          nb, loc, ptr, bufferType, buffer,
          ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)});
      LLVM::StoreOp::create(nb, loc, arg, field);
    }
    Value argsPtr = args.empty() ? LLVM::ZeroOp::create(nb, loc, ptr).getResult()
                                 : buffer;
    LLVM::CallOp::create(
        nb, loc,
        getOrDeclareVprintf(nb, anchor->getParentOfType<ModuleOp>()),
        ValueRange{format, argsPtr});
  };
  if (!pred) {
    body(b);
    return;
  }
  auto ifOp = scf::IfOp::create(b, loc, pred, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  body(b);
}

struct PrintOpLowering : OpConversionPattern<tile::PrintOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::PrintOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    ThreadIndices ids = getThreadIndices(rewriter, loc);
    Value threadZero = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::eq, ids.thread, i32Val(rewriter, loc, 0));
    SmallVector<Value> pid = {emitProgramId(rewriter, loc, 0, op),
                              emitProgramId(rewriter, loc, 1, op),
                              emitProgramId(rewriter, loc, 2, op)};
    std::string prefix = escapeFormat(op.getPrefix());
    size_t numOperands = op.getArgs().size();

    if (numOperands == 0) {
      Value format = emitGlobalString(rewriter, loc, op, "tilec_print_format",
                                      "pid (%u, %u, %u)" + prefix + "\n");
      auto bufferType = LLVM::LLVMStructType::getLiteral(
          getContext(), SmallVector<Type>(3, i32));
      Value buffer = allocaAtEntry(rewriter, loc, op, bufferType);
      emitPrintf(rewriter, loc, op, threadZero, format, buffer, bufferType, pid);
      rewriter.eraseOp(op);
      return success();
    }

    for (size_t i = 0; i < numOperands; ++i) {
      ValueRange values = adaptor.getArgs()[i];
      bool isSigned = op.getIsSigned()[i];
      SmallVector<SmallVector<Value>> coords;
      SmallVector<int> widths;
      Value owner;
      uint64_t replicatedRegisters = 0;
      if (auto type = dyn_cast<RankedTensorType>(op.getArgs()[i].getType())) {
        FailureOr<LinearLayout> layout = getLayoutOf(loc, type);
        if (failed(layout))
          return failure();
        coords = emitCoordinates(rewriter, loc, *layout, ids);
        if (layout->getReplicatedMask(HwDim::Lane) ||
            layout->getReplicatedMask(HwDim::Warp))
          owner = emitIsOwner(rewriter, loc, *layout, ids);
        replicatedRegisters = layout->getReplicatedMask(HwDim::Register);
        // Triton pads each index to the digits of its dimension's size.
        for (int64_t size : type.getShape())
          widths.push_back(size > 0 ? static_cast<int>(std::ceil(
                                          std::log10(static_cast<double>(size))))
                                    : 0);
      } else {
        coords.push_back({});
        owner = threadZero;
      }
      if (coords.size() != values.size())
        return op.emitOpError("operand ")
               << i << " has " << values.size() << " registers but its layout "
               << coords.size();

      Value format;
      Type bufferType;
      Value buffer;
      for (auto [r, value] : llvm::enumerate(values)) {
        // The same element in several registers of one thread: print one.
        if (r & replicatedRegisters)
          continue;
        PrintedValue printed =
            promote(rewriter, loc, value, isSigned, op.getHex());
        SmallVector<Value> args(pid.begin(), pid.end());
        llvm::append_range(args, coords[r]);
        args.push_back(printed.value);
        if (!format) {
          std::string text = "pid (%u, %u, %u) idx (";
          for (size_t d = 0; d < widths.size(); ++d)
            text += (d ? ", %" : "%") + std::to_string(widths[d]) + "u";
          text += ")" + prefix;
          if (numOperands > 1)
            text += "(operand " + std::to_string(i) + ") ";
          text += printed.format + "\n";
          format = emitGlobalString(rewriter, loc, op, "tilec_print_format", text);
          SmallVector<Type> types;
          for (Value arg : args)
            types.push_back(arg.getType());
          bufferType = LLVM::LLVMStructType::getLiteral(getContext(), types);
          buffer = allocaAtEntry(rewriter, loc, op, bufferType);
        }
        emitPrintf(rewriter, loc, op, owner, format, buffer, bufferType, args);
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// Declares (once) CUDA's `void __assertfail(const char *message, const char
/// *file, unsigned line, const char *function, size_t charSize)`.
LLVM::LLVMFuncOp getOrDeclareAssertFail(OpBuilder &b, ModuleOp module) {
  if (auto f = module.lookupSymbol<LLVM::LLVMFuncOp>("__assertfail"))
    return f;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  auto ptr = LLVM::LLVMPointerType::get(b.getContext());
  return LLVM::LLVMFuncOp::create(
      b, module.getLoc(), "__assertfail",
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(b.getContext()),
                                  {ptr, ptr, b.getI32Type(), ptr, b.getI64Type()}));
}

struct AssertOpLowering : OpConversionPattern<tile::AssertOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::AssertOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // Whether any element this thread holds is false (replicas agree).
    Value anyFalse;
    Value trueValue = arith::ConstantOp::create(rewriter, loc, rewriter.getBoolAttr(true));
    for (Value v : adaptor.getCond()) {
      Value isFalse = arith::XOrIOp::create(rewriter, loc, v, trueValue);
      anyFalse = anyFalse ? arith::OrIOp::create(rewriter, loc, anyFalse, isFalse).getResult()
                          : isFalse;
    }
    auto ifOp = scf::IfOp::create(rewriter, loc, anyFalse, /*withElse=*/false);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(ifOp.thenBlock());
      Value message = emitGlobalString(rewriter, loc, op, "tilec_assert_message",
                                       op.getMessage());
      Value file = emitGlobalString(rewriter, loc, op, "tilec_assert_file",
                                    op.getFile());
      Value function = emitGlobalString(rewriter, loc, op, "tilec_assert_function",
                                        op.getFunction());
      Value line = i32Val(rewriter, loc, op.getLine());
      Value charSize = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI64Type(),
                                                rewriter.getI64IntegerAttr(1));
      LLVM::CallOp::create(
          rewriter, loc,
          getOrDeclareAssertFail(rewriter, op->getParentOfType<ModuleOp>()),
          ValueRange{message, file, line, function, charSize});
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void lowering::populateDebugOpToLLVMPatterns(TileGPUTypeConverter &converter,
                                             RewritePatternSet &patterns,
                                             LoweringState &state) {
  patterns.add<PrintOpLowering, AssertOpLowering>(converter,
                                                  patterns.getContext());
}
