# cmake -DSOURCE_DIR=<tilec> -DOUTPUT=<file.inc> -P TilecSourceHash.cmake
#
# Writes `#define TILEC_SOURCE_HASH "<sha256>"`, a hash of every source file
# that can change what tilec compiles (lib/ and include/), to OUTPUT, and
# touches OUTPUT only when the hash changed. The kernel cache key names it
# (include/tilec/JIT/CacheKey.h): every program built from the same sources
# (the CLI, libtilec.so, a statically linked application) shares cache
# entries, and any edit to the compiler invalidates them. Run at every build
# (lib/JIT/CMakeLists.txt); hashing the ~1 MB of sources takes milliseconds.
file(GLOB_RECURSE files RELATIVE "${SOURCE_DIR}"
  "${SOURCE_DIR}/lib/*.cpp" "${SOURCE_DIR}/lib/*.h" "${SOURCE_DIR}/lib/*.td"
  "${SOURCE_DIR}/include/*.h" "${SOURCE_DIR}/include/*.td"
  "${SOURCE_DIR}/include/*.def")
list(SORT files)
set(manifest "")
foreach(f IN LISTS files)
  file(SHA256 "${SOURCE_DIR}/${f}" h)
  string(APPEND manifest "${f} ${h}\n")
endforeach()
string(SHA256 hash "${manifest}")
set(text "#define TILEC_SOURCE_HASH \"${hash}\"\n")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
  if(old STREQUAL text)
    return()
  endif()
endif()
file(WRITE "${OUTPUT}" "${text}")
