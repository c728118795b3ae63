# Installation: libtilec.so (tilec::tilec), the tilec CLI, the public headers
# and a CMake package, so that `find_package(tilec CONFIG REQUIRED)` works
# from an installed prefix (test/install-consumer checks it).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TILEC_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/tilec)

install(TARGETS TilecShared EXPORT tilecTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
if(TARGET tilec)
  set_target_properties(tilec PROPERTIES INSTALL_RPATH "${LLVM_LIBRARY_DIR}")
  install(TARGETS tilec RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tilec
                  ${PROJECT_SOURCE_DIR}/include/tilec-c
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "*.def")
install(EXPORT tilecTargets NAMESPACE tilec::
  DESTINATION ${TILEC_INSTALL_CMAKEDIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tilecConfig.cmake.in
  ${PROJECT_BINARY_DIR}/tilecConfig.cmake
  INSTALL_DESTINATION ${TILEC_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tilecConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tilecConfig.cmake
              ${PROJECT_BINARY_DIR}/tilecConfigVersion.cmake
  DESTINATION ${TILEC_INSTALL_CMAKEDIR})
