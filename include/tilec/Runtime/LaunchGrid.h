//===- LaunchGrid.h - The caller's grid and the launched one ----*- C++ -*-===//
//
// A launch names a grid of programs (`tl.program_id(a)` runs over [0, x),
// [0, y), [0, z)). An ordinary kernel is launched on that grid, one CTA per
// program. A persistent kernel (metadata "persistent": true,
// docs/metadata.md) walks the programs itself: it is launched on a 1-D grid
// of at most as many CTAs as the device holds at once, and learns the
// caller's grid from its "program_grid" hidden parameters.
// computeLaunchGrid is that decision, with no driver involved.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_RUNTIME_LAUNCHGRID_H
#define TILEC_RUNTIME_LAUNCHGRID_H

#include "tilec/Runtime/Status.h"

#include <cstdint>
#include <string>

namespace tilec::runtime {

/// Number of programs along each axis: `tl.program_id(a)` runs over
/// [0, x), [0, y), [0, z) for a = 0, 1, 2.
struct LaunchGrid {
  unsigned x = 1;
  unsigned y = 1;
  unsigned z = 1;

  std::uint64_t programs() const {
    return std::uint64_t(x) * std::uint64_t(y) * std::uint64_t(z);
  }
  /// "(x, y, z)", for messages.
  std::string str() const;
};

/// The grid the driver is given for a launch of `requested` programs.
///  - Checked first, for every kernel: x in [1, 2^31-1], y and z in
///    [1, 65535]. A grid outside them, one with a zero dimension included,
///    is an `InvalidArgument` error and nothing is launched: "grid (0, 1, 1)
///    out of range (x in [1, 2^31-1], y and z in [1, 65535])"
///    (Kernel::launch puts "kernel '<name>': " before it).
///  - Not persistent: `requested` itself.
///  - Persistent: x*y*z must be at most 2^31-1 (the kernel numbers the
///    programs with 32-bit integers), else an `InvalidArgument` error "grid
///    (65536, 65535, 1) has 4294901760 programs; a persistent kernel takes at
///    most 2^31-1 (...)". The result is the 1-D grid (P, 1, 1) with
///    P = min(x*y*z, numSMs * ctasPerSM): one CTA per program, up to as many
///    as the device holds at once. `numSMs` (the device's
///    MULTIPROCESSOR_COUNT) and `ctasPerSM` (the kernel's occupancy,
///    cuOccupancyMaxActiveBlocksPerMultiprocessor) below 1 count as 1.
Expected<LaunchGrid> computeLaunchGrid(LaunchGrid requested, bool persistent,
                                       unsigned numSMs, unsigned ctasPerSM);

} // namespace tilec::runtime

#endif // TILEC_RUNTIME_LAUNCHGRID_H
