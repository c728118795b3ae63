# tilec_link_mlir(<target>): link a tool against MLIR/LLVM.
#
# Development and CI builds link Debian's shared libMLIR.so / libLLVM.so (fast
# links, small binaries). With -DTILEC_STATIC=ON the static archives are linked
# instead, so the binary runs on a machine without LLVM (the GPU machine); see
# cmake/TilecStatic.cmake.
function(tilec_link_mlir target)
  if(TILEC_STATIC)
    tilec_link_static_mlir(${target})
  else()
    target_link_libraries(${target} PRIVATE MLIR LLVM)
  endif()
endfunction()

if(TILEC_STATIC)
  include(TilecStatic OPTIONAL RESULT_VARIABLE _tilec_static_found)
  if(NOT _tilec_static_found)
    message(FATAL_ERROR "TILEC_STATIC=ON needs cmake/TilecStatic.cmake")
  endif()
endif()
