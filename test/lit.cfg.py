# -*- Python -*-
# lit configuration for tilec's tests (lit + FileCheck, run by CTest).

import os

import lit.formats
from lit.llvm import llvm_config

config.name = "tilec"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".tile", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tilec_obj_root, "test")
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "unittests", "e2e"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%tilec_src", config.tilec_src_root))
config.substitutions.append(("%ptxas", config.ptxas))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.tilec_tools_dir, config.llvm_tools_dir]
if getattr(config, "tilec_frontend_only", "OFF").upper() in ("ON", "1", "TRUE", "YES"):
    # A TILEC_FRONTEND_ONLY build (scripts/sanitize-frontend.sh): only the
    # frontend's tests run, with tilec-frontend (usually built with ASan and
    # UBSan) standing in for `tilec --emit tile`. A sanitizer report aborts
    # the process, which fails the test even under `not`.
    from lit.llvm.subst import ToolSubst

    config.excludes += ["Analysis", "Compiler", "Conversion", "Dialect", "Target", "tilec", "lib", "install-consumer"]
    llvm_config.add_tool_substitutions(
        [ToolSubst("tilec", command=os.path.join(config.tilec_tools_dir, "tilec-frontend"))], tool_dirs
    )
    # allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons its free space
    # when inlined into instrumented code, but the uninstrumented libMLIR.so
    # allocates from the same slabs (MLIR's attribute storage): false
    # use-after-poison reports.
    config.environment["ASAN_OPTIONS"] = (
        "abort_on_error=1:detect_leaks=1:detect_stack_use_after_return=1:allow_user_poisoning=0"
    )
    config.environment["UBSAN_OPTIONS"] = "abort_on_error=1:print_stacktrace=1:halt_on_error=1"
else:
    llvm_config.add_tool_substitutions(["tilec", "tilec-opt"], tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

if config.ptxas and os.path.exists(config.ptxas):
    config.available_features.add("ptxas")

# cuobjdump (SASS of a cubin, no GPU needed): beside ptxas or on PATH; the
# CUDA toolkit of the build machine has none, the GPU machine's has.
import shutil as _shutil
_cuobjdump = (os.path.join(os.path.dirname(config.ptxas), "cuobjdump")
              if config.ptxas else "")
if not (_cuobjdump and os.path.exists(_cuobjdump)):
    _cuobjdump = _shutil.which("cuobjdump") or ""
if _cuobjdump:
    config.available_features.add("cuobjdump")
    config.substitutions.append(("%cuobjdump", _cuobjdump))

# Headless Chromium for the --dump-ir report's page (test/Compiler/dump-ir-html.test).
import shutil
chromium = shutil.which("chromium") or shutil.which("chromium-browser")
if chromium:
    config.available_features.add("chromium")
    config.substitutions.append(("%chromium", chromium))

# A CUDA driver on this machine (what the runtime dlopens):
# `tilec run --backend gpu` can get further than "no CUDA driver".
import ctypes
try:
    ctypes.CDLL("libcuda.so.1")
    config.available_features.add("cuda-driver")
except OSError:
    pass

# The fake CUDA driver (test/lib/FakeCuda), for `tilec run --backend gpu`
# through TILEC_LIBCUDA without a GPU.
_fakecuda = os.path.join(config.tilec_obj_root, "lib", "libtilec-fake-cuda.so")
if os.path.exists(_fakecuda):
    config.available_features.add("fake-cuda")
    config.substitutions.append(("%fakecuda", _fakecuda))

# C compilations of generated headers (test/Compiler/c-header.tile).
config.substitutions.append(("%cc", config.cc))
config.substitutions.append(("%cuda_include", os.path.join(config.cuda_path, "include")))
config.substitutions.append(("%cuda_stubs", os.path.join(config.cuda_path, "lib64", "stubs")))
if os.path.exists(os.path.join(config.cuda_path, "include", "cuda.h")):
    config.available_features.add("cuda-headers")
