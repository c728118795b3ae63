//===- LoweringSupport.h - shared pieces of the tilegpu lowering -*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Internal to convert-tilegpu-to-llvm: the 1:N type converter (a tile in a
// layout becomes the scalars one thread holds, one per register slot of the
// layout's LinearLayout), thread-index and coordinate emission, shared
// memory, shuffles and barriers, and the populate functions of each op
// family's patterns (one file per family).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_CONVERSION_TILEGPUTOLLVM_LOWERINGSUPPORT_H
#define TILEC_LIB_CONVERSION_TILEGPUTOLLVM_LOWERINGSUPPORT_H

#include "tilec/Analysis/AxisInfo.h"
#include "tilec/Dialect/TileGPU/IR/LinearLayout.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::LLVM {
class LLVMFuncOp;
} // namespace mlir::LLVM

namespace tilec::lowering {

/// State shared by the patterns of one run of the pass.
struct LoweringState {
  explicit LoweringState(const ModuleAxisInfo &axisInfo) : axisInfo(axisInfo) {}
  /// Facts about the values of the (not yet converted) input IR.
  const ModuleAxisInfo &axisInfo;
  /// With a positive value, every mbarrier wait gives up after this many
  /// polls, prints which barrier it was and traps (debug builds).
  int64_t mbarrierSpinLimit = 0;
  /// `red.global.add.v2/.v4.f32` may be used (sm_90, PTX 8.1).
  bool vectorReductions = false;
  /// Set when a pattern reported an error that does not stop the pattern
  /// (a scratch use past what tilegpu-allocate-shared reserved).
  bool failed = false;
  /// Checks that `anchor` (the op being lowered) has at least `bytes` of
  /// scratch shared memory reserved (tilegpu/IR/Scratch.h); reports an
  /// internal error on it otherwise.
  void requireScratch(mlir::Operation *anchor, int64_t bytes);
};

/// Converts tiles in a layout to the scalars a thread holds, `!tile.ptr` to
/// `!llvm.ptr<addrspace>`; other types are kept.
class TileGPUTypeConverter : public mlir::TypeConverter {
public:
  explicit TileGPUTypeConverter(mlir::MLIRContext *ctx);
  /// The type one element of a tile is held as in a register.
  mlir::Type convertElementType(mlir::Type type) const;
};

/// Checks, before the conversion, that every tile.inline_asm_elementwise
/// with packed_element > 1 has a layout giving each thread runs of that
/// many consecutive elements; a located error for each one that does not.
mlir::LogicalResult checkInlineAsmRuns(mlir::ModuleOp module);

/// The linear layout of a tile type (emits an error at `loc` and fails for a
/// tile without a known layout).
mlir::FailureOr<tilegpu::LinearLayout>
getLayoutOf(mlir::Location loc, mlir::RankedTensorType type);

/// i32 constant.
mlir::Value i32Val(mlir::OpBuilder &b, mlir::Location loc, int64_t value);

/// Elements of one LLVM type filling 32 bits (two 16-bit floats, four
/// bytes) in one i32 register, the first in the low bits.
mlir::Value packWord(mlir::OpBuilder &b, mlir::Location loc,
                     llvm::ArrayRef<mlir::Value> elements);

/// `tl.program_id(axis)` (0, 1 or 2) of the CTA running `at`: %ctaid.axis,
/// or, in a kernel with `tilegpu.longest_first = G`, the longest-first order
/// of axes 0 and 1 (tilegpu-longest-first in Passes.td gives the formula).
mlir::Value emitProgramId(mlir::OpBuilder &b, mlir::Location loc,
                          unsigned axis, mlir::Operation *at);

/// `tl.program_id(axis)` of the program at (x, y, z) of a grid of nx x ny
/// (x fastest; i32 values; z only read for axis 2, nx and ny only in a
/// longest-first kernel): x, y or z, or, in a kernel with
/// `tilegpu.longest_first = G` (the kernel of `at`), axes 0 and 1 in the
/// longest-first order. emitProgramId passes %ctaid and %nctaid; a
/// persistent kernel's `tilegpu.persistent_program_id` its virtual
/// program's coordinates.
mlir::Value emitProgramIdAt(mlir::OpBuilder &b, mlir::Location loc, unsigned axis,
                            mlir::Value x, mlir::Value y, mlir::Value z,
                            mlir::Value nx, mlir::Value ny, mlir::Operation *at);

/// The thread's index in the CTA, lane in its warp and warp in the CTA.
struct ThreadIndices {
  mlir::Value thread, lane, warp;
};
ThreadIndices getThreadIndices(mlir::OpBuilder &b, mlir::Location loc);

/// For every register slot of `layout`, the coordinate (one i32 per tile
/// dimension) of the element this thread holds there.
llvm::SmallVector<llvm::SmallVector<mlir::Value>>
emitCoordinates(mlir::OpBuilder &b, mlir::Location loc,
                const tilegpu::LinearLayout &layout,
                const ThreadIndices &ids);

/// i1 that is true in exactly one of the threads holding each element (the
/// replicated lane and warp bits are zero): the thread that stores it.
/// Warp bits in `distinctWarps` are not treated as replicas (a reduction's
/// warps along the reduced axis hold different partials of one element).
mlir::Value emitIsOwner(mlir::OpBuilder &b, mlir::Location loc,
                        const tilegpu::LinearLayout &layout,
                        const ThreadIndices &ids, uint64_t distinctWarps = 0);

/// Address of byte 0 of the kernel's dynamic shared memory (the module's
/// `.extern .shared .align 1024` array, created on first use); the offsets
/// tilegpu-allocate-shared assigned count from there.
mlir::Value getSharedMemoryBase(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Operation *anchor);

/// Address of byte `offset` of `anchor`'s scratch shared memory (at its
/// `tilegpu.scratch_offset`).
mlir::Value getSharedMemoryAddress(mlir::OpBuilder &b, mlir::Location loc,
                                   mlir::Operation *anchor, mlir::Value offset);

/// Named barriers (PTX ISA §9.7.13.1): 0 is the CTA's (`bar.sync 0`); in
/// warp-specialized code 1 is the consumers', 2 the producer warp's,
/// 3 and 4 consumer warpgroup 0's and 1's turns (tilegpu.turn_wait), and
/// 5 to 15 the ring handoffs 0 to 10 (tilegpu.ring_handoff).
inline constexpr int32_t kConsumerBarrierId = 1;
inline constexpr int32_t kProducerBarrierId = 2;
inline constexpr int32_t kFirstTurnBarrierId = 3;
inline constexpr int32_t kFirstHandoffBarrierId = 5;

/// `bar.sync id, threads` (both i32 values).
void emitNamedBarrier(mlir::OpBuilder &b, mlir::Location loc, mlir::Value id,
                      mlir::Value threads);

/// A barrier of the threads that execute `anchor` (the op being lowered):
/// `bar.sync 0` (the CTA), or inside a tilegpu.warp_specialize the named
/// barrier of the region's threads (`bar.sync 1, 32·num_warps` for the
/// consumers, `bar.sync 2, 32` for the producer's warp).
void emitBarrier(mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *anchor);

/// The index of the thread that issues the single-thread work (TMA copies,
/// mbarrier init / expect / leader waits) of `anchor`: 0, or in the
/// producer region of a tilegpu.warp_specialize its first thread
/// (32·num_warps).
unsigned getLeaderThread(mlir::Operation *anchor);

/// The type a register value is stored as in shared memory (i1 as i8,
/// pointers as i64, fp8 as i8: LLVM has no type for it), and conversions
/// to/from it.
mlir::Type getStorageType(mlir::Type registerType);
mlir::Value toStorage(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value);
mlir::Value fromStorage(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value stored, mlir::Type registerType);
/// Bytes of `getStorageType(registerType)`.
int64_t getStorageBytes(mlir::Type registerType);

/// Stores/loads one register value at element `index` of a shared-memory
/// array of storage type elements starting at byte `baseOffset`.
void storeSharedElement(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Operation *anchor, int64_t baseOffset,
                        mlir::Value index, mlir::Value value);
mlir::Value loadSharedElement(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Operation *anchor, int64_t baseOffset,
                              mlir::Value index, mlir::Type registerType);

/// `shfl.sync.bfly` of any register value (split/widened to 32-bit words).
mlir::Value emitShuffleXor(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value value, unsigned laneMask);
/// `shfl.sync.idx` of any register value: the value lane `srcLane` (an i32,
/// 0..31) of the warp holds.
mlir::Value emitShuffleIdx(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value value, mlir::Value srcLane);

/// How many consecutive register slots of `layout` (1, 2, 4, …) hold
/// consecutive elements in the row-major order of its shape, starting at a
/// multiple of that count, capped at 16 bytes of `registerType`'s storage:
/// the vector width of a shared-memory access indexed row-major.
int64_t getRowMajorVectorWidth(const tilegpu::LinearLayout &layout,
                               mlir::Type registerType);

/// Moves a tile held in `srcLayout` registers into `dstLayout` registers
/// through shared memory: each thread writes its elements at their position
/// given by `srcIndex`, a barrier, each thread reads at `dstIndex`. The
/// index functions give the linear shared-memory element of a coordinate.
/// With `srcVector` (`dstVector`) above 1, every run of that many register
/// slots is one vector store (load) at the index of the run's first
/// coordinate: the caller guarantees that the run's elements are
/// consecutive there and that its first index is a multiple of the run
/// (getRowMajorVectorWidth, for row-major indices). An exchange over
/// `kMaxExchangeBytes` goes in rounds (getExchangeRounds) where it can:
/// `srcDim` (`dstDim`) must be the dimension of the source (result)
/// coordinates that is outermost in `srcIndex` (`dstIndex`); each round
/// moves the elements of one value of the round bits, passed to the index
/// functions with those bits removed (the bits above each move down).
llvm::SmallVector<mlir::Value> exchangeThroughSharedMemory(
    mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *anchor,
    LoweringState &state, mlir::ValueRange srcValues,
    const tilegpu::LinearLayout &srcLayout,
    const tilegpu::LinearLayout &dstLayout, int64_t numElements,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, llvm::ArrayRef<mlir::Value>)>
        srcIndex,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, llvm::ArrayRef<mlir::Value>)>
        dstIndex,
    int64_t srcVector = 1, int64_t dstVector = 1, unsigned srcDim = 0,
    unsigned dstDim = 0);

/// Row-major linear index of a coordinate in a tile of `shape`.
mlir::Value emitLinearIndex(mlir::OpBuilder &b, mlir::Location loc,
                            llvm::ArrayRef<mlir::Value> coord,
                            llvm::ArrayRef<int64_t> shape);

/// Declares (once) `i32 @vprintf(ptr, ptr)`, CUDA's device printf.
mlir::LLVM::LLVMFuncOp getOrDeclareVprintf(mlir::OpBuilder &b,
                                           mlir::ModuleOp module);

/// The address of a new internal constant global holding `text` and a NUL,
/// named `baseName_<n>` (the first free n) in the module around `anchor`.
mlir::Value emitGlobalString(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Operation *anchor, llvm::StringRef baseName,
                             llvm::StringRef text);

/// Whether `divf` (an arith.divf) is an f32 division that need not be
/// IEEE-rounded (`arcp`: the frontend's `/` and tl.fdiv), which the
/// elementwise patterns lower to `div.full.f32`.
bool isFullRangeDivision(mlir::Operation *divf);

// Pattern families (one file each).
void populateElementwiseOpToLLVMPatterns(TileGPUTypeConverter &converter,
                                         mlir::RewritePatternSet &patterns,
                                         LoweringState &state);
void populateViewOpToLLVMPatterns(TileGPUTypeConverter &converter,
                                  mlir::RewritePatternSet &patterns,
                                  LoweringState &state);
void populateMemoryOpToLLVMPatterns(TileGPUTypeConverter &converter,
                                    mlir::RewritePatternSet &patterns,
                                    LoweringState &state);
void populateAtomicOpToLLVMPatterns(TileGPUTypeConverter &converter,
                                    mlir::RewritePatternSet &patterns,
                                    LoweringState &state);
void populateReduceOpToLLVMPatterns(TileGPUTypeConverter &converter,
                                    mlir::RewritePatternSet &patterns,
                                    LoweringState &state);
/// tile.scan (ScanOpToLLVM.cpp).
void populateScanOpToLLVMPatterns(TileGPUTypeConverter &converter,
                                  mlir::RewritePatternSet &patterns,
                                  LoweringState &state);
void populateDotOpToLLVMPatterns(TileGPUTypeConverter &converter,
                                 mlir::RewritePatternSet &patterns,
                                 LoweringState &state);
void populateAsyncOpToLLVMPatterns(TileGPUTypeConverter &converter,
                                   mlir::RewritePatternSet &patterns,
                                   LoweringState &state);
/// tile.print (vprintf) and tile.assert (__assertfail).
void populateDebugOpToLLVMPatterns(TileGPUTypeConverter &converter,
                                   mlir::RewritePatternSet &patterns,
                                   LoweringState &state);
void populateProgramOpToLLVMPatterns(TileGPUTypeConverter &converter,
                                     mlir::RewritePatternSet &patterns,
                                     LoweringState &state);

} // namespace tilec::lowering

#endif // TILEC_LIB_CONVERSION_TILEGPUTOLLVM_LOWERINGSUPPORT_H
