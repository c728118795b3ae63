//===- DiskCache.h - Compiled kernels on disk -------------------*- C++ -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The on-disk kernel cache (docs/cache.md). One file per key,
// `<dir>/v1/<key[0..1]>/<key>.tkc`, holding everything needed to load the
// kernel (metadata, PTX, cubin, ptxas report) and the key's text:
//
// - written to a unique temporary file in the same directory, then renamed
//   over the entry: a reader sees no entry, or a complete one; concurrent
//   writers of one key each publish a complete file and the last rename
//   wins (no lock is needed, none is held);
// - read whole and validated (magic, format version, section sizes, an
//   xxh3 checksum of everything before it, the stored key text): a
//   truncated, corrupted or foreign file is reported as Corrupt, and the
//   caller recompiles and stores over it. Nothing is fsync'ed: a file torn
//   by a crash is caught by the checksum.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_JIT_DISKCACHE_H
#define TILEC_JIT_DISKCACHE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace tilec::jit {

/// What one cache entry holds (all byte strings).
struct CacheEntry {
  /// getCacheKeyText() of the entry's key, checked on lookup.
  std::string keyText;
  /// The kernel metadata JSON (docs/metadata.md), without artifact names.
  std::string metadata;
  std::string ptx;
  /// The cubin; empty when kernels are kept as PTX.
  std::string cubin;
  /// What `ptxas -v` printed.
  std::string ptxasLog;
};

/// The result of DiskCache::lookup.
struct CacheLookup {
  enum class Status { Hit, Miss, Corrupt };
  Status status = Status::Miss;
  /// The entry, on a hit.
  CacheEntry entry;
  /// Why an entry was rejected ("checksum mismatch", "truncated: ..."), for
  /// Corrupt.
  std::string reason;
};

/// A kernel cache directory.
class DiskCache {
public:
  /// The directory is created when the first entry is stored.
  explicit DiskCache(std::string directory) : directory(std::move(directory)) {}

  /// `$TILEC_CACHE_DIR` if set and not empty, else `$HOME/.cache/tilec`,
  /// else `<tmp>/tilec-cache`.
  static std::string getDefaultDirectory();

  const std::string &getDirectory() const { return directory; }

  /// `<dir>/v1/<key[0..1]>/<key>.tkc`.
  std::string getEntryPath(llvm::StringRef key) const;

  /// Reads the entry of `key`, and checks it and that it was stored for
  /// `keyText`. A file that cannot be opened is a Miss.
  CacheLookup lookup(llvm::StringRef key, llvm::StringRef keyText) const;

  /// Atomically publishes `entry` as the entry of `key` (replacing any).
  /// Errors: the directory or temporary file cannot be created or written,
  /// the rename fails.
  llvm::Error store(llvm::StringRef key, const CacheEntry &entry) const;

  /// The file format (docs/cache.md), exposed for tests.
  static std::string serialize(const CacheEntry &entry);
  /// Errors describe the first problem found: "not a tilec cache entry",
  /// "format version 2, expected 1", "truncated: ...", "checksum mismatch".
  static llvm::Expected<CacheEntry> deserialize(llvm::StringRef bytes);

private:
  std::string directory;
};

} // namespace tilec::jit

#endif // TILEC_JIT_DISKCACHE_H
