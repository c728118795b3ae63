//===- FakeCudaControl.h - A gtest's handle on the fake CUDA driver -*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The test functions of libtilec-fake-cuda.so (FakeCuda.h), resolved from
// the library at TILEC_FAKE_CUDA (the path the test target defines, the one
// the runtime loads through TILEC_LIBCUDA): launch counters, the last
// launch's record and its packed parameters, simulated traps. For the
// gtest suites of test/unittests; header-only.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TEST_LIB_FAKECUDA_FAKECUDACONTROL_H
#define TILEC_TEST_LIB_FAKECUDA_FAKECUDACONTROL_H

#include "FakeCuda/FakeCuda.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <dlfcn.h>

namespace tilec::testing {

/// Parameter `i` of a recorded launch, as a `T` (its recorded size must be
/// sizeof(T): a gtest failure otherwise).
template <typename T> T fakeLaunchParam(const TilecFakeCudaLaunch &l, int i) {
  T value{};
  EXPECT_EQ(l.paramSizes[i], sizeof(T)) << "parameter " << i;
  std::memcpy(&value, l.params + l.paramOffsets[i], sizeof(T));
  return value;
}

/// Resolves the fake driver's test functions and resets its counters;
/// resets them again (and clears a simulated trap) when destroyed.
struct FakeCudaControl {
  FakeCudaControl() {
    void *handle = dlopen(TILEC_FAKE_CUDA, RTLD_NOW | RTLD_LOCAL);
    EXPECT_NE(handle, nullptr) << dlerror();
    getStats = reinterpret_cast<TilecFakeCudaGetStatsFn>(
        dlsym(handle, "tilecFakeCudaGetStats"));
    lastLaunch = reinterpret_cast<TilecFakeCudaLastLaunchFn>(
        dlsym(handle, "tilecFakeCudaLastLaunch"));
    reset = reinterpret_cast<TilecFakeCudaResetFn>(
        dlsym(handle, "tilecFakeCudaReset"));
    failLaunches = reinterpret_cast<TilecFakeCudaFailLaunchesFn>(
        dlsym(handle, "tilecFakeCudaFailLaunches"));
    reset();
  }
  ~FakeCudaControl() { reset(); }
  FakeCudaControl(const FakeCudaControl &) = delete;
  FakeCudaControl &operator=(const FakeCudaControl &) = delete;

  TilecFakeCudaStats stats() const {
    TilecFakeCudaStats s;
    getStats(&s);
    return s;
  }
  std::uint64_t launches() const { return stats().launches; }
  TilecFakeCudaLaunch last() const {
    TilecFakeCudaLaunch l;
    lastLaunch(&l);
    return l;
  }
  template <typename T> T param(const TilecFakeCudaLaunch &l, int i) const {
    return fakeLaunchParam<T>(l, i);
  }

  TilecFakeCudaGetStatsFn getStats;
  TilecFakeCudaLastLaunchFn lastLaunch;
  TilecFakeCudaResetFn reset;
  TilecFakeCudaFailLaunchesFn failLaunches;
};

} // namespace tilec::testing

#endif // TILEC_TEST_LIB_FAKECUDA_FAKECUDACONTROL_H
