//===- GridLauncher.cpp - running every program of a grid -----------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "GridLauncher.h"

#include "llvm/Support/Threading.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

using namespace tilec;
using namespace tilec::cpu;

unsigned cpu::getNumWorkers(std::array<unsigned, 3> grid, unsigned threads) {
  std::uint64_t programs =
      std::uint64_t(grid[0]) * std::uint64_t(grid[1]) * std::uint64_t(grid[2]);
  if (threads == 0)
    threads = llvm::hardware_concurrency().compute_thread_count();
  return static_cast<unsigned>(
      std::max<std::uint64_t>(1, std::min<std::uint64_t>(threads, programs)));
}

void cpu::runGrid(std::array<unsigned, 3> grid, unsigned workers,
                  llvm::function_ref<void(unsigned, ProgramId)> program) {
  std::uint64_t xy = std::uint64_t(grid[0]) * grid[1];
  std::uint64_t total = xy * grid[2];
  // About eight chunks per worker balance uneven programs without making
  // the shared counter hot.
  std::uint64_t chunk = std::max<std::uint64_t>(1, total / (8 * workers));
  std::atomic<std::uint64_t> next{0};
  auto work = [&](unsigned worker) {
    for (;;) {
      std::uint64_t begin = next.fetch_add(chunk, std::memory_order_relaxed);
      if (begin >= total)
        return;
      std::uint64_t end = std::min(total, begin + chunk);
      for (std::uint64_t linear = begin; linear < end; ++linear) {
        ProgramId id = {static_cast<unsigned>(linear % grid[0]),
                        static_cast<unsigned>((linear / grid[0]) % grid[1]),
                        static_cast<unsigned>(linear / xy)};
        program(worker, id);
      }
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(workers - 1);
  for (unsigned worker = 1; worker < workers; ++worker)
    threads.emplace_back(work, worker);
  work(0);
  for (std::thread &thread : threads)
    thread.join();
}
