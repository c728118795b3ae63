# The install-consumer test (CTest, test/CMakeLists.txt):
#   cmake -DBUILD_DIR=<tilec build> -DWORK_DIR=<scratch> -DCXX=... -DCC=...
#         -DGENERATOR=Ninja -P run.cmake
# installs the build into WORK_DIR/prefix, configures and builds this
# directory's project against it with find_package(tilec), and runs it.
function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  message(STATUS "${what}: ${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
step("install" ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${WORK_DIR}/prefix")
step("configure" ${CMAKE_COMMAND} -S "${CMAKE_CURRENT_LIST_DIR}" -B "${WORK_DIR}/build"
     -G "${GENERATOR}" -DCMAKE_BUILD_TYPE=Release
     -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_C_COMPILER=${CC}
     -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
step("build" ${CMAKE_COMMAND} --build "${WORK_DIR}/build")
step("run c++" "${WORK_DIR}/build/consumer" "${WORK_DIR}/cache")
step("run c" "${WORK_DIR}/build/consumer_c" "${WORK_DIR}/cache")
file(REMOVE_RECURSE "${WORK_DIR}")
