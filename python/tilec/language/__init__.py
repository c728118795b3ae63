"""`tilec.language` (`import tilec.language as tl`): the names kernels use.

Kernels are compiled by tilec, never run by Python, so the functions here
only exist for the interpreter to import and annotate (docs/language.md
lists what the compiler understands). At the Python level this module
provides what host code touches: `tl.constexpr` (annotation and wrapper for
module constants), the dtypes (`tl.float32`, ...), and `tl.cdiv` /
`tl.next_power_of_2` as plain functions. Any other attribute is a stub that
raises when called from Python.
"""


class constexpr:
    """`BLOCK: tl.constexpr` marks a compile-time parameter; `X =
    tl.constexpr(3)` (or `X: tl.constexpr = 3`) a module constant."""

    def __init__(self, value=None):
        self.value = getattr(value, "value", value)

    def __repr__(self):
        return f"constexpr({self.value!r})"

    def __index__(self):
        return int(self.value)

    def __int__(self):
        return int(self.value)

    def __float__(self):
        return float(self.value)

    def __bool__(self):
        return bool(self.value)

    def __eq__(self, other):
        return self.value == getattr(other, "value", other)

    def __hash__(self):
        return hash(self.value)


class dtype:
    """A tile element type; `name` is tilec's signature name."""

    def __init__(self, name, tilec_name, bits):
        self.name = name
        self.tilec_name = tilec_name
        self.primitive_bitwidth = bits

    def __repr__(self):
        return f"tl.{self.name}"

    def is_floating(self):
        return self.tilec_name.startswith("fp") or self.tilec_name == "bf16"


int1 = dtype("int1", "i1", 1)
int8 = dtype("int8", "i8", 8)
int16 = dtype("int16", "i16", 16)
int32 = dtype("int32", "i32", 32)
int64 = dtype("int64", "i64", 64)
uint8 = dtype("uint8", "u8", 8)
uint16 = dtype("uint16", "u16", 16)
uint32 = dtype("uint32", "u32", 32)
uint64 = dtype("uint64", "u64", 64)
float16 = dtype("float16", "fp16", 16)
bfloat16 = dtype("bfloat16", "bf16", 16)
float32 = dtype("float32", "fp32", 32)
float64 = dtype("float64", "fp64", 64)
float8e4nv = dtype("float8e4nv", "fp8e4nv", 8)
float8e5 = dtype("float8e5", "fp8e5", 8)
tensor = type("tensor", (), {"__doc__": "A tile (compile-time only)."})
tensor_descriptor = type("tensor_descriptor", (), {"__doc__": "A device tensor descriptor."})


def cdiv(a, b):
    return -(-a // b)


def next_power_of_2(n):
    n = int(n)
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def _stub(name):
    def f(*args, **kwargs):
        raise RuntimeError(f"tl.{name} exists only inside @tilec.jit kernels, which tilec compiles")
    f.__name__ = name
    return f


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _stub(name)
