//===- DiskCache.cpp - Compiled kernels on disk ---------------------------===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "tilec/JIT/DiskCache.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/EndianStream.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <cstdlib>

using namespace tilec::jit;

namespace {

constexpr llvm::StringLiteral kMagic = "TILECKC\x1a";
constexpr uint32_t kFormatVersion = 1;
/// Section names, in file order.
constexpr llvm::StringLiteral kSections[] = {"key", "metadata", "ptx", "cubin",
                                             "ptxas-log"};

/// Reads little-endian fields from a byte string, remembering the first
/// overrun.
class Reader {
public:
  explicit Reader(llvm::StringRef bytes) : bytes(bytes) {}
  bool read(size_t size, llvm::StringRef &out) {
    if (failed || bytes.size() - offset < size) {
      failed = true;
      return false;
    }
    out = bytes.substr(offset, size);
    offset += size;
    return true;
  }
  template <typename T> bool read(T &out) {
    llvm::StringRef raw;
    if (!read(sizeof(T), raw))
      return false;
    out = llvm::support::endian::read<T, llvm::endianness::little>(raw.data());
    return true;
  }
  size_t getOffset() const { return offset; }

private:
  llvm::StringRef bytes;
  size_t offset = 0;
  bool failed = false;
};

const std::string &sectionOf(const CacheEntry &entry, size_t index) {
  const std::string *fields[] = {&entry.keyText, &entry.metadata, &entry.ptx,
                                 &entry.cubin, &entry.ptxasLog};
  return *fields[index];
}

std::string &sectionOf(CacheEntry &entry, size_t index) {
  return const_cast<std::string &>(
      sectionOf(static_cast<const CacheEntry &>(entry), index));
}

} // namespace

std::string DiskCache::getDefaultDirectory() {
  if (const char *env = std::getenv("TILEC_CACHE_DIR"); env && *env)
    return env;
  llvm::SmallString<256> path;
  if (const char *home = std::getenv("HOME"); home && *home) {
    path = home;
    llvm::sys::path::append(path, ".cache", "tilec");
    return path.str().str();
  }
  llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, path);
  llvm::sys::path::append(path, "tilec-cache");
  return path.str().str();
}

std::string DiskCache::getEntryPath(llvm::StringRef key) const {
  llvm::SmallString<256> path(directory);
  llvm::sys::path::append(path, "v1", key.take_front(2), key + ".tkc");
  return path.str().str();
}

std::string DiskCache::serialize(const CacheEntry &entry) {
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  llvm::support::endian::Writer writer(os, llvm::endianness::little);
  os << kMagic;
  writer.write<uint32_t>(kFormatVersion);
  writer.write<uint32_t>(std::size(kSections));
  for (size_t i = 0; i < std::size(kSections); ++i) {
    writer.write<uint32_t>(kSections[i].size());
    os << kSections[i];
    const std::string &data = sectionOf(entry, i);
    writer.write<uint64_t>(data.size());
    os << data;
  }
  os.flush();
  writer.write<uint64_t>(llvm::xxh3_64bits(bytes));
  os.flush();
  return bytes;
}

llvm::Expected<CacheEntry> DiskCache::deserialize(llvm::StringRef bytes) {
  Reader reader(bytes);
  llvm::StringRef magic;
  if (!reader.read(kMagic.size(), magic) || magic != kMagic)
    return llvm::createStringError("not a tilec cache entry");
  uint32_t version = 0, count = 0;
  if (!reader.read(version) || !reader.read(count))
    return llvm::createStringError("truncated: no header");
  if (version != kFormatVersion)
    return llvm::createStringError("format version " + llvm::Twine(version) +
                                   ", expected " + llvm::Twine(kFormatVersion));
  if (count != std::size(kSections))
    return llvm::createStringError(llvm::Twine(count) + " sections, expected " +
                                   llvm::Twine(std::size(kSections)));
  CacheEntry entry;
  for (size_t i = 0; i < count; ++i) {
    uint32_t nameSize = 0;
    uint64_t size = 0;
    llvm::StringRef name, data;
    if (!reader.read(nameSize) || !reader.read(nameSize, name) ||
        !reader.read(size) || !reader.read(size, data))
      return llvm::createStringError("truncated: section " + llvm::Twine(i) +
                                     " ('" + kSections[i] + "') is cut off");
    if (name != kSections[i])
      return llvm::createStringError("section " + llvm::Twine(i) + " is '" +
                                     name + "', expected '" + kSections[i] +
                                     "'");
    sectionOf(entry, i) = data.str();
  }
  size_t checked = reader.getOffset();
  uint64_t checksum = 0;
  if (!reader.read(checksum))
    return llvm::createStringError("truncated: no checksum");
  if (checksum != llvm::xxh3_64bits(bytes.take_front(checked)))
    return llvm::createStringError("checksum mismatch");
  if (reader.getOffset() != bytes.size())
    return llvm::createStringError(
        llvm::Twine(bytes.size() - reader.getOffset()) +
        " bytes after the checksum");
  return entry;
}

CacheLookup DiskCache::lookup(llvm::StringRef key,
                              llvm::StringRef keyText) const {
  CacheLookup result;
  auto buffer = llvm::MemoryBuffer::getFile(getEntryPath(key),
                                            /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return result; // Miss.
  llvm::Expected<CacheEntry> entry = deserialize((*buffer)->getBuffer());
  if (!entry) {
    result.status = CacheLookup::Status::Corrupt;
    result.reason = llvm::toString(entry.takeError());
    return result;
  }
  if (entry->keyText != keyText) {
    result.status = CacheLookup::Status::Corrupt;
    result.reason = "the entry was stored for another key";
    return result;
  }
  result.status = CacheLookup::Status::Hit;
  result.entry = std::move(*entry);
  return result;
}

llvm::Error DiskCache::store(llvm::StringRef key,
                             const CacheEntry &entry) const {
  std::string path = getEntryPath(key);
  llvm::StringRef dir = llvm::sys::path::parent_path(path);
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return llvm::createStringError(ec, "cannot create cache directory " + dir);
  // A unique temporary name in the entry's own directory, so that the
  // rename is atomic (same file system) and writers never share a file.
  llvm::SmallString<256> temp;
  int fd = -1;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueFile(path + ".tmp-%%%%%%%%%%%%", fd, temp))
    return llvm::createStringError(ec, "cannot create a file in " + dir);
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << serialize(entry);
    os.close();
    if (os.has_error()) {
      std::error_code ec = os.error();
      os.clear_error();
      llvm::sys::fs::remove(temp);
      return llvm::createStringError(ec, "cannot write " + temp);
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(temp, path)) {
    llvm::sys::fs::remove(temp);
    return llvm::createStringError(ec, "cannot rename " + temp + " to " + path);
  }
  return llvm::Error::success();
}
