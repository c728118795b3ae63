//===- FakeCuda.h - A CUDA driver stand-in for tests ------------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// libtilec-fake-cuda.so exports the driver entry points the runtime resolves
// (lib/Runtime/DriverApi.h) and behaves like one Hopper GPU that runs no
// code: device memory is host memory, modules are kept as copies of their
// images, and a launch is recorded instead of run. Tests point the runtime
// at it with TILEC_LIBCUDA=<path> and read the records through the C
// functions below (dlopen the same path with RTLD_NOLOAD, then dlsym). It
// lets CI exercise loading, the JIT's caches and argument packing, and lets
// the host side of a launch be timed without the real driver's share.
// A tool run on it cannot call these functions; two environment variables
// give such tests their faults instead: TILEC_FAKE_CUDA_TRAP_LAUNCH=N (the
// process's N-th launch traps: later launches, waits and synchronizations
// fail with CUDA_ERROR_LAUNCH_FAILED) and TILEC_FAKE_CUDA_MAX_CONTEXTS=N (the
// primary context may be created at most N times in the process).
// cuOccupancyMaxActiveBlocksPerMultiprocessor follows a simple Hopper-like
// model (FakeCuda.cpp); TILEC_FAKE_CUDA_OCCUPANCY=N makes it answer N.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TEST_LIB_FAKECUDA_FAKECUDA_H
#define TILEC_TEST_LIB_FAKECUDA_FAKECUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Counters since the last reset.
typedef struct TilecFakeCudaStats {
  uint64_t moduleLoads; ///< cuModuleLoadData / cuModuleLoadDataEx calls.
  uint64_t ptxLoads;    ///< Of which with PTX text.
  uint64_t launches;    ///< cuLaunchKernel / cuLaunchKernelEx calls.
} TilecFakeCudaStats;

/// The last launch.
typedef struct TilecFakeCudaLaunch {
  char entry[128];           ///< The function's name.
  unsigned grid[3], block[3];
  unsigned sharedBytes;
  void *stream;
  /// The packed parameter bytes, when the module was loaded from PTX (whose
  /// `.param` list gives their sizes); `numParams` is -1 for a cubin.
  int numParams;
  uint8_t params[1024];
  size_t paramOffsets[64];
  size_t paramSizes[64];
} TilecFakeCudaLaunch;

typedef void (*TilecFakeCudaGetStatsFn)(TilecFakeCudaStats *);
typedef void (*TilecFakeCudaLastLaunchFn)(TilecFakeCudaLaunch *);
typedef void (*TilecFakeCudaResetFn)(void);
typedef void (*TilecFakeCudaFailLaunchesFn)(int);

void tilecFakeCudaGetStats(TilecFakeCudaStats *stats);
void tilecFakeCudaLastLaunch(TilecFakeCudaLaunch *launch);
/// Resets the counters and clears a simulated trap.
void tilecFakeCudaReset(void);
/// Simulates a kernel that traps: from now on every launch and
/// synchronization returns `result` (a CUresult such as CUDA_ERROR_ASSERT),
/// as a real context's sticky error, until tilecFakeCudaReset.
void tilecFakeCudaFailLaunches(int result);

#ifdef __cplusplus
}
#endif

#endif // TILEC_TEST_LIB_FAKECUDA_FAKECUDA_H
