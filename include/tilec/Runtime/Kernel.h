//===- Kernel.h - A loaded kernel and its launch ----------------*- C++ -*-===//
//
// Loading and launching a kernel that tilec compiled (every call returns a
// Status or an Expected; nothing throws):
//
//   Expected<std::unique_ptr<Device>> device = Device::open();
//   if (!device) // e.g. "no CUDA driver: libcuda.so.1 not found (...)"
//     return skip(device.status().message());
//   Expected<KernelMetadata> md = KernelMetadata::loadFile("out/add.json");
//   Expected<std::unique_ptr<Kernel>> kernel =
//       Kernel::loadArtifact(**device, *md);        // the cubin, else the PTX
//   Expected<DeviceBuffer> x = DeviceBuffer::allocate(**device, n * 4);
//   ... copyFromHost ...
//   Status launched = (*kernel)->launch({cdiv(n, 1024), 1, 1},
//       {x->arg(), y->arg(), out->arg(), KernelArg::scalar(int32_t(n))});
//   Status done = (*device)->synchronize();  // faults surface here
//

#ifndef TILEC_RUNTIME_KERNEL_H
#define TILEC_RUNTIME_KERNEL_H

#include "tilec/Runtime/DeviceBuffer.h"
#include "tilec/Runtime/KernelArg.h"
#include "tilec/Runtime/KernelMetadata.h"
#include "tilec/Runtime/LaunchGrid.h"
#include "tilec/Runtime/Status.h"
#include "tilec/Runtime/TensorMap.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;

namespace tilec::runtime {

class Device;
struct ArgumentSlot;
class PackedArguments;
class Stream;

/// What the driver reports about the loaded function (cuFuncGetAttribute).
struct KernelAttributes {
  int registers = 0;          ///< Per thread.
  int staticSharedBytes = 0;  ///< Static shared memory per block.
  int localBytes = 0;         ///< Local memory (stack, spills) per thread.
  int constBytes = 0;         ///< User constant memory.
  int maxThreadsPerBlock = 0; ///< Given its register use.
  int ptxVersion = 0;         ///< 10 * major + minor of the PTX ISA.
  int binaryVersion = 0;      ///< 10 * major + minor of the SASS target.
};

/// A kernel loaded into a device's context, launchable as its metadata
/// describes (DESIGN.md §2): block = (`num_threads`, 1, 1), dynamic shared
/// memory = `shared_memory.dynamic_bytes`, cluster = `cluster_dims`; a
/// `persistent` kernel on the grid computeLaunchGrid gives.
class Kernel {
public:
  /// Loads `image` — a cubin (ELF, recognized by its magic bytes) or PTX text
  /// (JIT-compiled by the driver; 100+ ms) — and looks up `metadata.entry`.
  /// Then checks what the driver can check:
  ///  - the block of `num_threads` fits the compiled function;
  ///  - static + dynamic shared memory fits the device, opting in with
  ///    cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES) above 48 KiB;
  ///  - where the driver has cuFuncGetParamInfo (CUDA 12.4+), the compiled
  ///    entry's parameters (count, offsets, sizes) match the layout the
  ///    metadata implies (PackedArguments::layout);
  ///  - a kernel with TMA descriptor parameters needs a device of compute
  ///    capability 9.0+ and a driver with cuTensorMapEncodeTiled.
  /// For a `persistent` kernel it also asks the driver how many of its CTAs
  /// one SM holds at once (cuOccupancyMaxActiveBlocksPerMultiprocessor with
  /// `num_threads` and the dynamic shared memory; at least 1) and keeps the
  /// answer for every launch (`ctasPerSM`).
  /// Errors read like "cuModuleLoadData failed: CUDA_ERROR_INVALID_PTX (a PTX
  /// JIT compilation failed) while loading 'add_kernel'", followed by the JIT
  /// log for PTX.
  static Expected<std::unique_ptr<Kernel>>
  load(const Device &device, const KernelMetadata &metadata, const void *image,
       std::size_t size);

  /// Loads the artifact the metadata names: the cubin if `artifacts.cubin`
  /// is set and the file exists, else `artifacts.ptx`. Paths are relative to
  /// the metadata file's directory.
  static Expected<std::unique_ptr<Kernel>>
  loadArtifact(const Device &device, const KernelMetadata &metadata);

  ~Kernel();
  Kernel(const Kernel &) = delete;
  Kernel &operator=(const Kernel &) = delete;

  /// Queues one launch of `grid` programs on `stream` (the legacy default
  /// stream if null). `args` are checked and packed by PackedArguments::pack
  /// (count, kinds, sizes, divisibility); hidden parameters are built from
  /// their recipes: "program_grid" passes `grid`'s x, y or z as an i32,
  /// "global_scratch" holds x*y*z slices. A TMA descriptor is resolved and
  /// checked (resolveTensorMap) at every launch and encoded with
  /// cuTensorMapEncodeTiled only when its inputs (base address, sizes,
  /// strides) differ from the previous launch's.
  /// Grid limits: x in [1, 2^31-1], y and z in [1, 65535] (a zero dimension
  /// is an error too: nothing is launched); for a persistent kernel also
  /// x*y*z <= 2^31-1, and what is launched is the 1-D grid
  /// computeLaunchGrid(grid, true, SMs, ctasPerSM()) gives. The launch is
  /// asynchronous: a fault inside the kernel is reported by the next
  /// synchronizing call (Event::wait, Stream::synchronize,
  /// Device::synchronize). Not thread-safe for concurrent launches of the
  /// same Kernel (they share the global scratch buffer).
  Status launch(LaunchGrid grid, KernelArgs args,
                const Stream *stream = nullptr);

  /// The same on a raw `CUstream` (or `cudaStream_t`, the same type) that
  /// the caller owns; null is the legacy default stream. The context the
  /// kernel was loaded in must be current on the calling thread.
  Status launch(LaunchGrid grid, KernelArgs args, CUstream_st *stream);

  const KernelMetadata &metadata() const { return metadata_; }
  const KernelAttributes &attributes() const { return attributes_; }
  /// True when the image was PTX (JIT-compiled at load).
  bool loadedFromPtx() const { return fromPtx_; }
  /// The `CUfunction`.
  CUfunc_st *function() const { return function_; }
  /// For a persistent kernel, how many of its CTAs one SM holds at once
  /// (cuOccupancyMaxActiveBlocksPerMultiprocessor at load, at least 1); 0
  /// for other kernels, which do not ask.
  int ctasPerSM() const { return ctasPerSM_; }

  /// cuTensorMapEncodeTiled calls made for this kernel's TMA descriptors
  /// so far (a launch whose descriptor inputs are unchanged makes none).
  std::uint64_t tensorMapEncodes() const;

private:
  Kernel(const Device &device, KernelMetadata metadata)
      : device_(&device), metadata_(std::move(metadata)) {}

  Status checkParameterLayout() const;
  Status configureSharedMemory();
  Status buildHiddenArguments(LaunchGrid grid, KernelArgs args,
                              PackedArguments &packed);
  Status checkTensorMapSupport() const;
  Status computeOccupancy();

  const Device *device_;
  KernelMetadata metadata_;
  CUmod_st *module_ = nullptr;
  CUfunc_st *function_ = nullptr;
  KernelAttributes attributes_;
  bool fromPtx_ = false;
  /// See ctasPerSM().
  int ctasPerSM_ = 0;
  DeviceBuffer scratch_;
  /// One per hidden parameter (used by the tma_descriptor ones).
  std::vector<TensorMapCache> tensorMaps_;
  /// PackedArguments::layout(metadata_), computed once at load.
  std::shared_ptr<const std::vector<ArgumentSlot>> layout_;
};

} // namespace tilec::runtime

#endif // TILEC_RUNTIME_KERNEL_H
