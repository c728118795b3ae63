//===- DebugOpToLinalg.cpp - tl.device_print and tl.device_assert ---------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// On the CPU a program is one host call: `tile.print` and `tile.assert`
// become loops over their tiles (row-major) that call the host functions of
// TileToLinalg.h (kPrintFunction, kAssertFailFunction) once per element,
// with a constant description of the operand. The host formats the lines
// like the GPU does (pid, idx, prefix, value).
//
//===----------------------------------------------------------------------===//

#include "TileToLinalgSupport.h"

#include "tilec/Conversion/TileToLinalg/TileToLinalg.h"
#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::cpu;

namespace {

/// Declares `name` (private) in the module around `anchor` once.
void declareHostFunction(OpBuilder &b, Location loc, Operation *anchor,
                         StringRef name, FunctionType type) {
  ModuleOp module = anchor->getParentOfType<ModuleOp>();
  if (module.lookupSymbol(name))
    return;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  func::FuncOp::create(b, loc, name, type).setPrivate();
}

/// The address of a new internal constant NUL-terminated string.
Value globalString(OpBuilder &b, Location loc, Operation *anchor,
                   StringRef baseName, StringRef text) {
  ModuleOp module = anchor->getParentOfType<ModuleOp>();
  std::string name;
  for (unsigned n = 0; name.empty() || module.lookupSymbol(name); ++n)
    name = (baseName + "_" + llvm::Twine(n)).str();
  std::string value = text.str();
  value.push_back('\0');
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(
        b, loc, LLVM::LLVMArrayType::get(b.getI8Type(), value.size()),
        /*isConstant=*/true, LLVM::Linkage::Internal, name,
        b.getStringAttr(value));
  }
  return LLVM::AddressOfOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), name);
}

/// `rank dim...` of a tile type (`0` for a scalar).
std::string describeShape(Type type) {
  std::string text;
  auto tensor = dyn_cast<RankedTensorType>(type);
  text = std::to_string(tensor ? tensor.getRank() : 0);
  if (tensor)
    for (int64_t size : tensor.getShape())
      text += " " + std::to_string(size);
  return text;
}

/// Calls `body(b, loc, index, element)` for every element of `value` (a
/// tensor, row-major: `index` is the i64 linear index) or once for a
/// scalar (index 0).
void forEachElement(
    OpBuilder &b, Location loc, Value value,
    llvm::function_ref<void(OpBuilder &, Location, Value, Value)> body) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type) {
    body(b, loc, arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0)),
         value);
    return;
  }
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t size : type.getShape()) {
    lbs.push_back(arith::ConstantIndexOp::create(b, loc, 0));
    ubs.push_back(arith::ConstantIndexOp::create(b, loc, size));
    steps.push_back(arith::ConstantIndexOp::create(b, loc, 1));
  }
  scf::buildLoopNest(
      b, loc, lbs, ubs, steps,
      [&](OpBuilder &nb, Location nl, ValueRange ivs) {
        Value index = arith::ConstantIndexOp::create(nb, nl, 0);
        for (auto [size, iv] : llvm::zip(type.getShape(), ivs))
          index = arith::AddIOp::create(
              nb, nl,
              arith::MulIOp::create(
                  nb, nl, index, arith::ConstantIndexOp::create(nb, nl, size)),
              iv);
        index = arith::IndexCastOp::create(nb, nl, nb.getI64Type(), index);
        Value element = tensor::ExtractOp::create(nb, nl, value, ivs);
        body(nb, nl, index, element);
      });
}

struct PrintOpLowering : OpConversionPattern<tile::PrintOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::PrintOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i64 = rewriter.getI64Type();
    auto ptr = LLVM::LLVMPointerType::get(getContext());
    declareHostFunction(rewriter, loc, op, kPrintFunction,
                        rewriter.getFunctionType({ptr, i64, i64}, {}));
    size_t numOperands = op.getArgs().size();
    Value zero = arith::ConstantOp::create(rewriter, loc, rewriter.getI64IntegerAttr(0));
    if (numOperands == 0) {
      Value desc = globalString(rewriter, loc, op, "__tilec_print",
                                "n 0 0 0 0|" + op.getPrefix().str());
      func::CallOp::create(rewriter, loc, kPrintFunction, TypeRange{},
                           ValueRange{desc, zero, zero});
      rewriter.eraseOp(op);
      return success();
    }
    for (size_t i = 0; i < numOperands; ++i) {
      Type original = op.getArgs()[i].getType();
      Type element = tile::getElementTypeOrSelf(original);
      bool hex = op.getHex();
      char kind;
      unsigned bits = 64;
      if (isa<tile::PointerType>(element)) {
        kind = 'p';
      } else {
        bits = element.getIntOrFloatBitWidth();
        kind = hex                        ? 'x'
               : isa<FloatType>(element) ? 'f'
               : op.getIsSigned()[i] && bits > 1 ? 's'
                                                  : 'u';
      }
      std::string text;
      text.push_back(kind);
      text += " " + std::to_string(std::max(1u, (bits + 3) / 4)) + " " +
              std::to_string(i) + " " + std::to_string(numOperands) + " " +
              describeShape(original) + "|" + op.getPrefix().str();
      Value desc = globalString(rewriter, loc, op, "__tilec_print", text);
      forEachElement(
          rewriter, loc, adaptor.getArgs()[i],
          [&](OpBuilder &b, Location l, Value index, Value value) {
            Type type = value.getType();
            if (isa<FloatType>(type)) {
              if (kind == 'f' && !type.isF64())
                value = arith::ExtFOp::create(b, l, b.getF64Type(), value);
              value = arith::BitcastOp::create(
                  b, l, b.getIntegerType(value.getType().getIntOrFloatBitWidth()),
                  value);
            }
            if (value.getType().getIntOrFloatBitWidth() < 64)
              value = kind == 's'
                          ? arith::ExtSIOp::create(b, l, b.getI64Type(), value).getResult()
                          : arith::ExtUIOp::create(b, l, b.getI64Type(), value).getResult();
            func::CallOp::create(b, l, kPrintFunction, TypeRange{},
                                 ValueRange{desc, index, value});
          });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct AssertOpLowering : OpConversionPattern<tile::AssertOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::AssertOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i64 = rewriter.getI64Type();
    auto ptr = LLVM::LLVMPointerType::get(getContext());
    declareHostFunction(rewriter, loc, op, kAssertFailFunction,
                        rewriter.getFunctionType({ptr, i64}, {}));
    std::string text = describeShape(op.getCond().getType()) + " " +
                       std::to_string(op.getLine()) + "\x1f" +
                       op.getFile().str() + "\x1f" + op.getFunction().str() +
                       "\x1f" + op.getMessage().str();
    Value desc = globalString(rewriter, loc, op, "__tilec_assert", text);
    forEachElement(rewriter, loc, adaptor.getCond(),
                   [&](OpBuilder &b, Location l, Value index, Value ok) {
                     Value isFalse = arith::XOrIOp::create(
                         b, l, ok,
                         arith::ConstantOp::create(b, l, b.getBoolAttr(true)));
                     auto ifOp = scf::IfOp::create(b, l, isFalse,
                                                   /*withElse=*/false);
                     OpBuilder::InsertionGuard guard(b);
                     b.setInsertionPointToStart(ifOp.thenBlock());
                     func::CallOp::create(b, l, kAssertFailFunction,
                                          TypeRange{}, ValueRange{desc, index});
                   });
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void cpu::populateDebugOpToLinalgPatterns(TileToLinalgTypeConverter &converter,
                                          RewritePatternSet &patterns) {
  patterns.add<PrintOpLowering, AssertOpLowering>(converter,
                                                  patterns.getContext());
}
