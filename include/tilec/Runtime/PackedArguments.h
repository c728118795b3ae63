//===- PackedArguments.h - Checked kernel parameter buffer ------*- C++ -*-===//
//
// Turns a caller's argument list into the kernel's parameter values, after
// checking it against the metadata (DESIGN.md §2, "Kernel ABI"):
//
//  - the launch parameters are the source parameters in order with every
//    constexpr removed, followed by the hidden parameters;
//  - a pointer is an 8-byte global address; a scalar is passed by value in
//    its own type (i1/i8/u8 1 byte, i16/u16/fp16/bf16 2, i32/u32/fp32 4,
//    i64/u64/fp64 8);
//  - each value sits at the next offset aligned to its alignment (its size
//    for pointers and scalars, `align` for hidden parameters), as ptxas lays
//    out an entry's parameters. ptxas aligns them in constant bank 0, where
//    the parameter space starts at `parameterBankOffset(target)` (0x210 on
//    sm_90): an alignment above 16 bytes (a 64-byte-aligned TMA descriptor)
//    can give an offset that is not a multiple of it (48 for a descriptor
//    after one pointer on sm_90, since 0x210 + 48 = 9 * 64).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_RUNTIME_PACKEDARGUMENTS_H
#define TILEC_RUNTIME_PACKEDARGUMENTS_H

#include "tilec/Runtime/KernelArg.h"
#include "tilec/Runtime/KernelMetadata.h"
#include "tilec/Runtime/LaunchGrid.h"
#include "tilec/Runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tilec::runtime {

/// Where one launch parameter lives in the parameter space.
struct ArgumentSlot {
  std::string name;
  bool hidden = false;
  std::size_t offset = 0; ///< Bytes from the start of the parameter space.
  std::size_t size = 0;   ///< Bytes.
  std::size_t align = 1;  ///< Bytes.
};

/// The checked, laid-out values of every launch parameter of one launch.
class PackedArguments {
public:
  /// Checks `args` against `metadata` and packs them. Errors are
  /// `InvalidArgument` and name the parameter, e.g.
  ///   "kernel 'add_kernel': argument 4 for parameter 'n' (scalar i32, 4
  ///    bytes) got i64 7 (8 bytes)".
  /// Checked: the count (one argument per non-constexpr source parameter),
  /// each kind (pointer / scalar), each scalar's size and type class (signed
  /// and unsigned integers of one width are interchangeable; ints and floats
  /// are not), and each divisibility promise (a pointer's address or an
  /// integer's value must be a multiple of the metadata's `divisibility`).
  /// Hidden slots are laid out and zeroed; fill them with `setHidden`.
  static Expected<PackedArguments> pack(const KernelMetadata &metadata,
                                        KernelArgs args);
  /// The same with the slots `layout(metadata)` gave, computed once (a
  /// loaded Kernel keeps them: the launch path then allocates only the
  /// buffer).
  static Expected<PackedArguments>
  pack(const KernelMetadata &metadata, KernelArgs args,
       std::shared_ptr<const std::vector<ArgumentSlot>> slots);

  /// The slots `pack` lays out for `metadata`, without any argument: what the
  /// compiled entry's parameter list must look like for `metadata.target`.
  static std::vector<ArgumentSlot> layout(const KernelMetadata &metadata);

  /// Where ptxas starts the parameter space in constant bank 0, as far as
  /// the layout is concerned: 0x160 for sm_70 to sm_89, 0x210 for sm_90, and
  /// 0 for sm_100 and newer (whose ptxas aligns parameters relative to the
  /// start of the space). A target that is empty or not "sm_NN[a|f]" is
  /// taken as sm_90a, tilec's default.
  static std::size_t parameterBankOffset(const std::string &target);

  /// Writes the value of hidden parameter `hiddenIndex` (an index into
  /// `metadata.hiddenParameters`); `size` must equal its `bytes`.
  Status setHidden(std::size_t hiddenIndex, const void *data,
                   std::size_t size);

  /// Writes every "program_grid" hidden parameter of `metadata` (the one
  /// these arguments were packed for): `grid`'s size along the recipe's
  /// axis (0: x, 1: y, 2: z) as a 4-byte signed integer. `grid` is the
  /// caller's grid, not the one launched for a persistent kernel. A size
  /// above 2^31-1 is an `InvalidArgument` error (computeLaunchGrid has
  /// refused such grids already).
  Status setProgramGrid(const KernelMetadata &metadata, LaunchGrid grid);

  /// One slot per launch parameter, source ones first, then hidden ones.
  const std::vector<ArgumentSlot> &slots() const { return *slots_; }

  /// Size of the parameter space: the end of the last slot rounded up to the
  /// largest alignment (0 for a kernel without parameters).
  std::size_t totalBytes() const { return buffer_.size(); }

  /// The packed bytes (`totalBytes()` of them).
  const std::uint8_t *data() const { return buffer_.data(); }

  /// The `kernelParams` array for cuLaunchKernel: one pointer per slot, into
  /// this object's buffer (valid while this object lives and is not moved).
  void **kernelParams();

private:
  std::shared_ptr<const std::vector<ArgumentSlot>> slots_;
  std::size_t firstHidden_ = 0;
  std::vector<std::uint8_t> buffer_;
  std::vector<void *> params_;
};

} // namespace tilec::runtime

#endif // TILEC_RUNTIME_PACKEDARGUMENTS_H
