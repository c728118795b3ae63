"""tilec from Python: `@tilec.jit` kernels compiled by tilec's C API and
launched on PyTorch tensors (GPU) or numpy arrays / CPU tensors (tilec's CPU
backend); python/README.md.

    import tilec
    import tilec.language as tl

    @tilec.jit
    def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        ...
    add[(tilec.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
"""

from ._capi import lib as _lib
from .jit import (SWITCHES, CompilationError, CompiledKernel, JITFunction, LaunchError,
                  TilecError, backend, compile_file, jit, set_backend)
from . import language
from .language import cdiv, next_power_of_2, constexpr

__all__ = ["jit", "compile_file", "backend", "set_backend", "cdiv", "next_power_of_2",
           "constexpr", "language", "TilecError", "CompilationError", "LaunchError",
           "JITFunction", "CompiledKernel", "SWITCHES"]

from .pointwise import pointwise_dynamic, PointwiseDynamicFunction  # noqa: E402
from .strided import StridedBuffer  # noqa: E402
from . import testing  # noqa: E402,F401
from .autotune import Config, autotune, heuristics  # noqa: E402
from .tensor_descriptor import TensorDescriptor  # noqa: E402

__all__ += ["pointwise_dynamic", "PointwiseDynamicFunction", "StridedBuffer", "testing", "Config",
            "autotune", "heuristics", "TensorDescriptor"]


def version():
    """libtilec's version string."""
    return _lib().tilec_version().decode()
