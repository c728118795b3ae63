//===- DiskCacheTest.cpp - The on-disk kernel cache -----------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The entry format and its validation (every truncation and a flipped byte
// are detected), and atomic publication: processes storing one key over and
// over while this one reads it never produce a torn or mixed entry.
//
//===----------------------------------------------------------------------===//

#include "tilec/JIT/DiskCache.h"

#include "TestUtils.h"

#include "llvm/Support/MemoryBuffer.h"

using namespace tilec::jit;
using namespace tilec::jit::testing;

namespace {

CacheEntry sampleEntry() {
  CacheEntry entry;
  entry.keyText = "tilec-cache-key 1\nkernel k\n";
  entry.metadata = R"({"format": "tilec-kernel-metadata"})";
  entry.ptx = ".version 8.0\n.target sm_90a\n";
  entry.cubin = std::string("\x7f"
                            "ELF\0\1\2",
                            7);
  entry.ptxasLog = "ptxas info: Used 10 registers";
  return entry;
}

constexpr const char *kKey =
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

TEST(DiskCacheTest, RoundTrip) {
  CacheEntry entry = sampleEntry();
  std::string bytes = DiskCache::serialize(entry);
  llvm::Expected<CacheEntry> back = DiskCache::deserialize(bytes);
  ASSERT_TRUE(!!back) << llvm::toString(back.takeError());
  EXPECT_EQ(back->keyText, entry.keyText);
  EXPECT_EQ(back->metadata, entry.metadata);
  EXPECT_EQ(back->ptx, entry.ptx);
  EXPECT_EQ(back->cubin, entry.cubin);
  EXPECT_EQ(back->ptxasLog, entry.ptxasLog);
}

TEST(DiskCacheTest, EveryTruncationAndCorruptionIsDetected) {
  std::string bytes = DiskCache::serialize(sampleEntry());
  for (size_t size = 0; size < bytes.size(); ++size) {
    llvm::Expected<CacheEntry> cut =
        DiskCache::deserialize(llvm::StringRef(bytes).take_front(size));
    EXPECT_FALSE(!!cut) << "a " << size << "-byte prefix was accepted";
    if (!cut)
      llvm::consumeError(cut.takeError());
  }
  for (size_t at = 0; at < bytes.size(); ++at) {
    std::string flipped = bytes;
    flipped[at] ^= 0x20;
    llvm::Expected<CacheEntry> bad = DiskCache::deserialize(flipped);
    EXPECT_FALSE(!!bad) << "a flipped byte at " << at << " was accepted";
    if (!bad)
      llvm::consumeError(bad.takeError());
  }
  llvm::Expected<CacheEntry> longer = DiskCache::deserialize(bytes + "x");
  ASSERT_FALSE(!!longer);
  EXPECT_EQ(llvm::toString(longer.takeError()), "1 bytes after the checksum");
  llvm::Expected<CacheEntry> other = DiskCache::deserialize("hello");
  ASSERT_FALSE(!!other);
  EXPECT_EQ(llvm::toString(other.takeError()), "not a tilec cache entry");
}

TEST(DiskCacheTest, StoreAndLookup) {
  TempDir dir;
  DiskCache cache(dir.str());
  CacheEntry entry = sampleEntry();
  EXPECT_EQ(cache.lookup(kKey, entry.keyText).status,
            CacheLookup::Status::Miss);
  ASSERT_FALSE(!!cache.store(kKey, entry));
  EXPECT_EQ(cache.getEntryPath(kKey),
            dir.str() + "/v1/01/" + std::string(kKey) + ".tkc");
  CacheLookup hit = cache.lookup(kKey, entry.keyText);
  ASSERT_EQ(hit.status, CacheLookup::Status::Hit) << hit.reason;
  EXPECT_EQ(hit.entry.cubin, entry.cubin);
  // Another key text under the same key (a collision or a misplaced file).
  CacheLookup foreign = cache.lookup(kKey, "tilec-cache-key 1\nkernel j\n");
  EXPECT_EQ(foreign.status, CacheLookup::Status::Corrupt);
  EXPECT_EQ(foreign.reason, "the entry was stored for another key");
  // A truncated file, as a crash in the middle of a copy would leave.
  std::string path = cache.getEntryPath(kKey);
  truncateFile(path, 20);
  CacheLookup cut = cache.lookup(kKey, entry.keyText);
  EXPECT_EQ(cut.status, CacheLookup::Status::Corrupt);
  EXPECT_EQ(cut.reason, "truncated: section 0 ('key') is cut off");
  // Storing again repairs it; no temporary file is left behind.
  ASSERT_FALSE(!!cache.store(kKey, entry));
  EXPECT_EQ(cache.lookup(kKey, entry.keyText).status, CacheLookup::Status::Hit);
  EXPECT_EQ(listFiles(dir.str()),
            std::vector<std::string>{"v1/01/" + std::string(kKey) + ".tkc"});
}

TEST(DiskCacheTest, ConcurrentWritersNeverTearAnEntry) {
  TempDir dir;
  DiskCache cache(dir.str());
  const int kWriters = 4, kStores = 150;
  std::vector<llvm::sys::ProcessInfo> workers;
  for (int w = 0; w < kWriters; ++w)
    workers.push_back(startWorker(
        {"store", dir.str(), kKey, std::to_string(kStores), std::to_string(w)},
        "/dev/null"));
  // Read while they write: every entry seen must be one a writer wrote.
  int hits = 0, reads = 0;
  bool writing = true;
  while (writing) {
    CacheLookup seen = cache.lookup(kKey, "stress");
    ++reads;
    if (seen.status == CacheLookup::Status::Hit) {
      ++hits;
      unsigned seed = 0, i = 0;
      size_t size = 0;
      ASSERT_EQ(std::sscanf(seen.entry.metadata.c_str(), "%u %u %zu", &seed, &i,
                            &size),
                3);
      ASSERT_EQ(seen.entry.cubin.size(), size);
      ASSERT_EQ(seen.entry.cubin,
                std::string(size, static_cast<char>('a' + (seed + i) % 26)));
    } else {
      ASSERT_EQ(seen.status, CacheLookup::Status::Miss) << seen.reason;
    }
    writing = false;
    for (llvm::sys::ProcessInfo &worker : workers) {
      std::string error;
      llvm::sys::ProcessInfo state =
          llvm::sys::Wait(worker, /*SecondsToWait=*/0, &error);
      if (state.Pid == 0)
        writing = true;
      else {
        EXPECT_EQ(state.ReturnCode, 0);
        worker.Pid = 0;
      }
    }
    workers.erase(std::remove_if(workers.begin(), workers.end(),
                                 [](const llvm::sys::ProcessInfo &p) {
                                   return p.Pid == 0;
                                 }),
                  workers.end());
    writing = !workers.empty();
  }
  EXPECT_GT(hits, 0) << reads << " reads";
  EXPECT_EQ(cache.lookup(kKey, "stress").status, CacheLookup::Status::Hit);
  // Only the entry remains: every writer renamed its temporary file.
  EXPECT_EQ(listFiles(dir.str()).size(), 1u);
}

} // namespace
