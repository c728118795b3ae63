# lit test suite: `ninja check-tilec`, and one CTest test that runs it.
find_program(TILEC_PTXAS_FOUND ptxas HINTS ${TILEC_CUDA_PATH}/bin NO_DEFAULT_PATH)
set(TILEC_PTXAS "${TILEC_PTXAS_FOUND}")
if(NOT TILEC_PTXAS)
  set(TILEC_PTXAS "")
endif()
set(LLVM_TOOLS_DIR "${LLVM_TOOLS_BINARY_DIR}")
configure_lit_site_cfg(
  ${PROJECT_SOURCE_DIR}/test/lit.site.cfg.py.in
  ${PROJECT_BINARY_DIR}/test/lit.site.cfg.py
  MAIN_CONFIG ${PROJECT_SOURCE_DIR}/test/lit.cfg.py
)
set(TILEC_TEST_DEPENDS tilec-opt)
if(TARGET tilec)
  list(APPEND TILEC_TEST_DEPENDS tilec)
endif()
find_program(TILEC_LIT lit HINTS ${LLVM_TOOLS_BINARY_DIR} /usr/lib/llvm-22/bin REQUIRED)
add_custom_target(check-tilec
  COMMAND ${TILEC_LIT} -sv ${PROJECT_BINARY_DIR}/test
  DEPENDS ${TILEC_TEST_DEPENDS}
  USES_TERMINAL
  COMMENT "Running tilec lit tests")
add_test(NAME lit COMMAND ${TILEC_LIT} -sv ${PROJECT_BINARY_DIR}/test)
