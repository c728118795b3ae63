//===- PTX.h - LLVM dialect to PTX ------------------------------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The backend of tilec: an MLIR module in the LLVM/NVVM dialects becomes an
// llvm::Module (target nvptx64-nvidia-cuda), is optimized at -O3 with LLVM's
// pass pipeline, and is emitted as PTX by LLVM's NVPTX backend.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TARGET_PTX_H
#define TILEC_TARGET_PTX_H

#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace tilec {

/// What the NVPTX backend targets.
struct PTXTarget {
  /// GPU architecture (`-mcpu`), e.g. `sm_90a` (WGMMA/setmaxnreg need the
  /// `a` variant).
  std::string chip = "sm_90a";
  /// PTX ISA version as an LLVM feature, e.g. `+ptx81` (PTX 8.1: sm_90a,
  /// which PTX 8.0 introduced, and its vector reductions; ptxas 13.0 accepts
  /// up to 9.0).
  std::string features = "+ptx81";
  /// LLVM optimization level, 0–3.
  unsigned optLevel = 3;

  /// "8.0" for "+ptx80".
  std::string getPTXVersion() const;
};

/// NN of `sm_NN` or `sm_NNa`; nothing for another spelling.
std::optional<unsigned> getSmVersion(llvm::StringRef arch);

/// Whether `target` has the vector forms of `red.global.add` for f32
/// (`.v2`/`.v4`: sm_90 or newer, PTX ISA 8.1 or newer, §9.7.13.6).
bool hasVectorReductions(const PTXTarget &target);

/// Translates `module` (LLVM and NVVM dialects only) to LLVM IR with the
/// NVPTX triple and data layout set. Errors name the op that failed.
llvm::Expected<std::unique_ptr<llvm::Module>>
translateToLLVMIR(mlir::ModuleOp module, llvm::LLVMContext &context,
                  const PTXTarget &target);

/// Where CUDA's libdevice bitcode is: $TILEC_LIBDEVICE, else
/// nvvm/libdevice/libdevice.10.bc under $CUDA_HOME or /usr/local/cuda.
std::optional<std::string> findLibdevice();

/// Links the libdevice functions `module` calls (`__nv_*` declarations),
/// internalized so that the optimizer inlines them; does nothing when there
/// are none. Fails when libdevice is needed but not found.
llvm::Error linkLibdevice(llvm::Module &module);

/// Runs LLVM's -O`target.optLevel` pipeline for NVPTX on `module`, for a
/// target machine that contracts floating-point operations when `fpFusion`
/// (as emitPTX's).
llvm::Error optimizeLLVMIR(llvm::Module &module, const PTXTarget &target,
                          bool fpFusion);

/// Emits PTX assembly for `module`. `fpFusion` (PassSwitches::enableFPFusion,
/// Triton's `enable_fp_fusion`): the NVPTX backend contracts `a * b + c`
/// into `fma.rn.f32` and leaves the unfused multiplies and adds without a
/// rounding modifier, so that ptxas may fuse them too
/// (llvm::FPOpFusion::Fast). Without it (`--disable-fp-fusion`) every
/// multiply and add rounds on its own (`mul.rn`, `add.rn`, which ptxas
/// never fuses; PTX ISA §9.7.3) (llvm::FPOpFusion::Strict).
llvm::Expected<std::string> emitPTX(llvm::Module &module,
                                    const PTXTarget &target, bool fpFusion);

} // namespace tilec

#endif // TILEC_TARGET_PTX_H
