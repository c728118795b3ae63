//===- LaunchGrid.cpp - The caller's grid and the launched one ------------===//

#include "tilec/Runtime/LaunchGrid.h"

#include <algorithm>
#include <string>

namespace tilec::runtime {

std::string LaunchGrid::str() const {
  return "(" + std::to_string(x) + ", " + std::to_string(y) + ", " +
         std::to_string(z) + ")";
}

Expected<LaunchGrid> computeLaunchGrid(LaunchGrid requested, bool persistent,
                                       unsigned numSMs, unsigned ctasPerSM) {
  constexpr std::uint64_t kMaxPrograms = 0x7fffffffu; // 2^31 - 1.
  if (requested.x < 1 || requested.x > kMaxPrograms || requested.y < 1 ||
      requested.y > 65535 || requested.z < 1 || requested.z > 65535)
    return Status::error(ErrorCode::InvalidArgument,
                         "grid " + requested.str() +
                             " out of range (x in [1, 2^31-1], y and z in "
                             "[1, 65535])");
  if (!persistent)
    return requested;
  std::uint64_t programs = requested.programs();
  if (programs > kMaxPrograms)
    return Status::error(
        ErrorCode::InvalidArgument,
        "grid " + requested.str() + " has " + std::to_string(programs) +
            " programs; a persistent kernel takes at most 2^31-1 (it numbers "
            "them with 32-bit integers)");
  std::uint64_t resident = std::uint64_t(std::max(numSMs, 1u)) *
                           std::uint64_t(std::max(ctasPerSM, 1u));
  return LaunchGrid{static_cast<unsigned>(std::min(programs, resident)), 1, 1};
}

} // namespace tilec::runtime
