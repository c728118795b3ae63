//===- KernelMetadata.h - The JSON written next to each kernel --*- C++ -*-===//
//
// `tilec` writes `<out>.json` next to every PTX / cubin artifact. It is the
// contract between the compiler and the runtime: how many threads to launch,
// how much dynamic shared memory, and which arguments the kernel takes in
// which order. docs/metadata.md documents every field; this file is its
// reader.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_RUNTIME_KERNELMETADATA_H
#define TILEC_RUNTIME_KERNELMETADATA_H

#include "tilec/Runtime/ScalarType.h"
#include "tilec/Runtime/Status.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilec::runtime {

/// One source parameter of the kernel, in source order.
struct ParameterInfo {
  enum class Kind {
    /// A 64-bit global address of `type` elements.
    Pointer,
    /// A value of `type`, passed by value (its own size).
    Scalar,
    /// Specialized away at compile time; not passed at launch.
    Constexpr,
  };
  std::string name;
  Kind kind = Kind::Scalar;
  /// Pointee or scalar type. For a constexpr, the declared type if the
  /// metadata gives one (I32 otherwise, see `hasType`).
  ScalarType type = ScalarType::I32;
  bool hasType = false;
  /// The compiler assumed the value (pointer: the address) is a multiple of
  /// this. 1 = no assumption.
  std::uint64_t divisibility = 1;
  /// A constexpr's value, as compact JSON text ("1024", "1.5", "true").
  std::string constexprValue;
};

/// An integer a recipe takes from the launch: a literal in the metadata, or
/// a factor times the product of `scalar` or `constexpr` source parameters
/// named there (JSON: a number, a name, or `{"args": [names], "factor": f}`).
struct RecipeValue {
  /// The parameters' names joined by '*' ("Z*H*N_CTX"); empty for a literal.
  std::string parameter;
  /// The literal, or the known part of the product (the factor times the
  /// constexprs' values).
  std::int64_t value = 0;
  /// The scalar parameters multiplied in: their indices among the launch
  /// arguments (`KernelMetadata::launchParameters()`); none when `value`
  /// is the whole value.
  std::vector<int> arguments;

  bool known() const { return arguments.empty(); }
};

/// One dimension of a TMA descriptor's tensor.
struct TmaDimension {
  RecipeValue size;   ///< Elements.
  RecipeValue stride; ///< Elements between neighbours along this dimension.
};

/// The "tma_descriptor" recipe (docs/metadata.md): a 128-byte CUtensorMap
/// from cuTensorMapEncodeTiled for the tensor at a pointer argument.
struct TmaDescriptorRecipe {
  /// The `pointer` source parameter whose address is the tensor's base.
  std::string base;
  /// Its index among the launch arguments.
  int baseArgument = -1;
  ScalarType element = ScalarType::FP16;
  /// Innermost (contiguous, stride 1) dimension first; 1 to 5 of them.
  std::vector<TmaDimension> dims;
  /// Elements per dimension of one copy, innermost first (1..256 each).
  std::vector<std::uint32_t> box;
  /// Shared-memory swizzle span in bytes: 0 (none), 32, 64 or 128.
  unsigned swizzleBytes = 0;
  /// Out-of-bounds elements read as NaN ("nan") instead of zero ("zero").
  bool nanFill = false;
  /// Scalar parameters the compiler assumed non-negative for the
  /// descriptor's coordinates ("non_negative"); a launch with one of them
  /// below 0 is refused.
  std::vector<RecipeValue> nonNegative;
};

/// What the runtime must build for a hidden parameter. Known recipes:
///  - "global_scratch": a pointer to `bytesPerProgram` bytes of global
///    scratch memory per program (the caller's grid: x*y*z programs, also
///    for a persistent kernel), aligned to `align`; with `bytesPerProgram`
///    == 0 a null pointer is passed.
///  - "program_grid": the caller's grid size along `axis` (0, 1, 2: x, y,
///    z of the grid the caller asked for, not the grid launched for a
///    persistent kernel) as a 32-bit integer; `bytes` and `align` are 4.
///  - "tma_descriptor": a CUtensorMap passed by value (`tma`).
/// Metadata naming any other recipe is rejected when parsed.
struct HiddenRecipe {
  std::string kind;
  /// "global_scratch": bytes per program and the alignment of each slice.
  std::uint64_t bytesPerProgram = 0;
  std::uint64_t align = 1;
  /// "program_grid": the grid axis, 0 to 2.
  unsigned axis = 0;
  /// Valid when `kind` is "tma_descriptor".
  TmaDescriptorRecipe tma;
};

/// A parameter the compiler appends after the source parameters.
struct HiddenParameterInfo {
  std::string name;
  /// Size and alignment of the value in the parameter space, in bytes.
  std::uint64_t bytes = 0;
  std::uint64_t align = 1;
  HiddenRecipe recipe;
};

/// What ptxas reported for the kernel (absent when no cubin was made).
struct PtxasInfo {
  int registers = 0;
  int spillStores = 0; ///< Bytes.
  int spillLoads = 0;  ///< Bytes.
  int stackFrame = 0;  ///< Bytes.
  int sharedBytes = 0; ///< Static shared memory seen by ptxas, bytes.
};

/// Parsed and validated kernel metadata (format "tilec-kernel-metadata",
/// version 1).
struct KernelMetadata {
  // Identity.
  std::string name;  ///< The source function name.
  std::string entry; ///< The `.entry` symbol in the PTX / cubin.
  std::string tilecVersion;
  std::string target;     ///< "sm_90a".
  std::string ptxVersion; ///< "8.0".

  // Launch configuration.
  int numWarps = 0;
  int numStages = 0;
  int numThreads = 0; ///< Threads per block; the launch block is (n, 1, 1).
  std::uint64_t staticSharedBytes = 0;
  std::uint64_t dynamicSharedBytes = 0; ///< Passed at launch.
  std::array<unsigned, 3> clusterDims = {1, 1, 1};
  /// A persistent kernel ("persistent": true) walks the programs of the
  /// caller's grid itself: the runtime launches a 1-D grid of
  /// min(x*y*z, SMs * resident CTAs per SM) CTAs (computeLaunchGrid in
  /// Kernel.h), and the kernel learns the caller's grid from "program_grid"
  /// hidden parameters. Never together with clusterDims other than {1,1,1}
  /// (rejected when parsed).
  bool persistent = false;

  // Provenance.
  std::string sourcePath;
  std::string sourceHash;
  std::string signature;

  std::vector<ParameterInfo> parameters;
  std::vector<HiddenParameterInfo> hiddenParameters;
  std::optional<PtxasInfo> ptxas;

  /// Artifact file names, relative to the metadata file's directory; empty
  /// when absent.
  std::string ptxFile;
  std::string cubinFile;

  /// Directory of the file this was loaded from ("" after `parse`), used to
  /// resolve `ptxFile` / `cubinFile`.
  std::string directory;

  /// Parses metadata JSON. Errors are `InvalidMetadata` and name the field,
  /// e.g. "kernel metadata: parameters[1] ('n'): unknown kind 'scaler'
  /// (expected pointer, scalar or constexpr)", or "kernel metadata:
  /// 'persistent' is true and 'cluster_dims' is [2, 1, 1]: ...".
  static Expected<KernelMetadata> parse(std::string_view jsonText);

  /// Reads and parses a metadata file (`IoError` if it cannot be read).
  static Expected<KernelMetadata> loadFile(const std::string &path);

  /// The parameters passed at launch by the caller: every non-constexpr
  /// source parameter, in order (hidden parameters not included).
  std::vector<const ParameterInfo *> launchParameters() const;

  /// The path of an artifact named in the metadata, resolved against
  /// `directory`; empty if the artifact is not named.
  std::string artifactPath(const std::string &file) const;
};

} // namespace tilec::runtime

#endif // TILEC_RUNTIME_KERNELMETADATA_H
