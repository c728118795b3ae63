# Static linking against Debian's LLVM/MLIR 22 archives (-DTILEC_STATIC=ON).
#
# Included by cmake/TilecLink.cmake from the top-level directory scope, so the
# global link options set here apply to every executable of a static build,
# including tilec-e2e (which links no LLVM but still gets a static libstdc++).
# scripts/build-static.sh drives such a build.
#
# Why not Debian's imported targets: they are built with LLVM_LINK_LLVM_DYLIB,
# so every static MLIR* target names the shared `LLVM` (libLLVM.so.22.1, which
# needs libz3.so.4 at run time), and LLVMSupport names the hard-coded
# /usr/lib/x86_64-linux-gnu/libz3.so, zstd::libzstd_shared and ZLIB::ZLIB.
#
# Approach (chosen for maintainability):
#   * TilecStaticLLVM, an INTERFACE target, links *all* libMLIR*.a and
#     libLLVM*.a archives of LLVM_LIBRARY_DIR inside one
#     -Wl,--start-group ... -Wl,--end-group. A linker pulls only the archive
#     members that are referenced, so listing everything costs nothing at run
#     time and nobody has to maintain a per-tool list of MLIR libraries (a new
#     dialect or pass used by our code just links). Excluded from the glob:
#       - libMLIRMlirOptMain.a: it defines `main` (mlir-opt's);
#       - test-only archives (libMLIR*Test*.a): never needed by our tools and
#         they may define registration hooks that clash with real ones.
#     The shared libraries (libMLIR.so, libLLVM.so, libLLVM-22.so, ...) never
#     match the *.a glob.
#   * Every imported MLIR*/LLVM* static target (LLVMSupport, MLIRIR, ...) gets
#     its INTERFACE_LINK_LIBRARIES replaced by TilecStaticLLVM, so a library of
#     ours that names one of them (e.g. TilecFrontendSyntax -> LLVMSupport)
#     pulls the static group and none of libLLVM.so / libz3.so / the shared
#     zstd.
#   * The external libraries the archives need are linked explicitly: static
#     libzstd.a / libz.a when they exist (zlib1g-dev, libzstd-dev), else the
#     shared ones; then pthread, rt, dl, m (part of libc on glibc >= 2.34).
#     Z3 is not linked: only Support/Z3Solver.cpp.o references it, and nothing
#     in our tools references that member. libxml2, libcurl, libffi, libedit,
#     libpfm (WindowsManifest, Debuginfod, Interpreter, LineEditor, Exegesis)
#     are likewise never pulled.
#
# Linker: ld.lld (package lld-22) links tilec in ~1 s (gold: ~4 s, also
# works) and, unlike GNU ld/gold, does not care in which order CMake places
# our own Tilec*.a libraries relative to the group. TILEC_STATIC_LINKER
# selects another (-fuse-ld=<value>, e.g. gold); with gold/bfd our own
# libraries must come before the group on the command line (CMake puts them
# there for the current targets).

# Flags: -static-libstdc++ -static-libgcc (the binary needs only libc/libm and
# the loader), --gc-sections (our objects and Debian's archives are compiled
# with -ffunction-sections -fdata-sections). Identical code folding is off by
# default (TILEC_STATIC_ICF=none): Debian's archives went through objcopy, so
# lld's --icf=safe ignores their address-significance tables (one warning per
# object, no size gain), and --icf=all, which may merge functions whose
# addresses are compared, saved only ~10% (tilec-opt: 16.5 -> 12.9 MB
# stripped, 3.2 -> 2.9 MB after xz -9). The link itself takes < 1 s.

set(TILEC_STATIC_LINKER "lld" CACHE STRING
    "Linker for TILEC_STATIC builds (value of -fuse-ld=: lld, gold, bfd)")
set(TILEC_STATIC_ICF "none" CACHE STRING
    "Identical code folding for TILEC_STATIC builds with lld: none, safe, all")

# -fuse-ld=lld makes GCC run the first `ld.lld` it finds; /usr/bin/ld.lld is
# lld 14 on Debian 12. Use the one of the LLVM we link (ld.lld-22, package
# lld-22, installed as ${LLVM_TOOLS_BINARY_DIR}/ld.lld) by putting its
# directory first on the driver's program search path (-B); that directory
# holds no `ld`, `as` or `collect2`, so nothing else changes.
set(_tilec_fuse_ld "-fuse-ld=${TILEC_STATIC_LINKER}")
if(TILEC_STATIC_LINKER STREQUAL "lld")
  find_program(TILEC_LLD NAMES ld.lld HINTS ${LLVM_TOOLS_BINARY_DIR} NO_DEFAULT_PATH)
  if(NOT TILEC_LLD)
    message(FATAL_ERROR "TILEC_STATIC: no ld.lld in ${LLVM_TOOLS_BINARY_DIR} "
                        "(apt-get install lld-22, or -DTILEC_STATIC_LINKER=gold)")
  endif()
  get_filename_component(_tilec_lld_dir "${TILEC_LLD}" DIRECTORY)
  list(APPEND _tilec_fuse_ld "-B${_tilec_lld_dir}/")
endif()

# --- the archive group ------------------------------------------------------
file(GLOB _tilec_mlir_archives "${LLVM_LIBRARY_DIR}/libMLIR*.a")
file(GLOB _tilec_llvm_archives "${LLVM_LIBRARY_DIR}/libLLVM*.a")
set(_tilec_archives ${_tilec_mlir_archives} ${_tilec_llvm_archives})
list(FILTER _tilec_archives EXCLUDE REGEX "/libMLIRMlirOptMain\\.a$")
list(FILTER _tilec_archives EXCLUDE REGEX "/libMLIR[A-Za-z0-9]*Test[A-Za-z0-9]*\\.a$")
list(LENGTH _tilec_archives _tilec_n)
if(_tilec_n EQUAL 0)
  message(FATAL_ERROR "TILEC_STATIC: no libMLIR*.a/libLLVM*.a in ${LLVM_LIBRARY_DIR} "
                      "(apt-get install llvm-22-dev libmlir-22-dev)")
endif()
message(STATUS "TILEC_STATIC: linking ${_tilec_n} MLIR/LLVM archives from ${LLVM_LIBRARY_DIR}")

# Static compression libraries when available, else the shared ones.
find_library(TILEC_ZSTD_LIBRARY NAMES libzstd.a zstd)
find_library(TILEC_ZLIB_LIBRARY NAMES libz.a z)
if(NOT TILEC_ZSTD_LIBRARY OR NOT TILEC_ZLIB_LIBRARY)
  message(FATAL_ERROR "TILEC_STATIC needs zlib and zstd (apt-get install zlib1g-dev libzstd-dev)")
endif()
if(NOT TILEC_ZSTD_LIBRARY MATCHES "\\.a$" OR NOT TILEC_ZLIB_LIBRARY MATCHES "\\.a$")
  message(WARNING "TILEC_STATIC: linking shared zlib/zstd (${TILEC_ZLIB_LIBRARY}, "
                  "${TILEC_ZSTD_LIBRARY}); install zlib1g-dev/libzstd-dev for static ones")
endif()
find_package(Threads REQUIRED)

add_library(TilecStaticLLVM INTERFACE)
target_link_libraries(TilecStaticLLVM INTERFACE
  -Wl,--start-group ${_tilec_archives} -Wl,--end-group
  ${TILEC_ZSTD_LIBRARY} ${TILEC_ZLIB_LIBRARY} Threads::Threads rt dl m)

# --- rewrite Debian's imported targets -----------------------------------------
foreach(_t ${LLVM_AVAILABLE_LIBS} ${MLIR_EXPORTED_TARGETS})
  if(TARGET ${_t})
    get_target_property(_type ${_t} TYPE)
    get_target_property(_imported ${_t} IMPORTED)
    if(_imported AND _type STREQUAL "STATIC_LIBRARY")
      set_property(TARGET ${_t} PROPERTY INTERFACE_LINK_LIBRARIES TilecStaticLLVM)
    endif()
  endif()
endforeach()

# --- link options for every executable of the static build ---------------------
add_link_options(${_tilec_fuse_ld} -static-libstdc++ -static-libgcc -Wl,--gc-sections)
if(TILEC_STATIC_LINKER STREQUAL "lld" AND NOT TILEC_STATIC_ICF STREQUAL "none")
  add_link_options(-Wl,--icf=${TILEC_STATIC_ICF})
endif()

# tilec_link_static_mlir(<target>): link a tool against the static archives.
function(tilec_link_static_mlir target)
  target_link_libraries(${target} PRIVATE TilecStaticLLVM)
endfunction()
