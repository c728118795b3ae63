"""Random tile programs for differential testing (issue 15).

A program is a list of SSA nodes (``Node``) over a 2-D launch grid: every
node is a tile (or a scalar) with a dtype and a shape made of the block
sizes ``BM``/``BN``/``BK``. ``Program.source()`` prints it as a `.tile`
(Triton) kernel; ``evaluate()`` computes, for every program instance at
once (a leading axis P of the numpy arrays), the float64 / exact-integer
value of every node together with

* a bound on its absolute error (the rounding of each operation to its
  dtype, the approximation error of the GPU's special functions, the
  reassociation of reductions), so a backend's result ``out`` is right when
  ``|out - ref| <= 2 * err`` (integers and bit operations: ``err == 0``,
  exact). ``err == 0`` means the backend holds exactly ``ref``: fp64 and
  fp8 operations that every backend rounds correctly keep it so on exact
  operands, with ``ref`` the rounded value (``Program._round_out``);
* an "unsure" mask: elements whose value depends on a comparison or a
  rounding that the error bound cannot decide (``a < b`` with ``|a - b|``
  within the error, a float-to-int conversion next to an integer). They are
  not compared.

Programs are free of undefined behaviour by construction: the generator
evaluates each candidate node on the program's own inputs and drops it when
any element (masked lanes included, since loads always give ``other``)
would overflow a signed integer, divide by zero, shift by the width or
more, leave a float type's range, produce a NaN or convert an out-of-range
float to an integer.
"""

import math
import random

import numpy as np

FP8 = ["fp8e4nv", "fp8e5"]
FLOATS = ["fp32", "fp16", "bf16", "fp64"] + FP8
SINTS = ["i8", "i16", "i32", "i64"]
UINTS = ["u8", "u32"]
INTS = SINTS + UINTS
TL = {"fp32": "tl.float32", "fp16": "tl.float16", "bf16": "tl.bfloat16",
      "fp64": "tl.float64", "fp8e4nv": "tl.float8e4nv", "fp8e5": "tl.float8e5",
      "i1": "tl.int1", "i8": "tl.int8",
      "i16": "tl.int16", "i32": "tl.int32", "i64": "tl.int64",
      "u8": "tl.uint8", "u16": "tl.uint16", "u32": "tl.uint32",
      "u64": "tl.uint64"}
NP_STORE = {"fp32": np.float32, "fp16": np.float16, "bf16": np.uint16,
            "fp64": np.float64, "fp8e4nv": np.uint8, "fp8e5": np.uint8,
            "i1": np.int8, "i8": np.int8,
            "i16": np.int16, "i32": np.int32, "i64": np.int64,
            "u8": np.uint8, "u16": np.uint16, "u32": np.uint32}
BITS = {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64, "u8": 8,
        "u16": 16, "u32": 32, "fp16": 16, "bf16": 16, "fp32": 32,
        "fp64": 64, "fp8e4nv": 8, "fp8e5": 8}
# unit roundoff; TINY: the absolute error of rounding near zero (the
# smallest normal: a backend may flush denormals; fp8: half the spacing of
# its subnormals, which every backend keeps); BIG: the largest magnitude we
# allow (well inside range; fp8: the largest finite value, since Triton's
# conversions saturate there but its arithmetic need not)
UNIT = {"fp32": 2.0 ** -24, "fp16": 2.0 ** -11, "bf16": 2.0 ** -8,
        "fp64": 2.0 ** -53, "fp8e4nv": 2.0 ** -4, "fp8e5": 2.0 ** -3}
TINY = {"fp32": 2.0 ** -126, "fp16": 2.0 ** -14, "bf16": 2.0 ** -126,
        "fp64": 2.0 ** -1022, "fp8e4nv": 2.0 ** -10, "fp8e5": 2.0 ** -17}
BIG = {"fp32": 1e30, "fp16": 3e4, "bf16": 1e30, "fp64": 1e200,
       "fp8e4nv": 448.0, "fp8e5": 57344.0}
# relative / absolute error of the GPU's approximate special functions
# (ex2.approx, lg2.approx, rsqrt.approx: about 2 ulp of fp32), with margin
APPROX_REL = 2.0 ** -18
APPROX_ABS = 2.0 ** -19
# fp64 special functions: the CPU calls libm (glibc: exp, log, sin, cos
# within 1 ulp, tanh and erf within a few), the GPU libdevice (__nv_exp ...:
# 1 or 2 ulp), rsqrt is 1 / sqrt (two roundings) on the CPU and sigmoid
# 1 / (1 + exp(-x)); the reference's numpy functions are within a few ulp
# too. 32 ulp of margin: still 2^30 tighter than an fp32 approximation.
APPROX_REL64 = 2.0 ** -48
APPROX_ABS64 = 2.0 ** -52


def _fp8_table(ebits, mbits, fn):
    """The 256 values of an fp8 format (fn: no infinities, one NaN code
    0x7f/0xff, as e4m3fn; else IEEE-like, as e5m2)."""
    bias = (1 << (ebits - 1)) - 1
    vals = np.empty(256)
    for c in range(256):
        s = -1.0 if c & 0x80 else 1.0
        e = (c >> mbits) & ((1 << ebits) - 1)
        m = c & ((1 << mbits) - 1)
        if fn and e == (1 << ebits) - 1 and m == (1 << mbits) - 1:
            v = np.nan
        elif not fn and e == (1 << ebits) - 1:
            v = np.inf if m == 0 else np.nan
        elif e == 0:
            v = m * 2.0 ** (1 - bias - mbits)
        else:
            v = (1 + m / (1 << mbits)) * 2.0 ** (e - bias)
        vals[c] = s * v
    return vals


FP8_VALUES = {"fp8e4nv": _fp8_table(4, 3, True), "fp8e5": _fp8_table(5, 2, False)}
# the finite non-negative values in code order (increasing): e4m3 0 .. 448,
# e5m2 0 .. 57344
FP8_POS = {k: v[:128][np.isfinite(v[:128])] for k, v in FP8_VALUES.items()}


def fp8_round(x, dt):
    """float64 -> the nearest fp8 value, ties to the even code, saturating
    at the largest finite value (cvt.rn.satfinite: Hopper's conversion,
    Triton's and tilec's on both backends); as float64."""
    x = np.asarray(x, dtype=np.float64)
    pos = FP8_POS[dt]
    a = np.minimum(np.abs(x), pos[-1])
    k = np.clip(np.searchsorted(pos, a, side="right") - 1, 0, len(pos) - 2)
    lo, hi = pos[k], pos[k + 1]
    mid = (lo + hi) / 2
    up = (a > mid) | ((a == mid) & (k % 2 == 1))
    r = np.where(a >= pos[-1], pos[-1], np.where(up, hi, lo))
    return np.where(np.signbit(x), -r, r)


def two_product_exact(a, b):
    """Whether the float64 product a * b is exact (Dekker's TwoProduct: the
    rounding error of fl(a * b) is zero). Tiny or huge products count as
    inexact (the splitting would under- or overflow)."""
    with np.errstate(all="ignore"):
        a = np.asarray(a, dtype=np.float64)
        b = np.asarray(b, dtype=np.float64)
        p = a * b

        def split(x):
            c = 134217729.0 * x
            hi = c - (c - x)
            return hi, x - hi
        ah, al = split(a)
        bh, bl = split(b)
        err = ((ah * bh - p) + ah * bl + al * bh) + al * bl
        ok = (np.abs(a) < 1e150) & (np.abs(b) < 1e150) & \
            ((np.abs(p) > 1e-280) | (a == 0) | (b == 0))
        return (err == 0) & ok


def is_float(dt):
    return dt in FLOATS


def is_fp8(dt):
    return dt in FP8


def is_int(dt):
    return dt in INTS or dt in ("u16",)


def is_signed(dt):
    return dt in SINTS


def int_range(dt):
    b = BITS[dt]
    if dt == "i1":
        return 0, 1
    if is_signed(dt):
        return -(1 << (b - 1)), (1 << (b - 1)) - 1
    return 0, (1 << b) - 1


def wrap(v, dt):
    """Integers modulo 2^bits read in dt's signedness (v: int64 array)."""
    b = BITS[dt]
    if dt == "i1":
        return (v != 0).astype(np.int64)
    if b == 64:
        return v.astype(np.int64)
    m = np.int64(1) << np.int64(b)
    v = np.bitwise_and(v, m - 1)
    if is_signed(dt):
        v = np.where(v >= (m >> 1), v - m, v)
    return v


def bf16_round(x):
    """float64 -> nearest-even bf16 value (as float64)."""
    f = np.asarray(x, dtype=np.float32)
    b = f.view(np.uint32).astype(np.uint64)
    b = (b + 0x7FFF + ((b >> 16) & 1)) >> 16
    return (b.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def round_to(x, dt):
    if dt == "fp32":
        return np.asarray(x).astype(np.float32).astype(np.float64)
    if dt == "fp16":
        return np.asarray(x).astype(np.float16).astype(np.float64)
    if dt == "bf16":
        return bf16_round(x)
    if is_fp8(dt):
        return fp8_round(x, dt)
    return np.asarray(x, dtype=np.float64)


def to_bits(x, dt):
    """Values (float64 / int64) -> the raw array a backend reads."""
    if dt == "bf16":
        f = np.asarray(x, dtype=np.float32)
        return (f.view(np.uint32) >> 16).astype(np.uint16)
    if is_fp8(dt):
        # the code of each (representable) value; -0.0 keeps its sign
        x = np.asarray(x, dtype=np.float64)
        k = np.searchsorted(FP8_POS[dt], np.abs(x))
        return (k | np.where(np.signbit(x), 0x80, 0)).astype(np.uint8)
    if dt == "i1":
        return np.asarray(x).astype(np.int8)
    return np.asarray(x).astype(NP_STORE[dt])


def from_bits(raw, dt):
    """Raw array of dt -> float64 / int64 values."""
    if dt == "bf16":
        return (raw.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    if is_fp8(dt):
        return FP8_VALUES[dt][np.asarray(raw).astype(np.uint8)]
    if is_float(dt):
        return raw.astype(np.float64)
    if dt == "i1":
        return (raw != 0).astype(np.int64)
    return raw.astype(np.int64)


def bshape(*shapes):
    """Broadcast of tile shapes (dims are names or 1; () is a scalar)."""
    shapes = [sh for sh in shapes if len(sh)]
    if not shapes:
        return ()
    out = list(shapes[0])
    for sh in shapes[1:]:
        for k, d in enumerate(sh):
            if out[k] == 1:
                out[k] = d
    return tuple(out)


class Unsafe(Exception):
    """The candidate node would have undefined behaviour on these inputs."""


class Node:
    """One SSA value. kind: see Program._eval_node; args: operand node ids;
    shape: tuple of dim names ('BM', 'BN', 'BK') or () for a scalar."""

    def __init__(self, kind, dtype, shape, args=(), **attrs):
        self.kind = kind
        self.dtype = dtype
        self.shape = tuple(shape)
        self.args = list(args)
        self.attrs = attrs

    def copy(self):
        n = Node(self.kind, self.dtype, self.shape, list(self.args),
                 **dict(self.attrs))
        return n


def fmt_const(c, dt):
    if is_float(dt):
        r = repr(float(c))
        return "(" + r + ")" if c < 0 else r
    return "(" + str(int(c)) + ")" if c < 0 else str(int(c))


class Program:
    """A generated kernel: nodes, stores, arrays (the inputs), launch."""

    def __init__(self):
        self.nodes = []          # list of Node (index = id); None = deleted
        self.dims = {}           # 'BM' -> int
        self.grid = (1, 1)
        self.M = self.N = self.K = 1
        self.arrays = {}         # name -> (dtype, numpy raw array, role)
        self.scalars = {}        # name -> (dtype, value)
        self.trip = 0            # run-time trip count T
        self.stores = []         # list of store dicts
        self.num_warps = 4
        self.flag = 0            # constexpr FLAG for static ifs

    # ---- helpers -------------------------------------------------------
    def add(self, node):
        self.nodes.append(node)
        return len(self.nodes) - 1

    def shape_of(self, names):
        return tuple(self.dims[d] if isinstance(d, str) else d for d in names)

    # ---- printing ------------------------------------------------------
    def params(self):
        """[(name, signature entry)] in kernel order."""
        ps = []
        for name, (dt, raw, role) in self.arrays.items():
            ps.append((name, "*" + dt + ":16"))
        ps.append(("M", "i32"))
        ps.append(("N", "i32"))
        ps.append(("K", "i32"))
        ps.append(("T", "i32"))
        for name, (dt, v) in self.scalars.items():
            ps.append((name, dt))
        for d in ("BM", "BN", "BK"):
            ps.append((d, str(self.dims[d])))
        ps.append(("FLAG", str(self.flag)))
        return ps

    def signature(self):
        return ", ".join(e for _, e in self.params())

    def scalar_args(self):
        out = {"M": self.M, "N": self.N, "K": self.K, "T": self.trip}
        for name, (dt, v) in self.scalars.items():
            out[name] = v
        return out

    def live(self):
        """Ids of nodes reachable from the stores."""
        seen = set()
        stack = []
        for st in self.stores:
            stack.extend(st["args"])
        while stack:
            i = stack.pop()
            if i in seen:
                continue
            seen.add(i)
            stack.extend(self.nodes[i].args)
            stack.extend(self.nodes[i].attrs.get("extra", []))
        return seen

    def source(self):
        names = [p for p, _ in self.params()]
        lines = ["import triton", "import triton.language as tl", "", "",
                 "@triton.jit",
                 "def kernel(" + ", ".join(
                     n + (": tl.constexpr" if n in ("BM", "BN", "BK", "FLAG")
                          else "") for n in names) + "):",
                 "    pid0 = tl.program_id(0)",
                 "    pid1 = tl.program_id(1)",
                 "    rm = pid0 * BM + tl.arange(0, BM)",
                 "    rn = pid1 * BN + tl.arange(0, BN)",
                 "    rk = tl.arange(0, BK)",
                 "    mask = (rm[:, None] < M) & (rn[None, :] < N)"]
        live = self.live()
        for i, n in enumerate(self.nodes):
            if n is None or i not in live:
                continue
            for ln in self._print_node(i, n):
                lines.append("    " + ln)
        for st in self.stores:
            lines.extend("    " + ln for ln in self._print_store(st))
        return "\n".join(lines) + "\n"

    def _v(self, i):
        return "t%d" % i

    def _print_node(self, i, n):
        a = [self._v(j) for j in n.args]
        t = self._v(i)
        k = n.kind
        at = n.attrs
        if k == "scalar":
            return ["%s = %s" % (t, at["name"])]
        if k == "pid":
            return ["%s = pid%d" % (t, at["axis"])]
        if k == "load2d":
            arr = at["arr"]
            return ["%s = tl.load(%s + rm[:, None] * %d + rn[None, :], mask=mask, other=%s)"
                    % (t, arr, at["stride"], fmt_const(at["other"], n.dtype))]
        if k == "loadvec":
            arr = at["arr"]
            idx = "rn" if at["axis"] == 1 else "rm"
            lim = "N" if at["axis"] == 1 else "M"
            ex = "[None, :]" if at["axis"] == 1 else "[:, None]"
            return ["%s = tl.load(%s + %s, mask=%s < %s, other=%s)%s"
                    % (t, arr, idx, idx, lim, fmt_const(at["other"], n.dtype), ex)]
        if k == "bload":
            arr = at["arr"]
            return ["%s_p = tl.make_block_ptr(base=%s, shape=(M, N), strides=(%d, 1), "
                    "offsets=(pid0 * BM, pid1 * BN), block_shape=(BM, BN), order=(1, 0))"
                    % (t, arr, at["stride"]),
                    "%s = tl.load(%s_p, boundary_check=(0, 1), padding_option=\"zero\")"
                    % (t, t)]
        if k == "loadA":   # BM x BK from (M, K)
            return ["%s = tl.load(%s + rm[:, None] * %d + rk[None, :], "
                    "mask=(rm[:, None] < M) & (rk[None, :] < K), other=%s)"
                    % (t, at["arr"], at["stride"], fmt_const(0, n.dtype))]
        if k == "loadB":   # BK x BN from (K, N)
            return ["%s = tl.load(%s + rk[:, None] * %d + rn[None, :], "
                    "mask=(rk[:, None] < K) & (rn[None, :] < N), other=%s)"
                    % (t, at["arr"], at["stride"], fmt_const(0, n.dtype))]
        if k == "un":
            op = at["op"]
            if op == "neg":
                return ["%s = -%s" % (t, a[0])]
            if op == "not":
                return ["%s = ~%s" % (t, a[0])]
            return ["%s = tl.%s(%s)" % (t, op, a[0])]
        if k == "bin":
            op = at["op"]
            rhs = a[1] if len(a) > 1 else fmt_const(
                at["c"], at.get("cdt") or self.nodes[n.args[0]].dtype)
            if op in ("maximum", "minimum"):
                return ["%s = tl.%s(%s, %s)" % (t, op, a[0], rhs)]
            return ["%s = %s %s %s" % (t, a[0], op, rhs)]
        if k == "fma":
            return ["%s = tl.fma(%s, %s, %s)" % (t, a[0], a[1], a[2])]
        if k == "where":
            return ["%s = tl.where(%s, %s, %s)" % (t, a[0], a[1], a[2])]
        if k == "cast":
            if at.get("bitcast"):
                return ["%s = %s.to(%s, bitcast=True)" % (t, a[0], TL[n.dtype])]
            return ["%s = %s.to(%s)" % (t, a[0], TL[n.dtype])]
        if k == "reduce":
            op = at["op"]
            ex = "[None, :]" if at["axis"] == 0 else "[:, None]"
            return ["%s = tl.%s(%s, axis=%d)%s" % (t, op, a[0], at["axis"], ex)]
        if k == "scan":
            return ["%s = tl.cumsum(%s, axis=%d, reverse=%s)"
                    % (t, a[0], at["axis"], at["reverse"])]
        if k == "dot":
            extra = ""
            if at.get("ieee"):
                extra = ", input_precision=\"ieee\""
            return ["%s = tl.dot(%s, %s%s)" % (t, a[0], a[1], extra)]
        if k == "loop":
            # acc = init; for i in range(0, T): acc = acc OP f(load slice i)
            lines = ["%s = tl.zeros((BM, BN), dtype=%s)" % (t, TL[n.dtype])
                     if at["init"] == 0 else
                     "%s = tl.full((BM, BN), %s, dtype=%s)" % (t, fmt_const(at["init"], n.dtype), TL[n.dtype]),
                     "for i in %s(0, T):" % at["rng"],
                     "    %s_x = tl.load(%s + i * (M * %d) + rm[:, None] * %d + rn[None, :], mask=mask, other=%s)"
                     % (t, at["arr"], at["stride"], at["stride"], fmt_const(at["other"], n.dtype))]
            if a:
                lines.append("    %s_x = %s_x %s %s" % (t, t, at["bop"], a[0]))
            if at["op"] in ("maximum", "minimum"):
                lines.append("    %s = tl.%s(%s, %s_x)" % (t, at["op"], t, t))
            else:
                lines.append("    %s = %s %s %s_x" % (t, t, at["op"], t))
            return lines
        if k == "ifdyn":
            lines = ["if FLAG:" if at.get("static") else "if %s:" % at["cond"],
                     "    %s = %s" % (t, a[0]),
                     "else:",
                     "    %s = %s" % (t, a[1])]
            return lines
        raise ValueError(k)

    def _print_store(self, st):
        a = [self._v(j) for j in st["args"]]
        o = st["arr"]
        if st["kind"] == "store2d":
            return ["tl.store(%s + rm[:, None] * %d + rn[None, :], %s, mask=mask)"
                    % (o, st["stride"], a[0])]
        if st["kind"] == "bstore":
            return ["%s_p = tl.make_block_ptr(base=%s, shape=(M, N), strides=(%d, 1), "
                    "offsets=(pid0 * BM, pid1 * BN), block_shape=(BM, BN), order=(1, 0))"
                    % (o, o, st["stride"]),
                    "tl.store(%s_p, %s, boundary_check=(0, 1))" % (o, a[0])]
        if st["kind"] == "atomic":
            m = "mask" if len(a) == 1 else "mask & %s" % a[1]
            return ["tl.atomic_%s(%s + (rm[:, None] %% %d) * BN + (rn[None, :] %% BN), %s, mask=%s)"
                    % (st["op"], o, st["rows"], a[0], m)]
        raise ValueError(st["kind"])

    # ---- evaluation ----------------------------------------------------
    def eval_all(self, upto=None, check=True):
        """Values of every node: list of (val, err, unsure) or None."""
        P = self.grid[0] * self.grid[1]
        self._P = P
        p = np.arange(P)
        self._pid = (p // self.grid[1], p % self.grid[1])
        BM, BN, BK = self.dims["BM"], self.dims["BN"], self.dims["BK"]
        self._rm = (self._pid[0][:, None] * BM + np.arange(BM)[None, :])  # P x BM
        self._rn = (self._pid[1][:, None] * BN + np.arange(BN)[None, :])  # P x BN
        self._rk = np.arange(BK)
        self._mask = (self._rm[:, :, None] < self.M) & (self._rn[:, None, :] < self.N)
        vals = []
        live = self.live() if upto is None else None
        for i, n in enumerate(self.nodes):
            if n is None or (live is not None and i not in live) or \
               (upto is not None and i > upto):
                vals.append(None)
                continue
            vals.append(self._eval_node(n, vals, check))
        return vals

    def _bshape(self, x, shape):
        """Array of node shape `shape` (P leading) -> P x BM x BN broadcast form."""
        if len(shape) == 0:
            return x.reshape((-1, 1, 1))
        return x

    def _load(self, arr, idx_r, idx_c, stride, mask, other, dt):
        dt_, raw, role = self.arrays[arr]
        vals = from_bits(raw, dt_)
        flat = idx_r * stride + idx_c
        flat = np.where(mask, flat, 0)
        v = np.where(mask, vals[flat], other)
        return v

    def _eval_node(self, n, vals, check):
        k = n.kind
        at = n.attrs
        dt = n.dtype
        P = self._P
        args = [vals[j] for j in n.args]
        if any(x is None for x in args):
            raise Unsafe("operand not evaluated")
        full = (P,) + self.shape_of(n.shape)

        def zero_err(v):
            return np.zeros(np.shape(v)), np.zeros(np.shape(v), dtype=bool)

        if k == "scalar":
            v = np.full((P,), self.scalars[at["name"]][1],
                        dtype=np.float64 if is_float(dt) else np.int64)
            if is_float(dt):
                v = round_to(v, dt)   # the argument is passed as dt
            return (v,) + zero_err(v)
        if k == "pid":
            v = self._pid[at["axis"]].astype(np.int64)
            return (v,) + zero_err(v)
        if k in ("load2d", "bload"):
            other = 0 if k == "bload" else at["other"]
            v = self._load(at["arr"], self._rm[:, :, None], self._rn[:, None, :],
                           at["stride"], self._mask, other, dt)
            if is_float(dt):
                v = v.astype(np.float64)
            else:
                v = v.astype(np.int64)
            return (v,) + zero_err(v)
        if k == "loadvec":
            if at["axis"] == 1:
                idx = self._rn
                m = idx < self.N
                v = self._load(at["arr"], 0, idx, 0, m, at["other"], dt)[:, None, :]
            else:
                idx = self._rm
                m = idx < self.M
                v = self._load(at["arr"], 0, idx, 0, m, at["other"], dt)[:, :, None]
            v = v.astype(np.float64 if is_float(dt) else np.int64)
            return (v,) + zero_err(v)
        if k == "loadA":
            r = self._rm[:, :, None]
            c = self._rk[None, None, :]
            m = (r < self.M) & (c < self.K)
            v = self._load(at["arr"], r, c, at["stride"], m, 0, dt)
            v = v.astype(np.float64 if is_float(dt) else np.int64)
            return (v,) + zero_err(v)
        if k == "loadB":
            r = self._rk[None, :, None]
            c = self._rn[:, None, :]
            m = (r < self.K) & (c < self.N)
            v = self._load(at["arr"], r, c, at["stride"], m, 0, dt)
            v = v.astype(np.float64 if is_float(dt) else np.int64)
            return (v,) + zero_err(v)
        if k == "un":
            return self._unary(at["op"], dt, args[0], check)
        if k == "bin" and at.get("cdt"):
            # mixed dtypes: both operands converted to Triton's computation
            # type first (computation_type_impl)
            cdt = at["cdt"]
            a = args[0]
            if len(args) == 1:   # a Python float with an integer tile
                b = (np.float64(at["c"]), np.float64(0), np.bool_(False))
            else:
                b = args[1]
                if len(self.nodes[n.args[1]].shape) == 0 and len(self.nodes[n.args[0]].shape) > 0:
                    b = tuple(x.reshape((-1, 1, 1)) for x in b)
                b = self._cast(self.nodes[n.args[1]].dtype, cdt, b, False, check) \
                    if self.nodes[n.args[1]].dtype != cdt else b
            a = self._cast(self.nodes[n.args[0]].dtype, cdt, a, False, check) \
                if self.nodes[n.args[0]].dtype != cdt else a
            return self._binary(at["op"], cdt, dt, a, b, check)
        if k == "bin":
            a = args[0]
            if len(args) > 1:
                b = args[1]
                if len(self.nodes[n.args[1]].shape) == 0 and len(self.nodes[n.args[0]].shape) > 0:
                    b = tuple(x.reshape((-1, 1, 1)) for x in b)
                if len(self.nodes[n.args[0]].shape) == 0 and len(self.nodes[n.args[1]].shape) > 0:
                    a = tuple(x.reshape((-1, 1, 1)) for x in a)
            else:
                c = at["c"]
                b = (np.float64(c) if is_float(self.nodes[n.args[0]].dtype) else np.int64(c),
                     np.float64(0), np.bool_(False))
            return self._binary(at["op"], self.nodes[n.args[0]].dtype, dt, a, b, check)
        if k == "fma":
            a, b, c = args
            # one rounding: the product is exact in float64 for the narrower
            # types; an fp64 product is rounded (its error counted), which
            # fl(fl(a * b) + c) and fma(a, b, c) both lie within
            r = self._binary("*", dt, dt if dt == "fp64" else "exact", a, b, check)
            return self._binary("+", dt, dt, r, c, check)
        if k == "where":
            c, a, b = args
            sel = c[0] != 0
            v = np.where(sel, a[0], b[0])
            e = np.where(sel, a[1], b[1])
            u = np.where(sel, a[2], b[2]) | c[2]
            return v, e, u
        if k == "cast":
            return self._cast(self.nodes[n.args[0]].dtype, dt, args[0],
                              at.get("bitcast", False), check)
        if k == "reduce":
            v, e, u = args[0]
            ax = at["axis"] + 1
            op = at["op"]
            if op == "sum":
                r = v.sum(axis=ax, keepdims=True)
                if is_float(dt):
                    cnt = v.shape[ax]
                    er = e.sum(axis=ax, keepdims=True) + \
                        cnt * UNIT[dt] * np.abs(v).sum(axis=ax, keepdims=True) + cnt * TINY[dt]
                    self._check_float(r, er, dt, check)
                    if check and is_fp8(dt) and \
                            (np.abs(v) + e).sum(axis=ax).max(initial=0) > BIG[dt]:
                        # a partial sum in any order could saturate
                        raise Unsafe("fp8 partial sums")
                else:
                    er = np.zeros(r.shape)
                    self._check_int(r, dt, check)
            elif op in ("max", "min"):
                r = v.max(axis=ax, keepdims=True) if op == "max" else v.min(axis=ax, keepdims=True)
                er = e.max(axis=ax, keepdims=True)
            else:  # argmax / argmin on exact values
                idx = v.argmax(axis=ax) if op == "argmax" else v.argmin(axis=ax)
                r = np.expand_dims(idx, ax).astype(np.int64)
                er = np.zeros(r.shape)
                if e.max() > 0:
                    raise Unsafe("argmax of inexact values")
            ur = u.any(axis=ax, keepdims=True)
            return r, er, ur
        if k == "scan":
            v, e, u = args[0]
            ax = at["axis"] + 1
            if at["reverse"]:
                v, e, u = (np.flip(x, ax) for x in (v, e, u))
            r = np.cumsum(v, axis=ax)
            if is_float(dt):
                cnt = v.shape[ax]
                er = np.cumsum(e, axis=ax) + cnt * UNIT[dt] * np.cumsum(np.abs(v), axis=ax) + cnt * TINY[dt]
                self._check_float(r, er, dt, check)
            else:
                er = np.zeros(r.shape)
                self._check_int(r, dt, check)
            ur = np.logical_or.accumulate(u, axis=ax)
            if at["reverse"]:
                r, er, ur = (np.flip(x, ax) for x in (r, er, ur))
            return r, er, ur
        if k == "dot":
            a, b = args
            va, vb = a[0], b[0]
            r = np.matmul(va, vb)
            if is_float(dt):
                ad = self.nodes[n.args[0]].dtype
                uin = 2.0 ** -11 if (ad == "fp32" and not at.get("ieee")) else 0.0
                # Hopper's fp8 wgmma adds with an accumulator shorter than
                # fp32 (about 14 bits, perhaps truncating): 2^-13 an addition
                acc = 2.0 ** -13 if is_fp8(ad) else UNIT["fp32"]
                mag = np.matmul(np.abs(va) + a[1], np.abs(vb) + b[1])
                kk = va.shape[-1]
                er = np.matmul(a[1], np.abs(vb) + b[1]) + np.matmul(np.abs(va), b[1]) + \
                    mag * (2 * uin + (kk + 2) * acc) + kk * TINY["fp32"]
                self._check_float(r, er, dt, check)
            else:
                er = np.zeros(r.shape)
                self._check_int(r, dt, check)
            ur = np.matmul(a[2].astype(np.int64), np.ones((a[2].shape[-1], 1), dtype=np.int64)) > 0
            ur = ur | (np.matmul(np.ones((1, b[2].shape[-2]), dtype=np.int64), b[2].astype(np.int64)) > 0)
            ur = np.broadcast_to(ur, r.shape)
            return r, er, ur
        if k == "loop":
            init = at["init"]
            acc = (np.full(full, init, dtype=np.float64 if is_float(dt) else np.int64),
                   np.zeros(full), np.zeros(full, dtype=bool))
            dt_, raw, role = self.arrays[at["arr"]]
            for it in range(self.trip):
                x = self._load(at["arr"], self._rm[:, :, None] + it * self.M, self._rn[:, None, :],
                               at["stride"], self._mask, at["other"], dt)
                x = from_bits(to_bits(x, dt), dt) if is_float(dt) else x.astype(np.int64)
                x = (x, np.zeros(full), np.zeros(full, dtype=bool))
                if args:
                    x = self._binary(at["bop"], dt, dt, x, args[0], check)
                if at["op"] in ("maximum", "minimum"):
                    acc = self._binary(at["op"], dt, dt, acc, x, check)
                else:
                    acc = self._binary(at["op"], dt, dt, acc, x, check)
            return acc
        if k == "ifdyn":
            a, b = args
            if at.get("static"):
                sel = np.full((P,), bool(self.flag))
            elif at["pk"] == "T":
                sel = np.full((P,), self.trip > at["th"])
            elif at["pk"] == "pid":
                sel = (self._pid[0] % 2) == at["th"]
            else:
                sel = np.full((P,), self.scalars["s0"][1] > at["th"])
            sel = sel.reshape((-1,) + (1,) * (a[0].ndim - 1))
            return tuple(np.where(sel, x, y) for x, y in zip(a, b))
        raise ValueError(k)

    # numerics ----------------------------------------------------------
    def _check_float(self, v, e, dt, check):
        if not check:
            return
        if not np.all(np.isfinite(v)) or not np.all(np.isfinite(e)):
            raise Unsafe("non-finite")
        if np.abs(v).max(initial=0) + e.max(initial=0) > BIG[dt]:
            raise Unsafe("float range")

    def _check_int(self, v, dt, check):
        if not check or dt == "i1":
            return
        lo, hi = int_range(dt)
        if is_signed(dt):
            # keep a margin (a backend may differ by one where unsure)
            lo, hi = lo // 2, hi // 2
        if v.size and (v.min() < lo or v.max() > hi):
            raise Unsafe("integer range")

    def _float_out(self, dt, r, e):
        """Add the rounding of r to dt (and denormal flushing) to e."""
        rr = round_to(r, dt)
        exact = (rr == r) & (e == 0)
        e = np.where(exact, 0.0, e + UNIT[dt] * np.abs(r) + TINY[dt])
        return e

    def _round_out(self, dt, r, e, exact, check, saturate=False):
        """(value, error) of an operation's result r in dt, from the exact
        result r on the operands' references and the error e it inherits.

        fp32, fp16, bf16: r stays, the rounding is counted in the error
        (zero only where r is representable and e zero).

        fp64 and fp8 model the rounding exactly where the operands are
        (e == 0 means the backend holds exactly the reference's value) and
        the operation is correctly rounded on every backend (`exact`: a
        bool or a mask): fp64 +, -, /, sqrt and products that are exact (a
        backend may contract a product into an fma, skipping its rounding);
        fp8 arithmetic (computed in f32, exact for +, - and *, and within
        2.5 ulp of f32 for /, which fp8's midpoints are never that close
        to) and conversions. There the reference is the rounded value
        (numpy's float64 operation is IEEE; fp8: fp8_round) with error 0,
        so that a backend must match it bit for bit; elsewhere the rounding
        is counted in the error. fp8 results beyond the largest finite
        value are left out (Unsafe), except for conversions (`saturate`),
        where they saturate as cvt.rn.satfinite does."""
        e = np.broadcast_to(np.asarray(e, dtype=np.float64), np.shape(r))
        if dt not in ("fp64",) and not is_fp8(dt):
            return r, self._float_out(dt, r, e.copy())
        ex = (e == 0) & exact
        if is_fp8(dt):
            if check and not saturate and (np.abs(r) + e).max(initial=0) > BIG[dt]:
                raise Unsafe("fp8 range")
            rc = np.clip(r, -BIG[dt], BIG[dt])
            v = np.where(ex, fp8_round(rc, dt), rc)
            return v, np.where(ex, 0.0, e + UNIT[dt] * np.abs(rc) + TINY[dt])
        return r, np.where(ex, 0.0, e + UNIT[dt] * np.abs(r) + TINY[dt])

    def _unary(self, op, dt, a, check):
        v, e, u = a
        if is_int(dt) or dt == "i1":
            if op == "neg":
                r = -v
            elif op == "abs":
                r = np.abs(v)
            elif op == "not":
                r = ~v
            else:
                raise ValueError(op)
            if not is_signed(dt):
                r = wrap(r, dt)
            self._check_int(r, dt, check)
            return r, np.zeros(r.shape), u
        # the special functions' error: the GPU's fp32 approximations, or
        # fp64's libm / libdevice
        arel, aabs = (APPROX_REL64, APPROX_ABS64) if dt == "fp64" else (APPROX_REL, APPROX_ABS)
        with np.errstate(all="ignore"):
            if op == "neg":
                return -v, e, u
            if op == "abs":
                return np.abs(v), e, u
            if op in ("floor", "ceil"):
                r = np.floor(v) if op == "floor" else np.ceil(v)
                lo = np.floor(v - e) if op == "floor" else np.ceil(v - e)
                hi = np.floor(v + e) if op == "floor" else np.ceil(v + e)
                return r, np.zeros(r.shape), u | (lo != hi)
            if op in ("exp", "exp2"):
                base = math.e if op == "exp" else 2.0
                if check and v.max(initial=0) + e.max(initial=0) > 60:
                    raise Unsafe("exp range")
                r = np.power(base, v)
                er = r * (np.power(base, e) - 1) + arel * r
            elif op in ("log", "log2"):
                if check and (v - e).min(initial=1) < 0.05:
                    raise Unsafe("log domain")
                r = np.log(v) if op == "log" else np.log2(v)
                s = 1.0 if op == "log" else 1 / math.log(2)
                er = s * e / np.maximum(v - e, 1e-300) + aabs + arel * np.abs(r)
            elif op == "sqrt":
                if check and (v - e).min(initial=1) < 0:
                    raise Unsafe("sqrt domain")
                r = np.sqrt(v)
                er = np.minimum(np.sqrt(e), e / np.maximum(2 * np.sqrt(np.maximum(v - e, 0)), 1e-300))
            elif op == "rsqrt":
                if check and (v - e).min(initial=1) < 0.05:
                    raise Unsafe("rsqrt domain")
                r = 1 / np.sqrt(v)
                er = 0.5 * e * (np.maximum(v - e, 1e-300) ** -1.5) + arel * r
            elif op in ("sin", "cos"):
                if check and np.abs(v).max(initial=0) > 100:
                    raise Unsafe("trig range")
                r = np.sin(v) if op == "sin" else np.cos(v)
                er = e + aabs + (arel * np.abs(r) if dt == "fp64" else 0)
            elif op == "tanh":
                r = np.tanh(v)
                er = e + aabs + arel * np.abs(r)
            elif op == "sigmoid":
                r = 1 / (1 + np.exp(-v))
                er = e / 4 + aabs + arel * np.abs(r)
            elif op == "erf":
                r = np.vectorize(math.erf, otypes=[np.float64])(v) if v.size else v
                er = e * 1.13 + aabs + (arel * np.abs(r) if dt == "fp64" else 0)
            else:
                raise ValueError(op)
        # IEEE sqrt (sqrt.rn, sqrtsd) is exact-rounded; the rest not
        r, er = self._round_out(dt, r, er, op == "sqrt", check)
        er = np.where(er == 0, 0, er)
        self._check_float(r, er, dt, check)
        return r, er, u

    def _binary(self, op, sdt, dt, a, b, check):
        va, ea, ua = a
        vb, eb, ub = b
        u = ua | ub
        if op in ("<", "<=", ">", ">=", "==", "!="):
            f = {"<": np.less, "<=": np.less_equal, ">": np.greater,
                 ">=": np.greater_equal, "==": np.equal, "!=": np.not_equal}[op]
            r = f(va, vb).astype(np.int64)
            if is_float(sdt):
                u = u | (np.abs(va - vb) <= ea + eb) & ((ea + eb) > 0)
            return r, np.zeros(r.shape), np.broadcast_to(u, r.shape)
        if sdt == "i1":
            r = {"&": np.bitwise_and, "|": np.bitwise_or, "^": np.bitwise_xor}[op](va, vb)
            return r, np.zeros(r.shape), np.broadcast_to(u, r.shape)
        if is_int(sdt):
            if op == "+":
                r = va + vb
            elif op == "-":
                r = va - vb
            elif op == "*":
                if check and is_signed(sdt):
                    mag = np.abs(va.astype(np.float64)) * np.abs(vb.astype(np.float64))
                    if mag.max(initial=0) > 2.0 ** 62:
                        raise Unsafe("mul range")
                if sdt == "u32" or sdt == "u8":
                    r = (va * vb) & 0xFFFFFFFF  # exact: both < 2^32
                    r = wrap(np.asarray(r), sdt)
                else:
                    r = va * vb
            elif op in ("//", "%"):
                if check and (np.abs(vb).min(initial=2) < 2 if np.ndim(vb) else abs(int(vb)) < 2):
                    raise Unsafe("division by zero")
                vb_ = np.where(vb == 0, 1, vb)
                q = np.abs(va) // np.abs(vb_)
                q = np.where((va < 0) != (vb_ < 0), -q, q)
                r = q if op == "//" else va - q * vb_
            elif op in ("&", "|", "^"):
                r = {"&": np.bitwise_and, "|": np.bitwise_or, "^": np.bitwise_xor}[op](va, vb)
            elif op in ("<<", ">>"):
                s = int(vb)
                if check and not (0 <= s < BITS[sdt]):
                    raise Unsafe("shift")
                if op == "<<":
                    if is_signed(sdt):
                        r = va * (1 << s)
                    else:
                        r = wrap(va << s, sdt) if BITS[sdt] < 64 else va << s
                else:
                    r = va >> s   # arithmetic for signed, logical for unsigned (non-negative)
            elif op == "maximum":
                r = np.maximum(va, vb)
            elif op == "minimum":
                r = np.minimum(va, vb)
            else:
                raise ValueError(op)
            if not is_signed(sdt):
                r = wrap(np.asarray(r, dtype=np.int64), sdt)
            r = np.asarray(r, dtype=np.int64)
            self._check_int(r, sdt, check)
            return r, np.zeros(r.shape), np.broadcast_to(u, r.shape)
        # floats (dt "exact": fma's product, not rounded)
        exact = True
        with np.errstate(all="ignore"):
            if op == "+":
                r = va + vb
                er = ea + eb
            elif op == "-":
                r = va - vb
                er = ea + eb
            elif op == "*":
                r = va * vb
                er = np.abs(va) * eb + np.abs(vb) * ea + ea * eb
                if dt == "fp64":
                    exact = two_product_exact(va, vb)
            elif op == "/":
                den = np.abs(vb) - eb
                if check and den.min(initial=1) < 0.1:
                    raise Unsafe("division near zero")
                r = va / vb
                er = (ea + np.abs(r) * eb) / np.maximum(den, 1e-300)
                if dt == "fp32":
                    # fp32 '/' may be div.full (2 ulp) where Triton asks,
                    # and x * div.full(1, d) (2.5 ulp) where d is broadcast
                    # (tile-multiply-by-reciprocal). fp64's is IEEE (Triton:
                    # div.rn.f64), fp8's is rounded once to fp8 from an f32
                    # quotient (see _round_out).
                    er = er + 5 * UNIT["fp32"] * np.abs(r)
            elif op == "maximum":
                r = np.maximum(va, vb)
                er = np.maximum(ea, eb)
                return r, er, np.broadcast_to(u, r.shape)
            elif op == "minimum":
                r = np.minimum(va, vb)
                er = np.maximum(ea, eb)
                return r, er, np.broadcast_to(u, r.shape)
            else:
                raise ValueError(op)
        if dt == "exact":
            return r, er, np.broadcast_to(u, r.shape)
        r0 = r
        r, er = self._round_out(dt, r, er, exact, check)
        self._check_float(r0, er, dt, check)
        return r, er, np.broadcast_to(u, r.shape)

    def _cast(self, sdt, dt, a, bitcast, check):
        v, e, u = a
        if bitcast:
            if check and e.max(initial=0) > 0:
                raise Unsafe("bitcast of an inexact value")
            raw = to_bits(v, sdt)
            r = from_bits(raw.view(NP_STORE[dt]), dt)
            if is_float(sdt):
                u = u | (v == 0)
            if is_float(dt):
                self._check_float(r, np.zeros(r.shape), dt, check)
            return r, np.zeros(r.shape), u
        if dt == "i1":
            r = (v != 0).astype(np.int64)
            if is_float(sdt):
                u = u | ((np.abs(v) <= e) & (e > 0))
            return r, np.zeros(r.shape), u
        if is_float(sdt) and is_int(dt):
            r = np.trunc(v)
            lo, hi = int_range(dt)
            if check and ((v - e).min(initial=0) <= lo + 1 or (v + e).max(initial=0) >= hi - 1):
                raise Unsafe("float to int range")
            u = u | (np.trunc(v - e) != np.trunc(v + e))
            r = r.astype(np.int64)
            return r, np.zeros(r.shape), u
        if (is_int(sdt) or sdt == "i1") and is_int(dt):
            return wrap(v, dt), np.zeros(v.shape), u
        if (is_int(sdt) or sdt == "i1") and is_float(dt):
            # fp64: numpy's conversion is the IEEE one; fp8: through fp32,
            # exact in range (no saturation relied on)
            r0 = v.astype(np.float64)
            r, er = self._round_out(dt, r0, np.zeros(r0.shape), True, check)
            self._check_float(r0, er, dt, check)
            return r, er, u
        # float -> float
        if is_fp8(dt):
            # rounded once to nearest even, saturating at the largest finite
            # value (cvt.rn.satfinite)
            r, er = self._round_out(dt, v, e, True, check, saturate=True)
            if check and not (np.all(np.isfinite(r)) and np.all(np.isfinite(er))):
                raise Unsafe("non-finite")
            return r, er, u
        if UNIT[dt] > UNIT[sdt] or (dt == "fp16" and sdt == "bf16"):
            # narrowing (bf16 -> fp16: a narrower range)
            er = self._float_out(dt, v, e.copy())
            self._check_float(v, er, dt, check)
            return v, er, u
        return v, e, u

    # ---- outputs ----------------------------------------------------------
    def expected(self):
        """{array: (ref values, err, unsure, written mask)} after the run."""
        vals = self.eval_all()
        out = {}
        for name, (dt, raw, role) in self.arrays.items():
            if role != "in":
                out[name] = [from_bits(raw, dt).copy(), np.zeros(raw.shape),
                             np.zeros(raw.shape, dtype=bool), np.zeros(raw.shape, dtype=bool)]
        for st in self.stores:
            o = out[st["arr"]]
            dt = self.arrays[st["arr"]][0]
            v, e, u = vals[st["args"][0]]
            sdt = self.nodes[st["args"][0]].dtype
            v, e, u = (np.broadcast_to(x, self._mask.shape) for x in (v, e, u))
            if st["kind"] in ("store2d", "bstore"):
                stride = st["stride"]
                r = np.broadcast_to(self._rm[:, :, None], self._mask.shape)
                c = np.broadcast_to(self._rn[:, None, :], self._mask.shape)
                m = self._mask
                idx = (r * stride + c)[m]
                if sdt != dt:
                    raise ValueError("store dtype")
                o[0][idx] = v[m]
                o[1][idx] = e[m]
                o[2][idx] = u[m]
                o[3][idx] = True
            else:  # atomic
                m = self._mask.copy()
                BN = self.dims["BN"]
                r = np.broadcast_to(self._rm[:, :, None] % st["rows"], m.shape)
                c = np.broadcast_to(self._rn[:, None, :] % BN, m.shape)
                if len(st["args"]) > 1:
                    mv, _, mu = vals[st["args"][1]]
                    mv, mu = (np.broadcast_to(x, m.shape) for x in (mv, mu))
                    if mu[m].any():
                        # an unsure mask element makes the whole buffer
                        # unsure, and the elements it may add to may be
                        # written (the poison check must not fail them)
                        o[2][:] = True
                        o[3][(r * BN + c)[m & ((mv != 0) | mu)]] = True
                    m = m & (mv != 0)
                idx = (r * BN + c)[m]
                vv, ee, uu = v[m], e[m], u[m]
                op = st["op"]
                if op == "add":
                    np.add.at(o[0], idx, vv)
                    np.add.at(o[1], idx, ee + (np.abs(vv) * 4 * UNIT[dt] if is_float(dt) else 0))
                elif op == "max":
                    np.maximum.at(o[0], idx, vv)
                    np.maximum.at(o[1], idx, ee)
                elif op == "min":
                    np.minimum.at(o[0], idx, vv)
                    np.maximum.at(o[1], idx, ee)
                elif op == "and":
                    np.bitwise_and.at(o[0], idx, vv.astype(np.int64))
                elif op == "or":
                    np.bitwise_or.at(o[0], idx, vv.astype(np.int64))
                elif op == "xor":
                    np.bitwise_xor.at(o[0], idx, vv.astype(np.int64))
                np.logical_or.at(o[2], idx, uu)
                o[3][idx] = True
                if is_int(dt):
                    self._check_int(o[0], dt, True)
                else:
                    if op == "add":
                        o[1] += (len(vv) + 1) * UNIT[dt] * np.abs(o[0])
                    self._check_float(o[0], o[1], dt, True)
        return out


# ---------------------------------------------------------------------------
# generation
# ---------------------------------------------------------------------------

def rand_input(rng, dt, n, kind):
    """Raw contents of an input: floats in [-2, 2] (sometimes positive or
    small integers, sometimes (kind 3) of magnitudes 2^-12 to 2^11: fp8's
    subnormals and saturation; fp8: any finite code), integers small or
    full-range."""
    if is_float(dt):
        if kind == 0:
            v = rng.uniform(-2, 2, n)
        elif kind == 1:
            v = rng.uniform(0.25, 3, n)
        elif kind == 3 and is_fp8(dt):
            codes = np.flatnonzero(np.isfinite(FP8_VALUES[dt]))
            return rng.choice(codes, n).astype(np.uint8)
        elif kind == 3:
            v = rng.uniform(-2, 2, n) * 2.0 ** rng.integers(-12, 11, n)
        else:
            v = rng.integers(-8, 9, n).astype(np.float64) * 0.5
        return to_bits(round_to(v, dt), dt)
    if kind == 3:
        kind = 0
    lo, hi = int_range(dt)
    if kind == 0:
        lo, hi = max(lo, -100), min(hi, 100)
    elif kind == 1:
        lo, hi = max(lo, 1), min(hi, 30)
    else:
        lo, hi = lo // 4, hi // 4
    return to_bits(rng.integers(lo, hi + 1, n, dtype=np.int64), dt)


class Generator:
    def __init__(self, seed, features=None):
        self.seed = seed
        self.r = random.Random(seed)
        self.nr = np.random.default_rng(seed)
        self.features = features or {"dot", "loop", "reduce", "scan", "atomic",
                                     "if", "bptr", "cast", "math", "bitcast"}

    def choice(self, xs):
        return self.r.choice(xs)

    def program(self, n_ops=None):
        r = self.r
        p = Program()
        p.dims = {"BM": r.choice([1, 2, 4, 8, 16, 32, 64]),
                  "BN": r.choice([1, 2, 4, 8, 16, 32, 64, 128])}
        while p.dims["BM"] * p.dims["BN"] > 4096:
            p.dims["BN"] //= 2
        use_dot = "dot" in self.features and r.random() < 0.2
        if use_dot:
            p.dims["BM"] = r.choice([16, 32, 64])
            p.dims["BN"] = r.choice([16, 32, 64])
            p.dims["BK"] = r.choice([16, 32, 64])
        else:
            p.dims["BK"] = 16
        p.grid = (r.choice([1, 1, 2, 3]), r.choice([1, 1, 2, 3]))
        p.M = max(1, p.grid[0] * p.dims["BM"] - r.choice([0, 0, 1, r.randrange(p.dims["BM"])]))
        p.N = max(1, p.grid[1] * p.dims["BN"] - r.choice([0, 0, 1, r.randrange(p.dims["BN"])]))
        p.K = max(1, p.dims["BK"] - r.choice([0, 0, 0, 1, r.randrange(p.dims["BK"])]))
        p.trip = r.choice([0, 1, 2, 3, 5])
        p.num_warps = r.choice([1, 2, 4, 4, 8])
        p.flag = r.choice([0, 1])
        self.p = p
        self.pool = []   # node ids usable as operands (all of shape 2-D or broadcastable)
        self.vals = {}
        self.narr = 0
        # scalars
        for s in range(r.choice([0, 1, 2])):
            dt = r.choice(["i32", "i32", "fp32"])
            v = r.randint(-20, 20) if dt == "i32" else round(r.uniform(-3, 3), 3)
            p.scalars["s%d" % s] = (dt, v)
        # the first value: a 2-D load
        dt0 = r.choice(FLOATS + INTS + ["fp32", "fp32", "i32"])
        self.new_load(dt0, force2d=True)
        if use_dot:
            self.new_dot()
        n_ops = n_ops or r.randint(3, 14)
        tries = 0
        while n_ops > 0 and tries < 200:
            tries += 1
            if self.step():
                n_ops -= 1
        self.make_stores()
        return p

    # evaluate a candidate, keep it when it is safe
    def try_add(self, node):
        p = self.p
        p.nodes.append(node)
        i = len(p.nodes) - 1
        try:
            vals = self._eval(i)
        except (Unsafe, FloatingPointError, OverflowError, ZeroDivisionError):
            p.nodes.pop()
            return None
        self.vals[i] = vals
        return i

    def _eval(self, i):
        p = self.p
        # evaluate just this node on the cached operands
        P = p.grid[0] * p.grid[1]
        vals = [self.vals.get(j) for j in range(len(p.nodes) - 1)] + [None]
        if not hasattr(p, "_P"):
            p.eval_all(upto=-1)
        return p._eval_node(p.nodes[i], vals, True)

    def new_array(self, dt, n, role="in", kind=None):
        name = "x%d" % self.narr if role == "in" else "y%d" % self.narr
        self.narr += 1
        if role == "in":
            if kind is None:
                kind = self.r.randrange(3) if self.r.random() < 0.85 else 3
            raw = rand_input(self.nr, dt, n, kind)
        else:
            raw = poison(dt, n)
        self.p.arrays[name] = (dt, raw, role)
        return name

    def new_load(self, dt, force2d=False):
        p, r = self.p, self.r
        kind = r.choice(["load2d", "load2d", "bload", "loadvec"]) if not force2d else \
            r.choice(["load2d", "bload"])
        if kind == "bload" and ("bptr" not in self.features or dt == "i1"):
            # A block pointer over *i1 loads int8 (tl.make_block_ptr treats
            # it as *i8, in Triton and in tilec), not the int1 asked for.
            kind = "load2d"
        if kind == "loadvec":
            axis = r.choice([0, 1])
            n = p.N if axis == 1 else p.M
            arr = self.new_array(dt, n)
            other = self.other(dt)
            shape = (1, "BN") if axis == 1 else ("BM", 1)
            node = Node("loadvec", dt, shape, arr=arr, axis=axis, other=other)
        else:
            stride = p.N + r.choice([0, 0, 0, 3, 16])
            arr = self.new_array(dt, max(1, p.M * stride))
            node = Node(kind, dt, ("BM", "BN"), arr=arr, stride=stride, other=self.other(dt))
        i = self.try_add(node)
        if i is not None:
            self.pool.append(i)
        return i

    def other(self, dt):
        if is_float(dt):
            return self.r.choice([0.0, 1.0, -1.5, 0.5])
        lo, hi = int_range(dt)
        return self.r.choice([0, 1, min(hi, 7)])

    def new_dot(self):
        p, r = self.p, self.r
        dt = r.choice(["fp16", "bf16", "fp32", "fp32", "i8", r.choice(FP8)])
        sa = p.K + r.choice([0, 0, 5])
        sb = p.N + r.choice([0, 0, 3])
        a = self.new_array(dt, p.M * sa, kind=0)
        b = self.new_array(dt, p.K * sb, kind=0)
        ia = self.try_add(Node("loadA", dt, ("BM", "BK"), arr=a, stride=sa))
        ib = self.try_add(Node("loadB", dt, ("BK", "BN"), arr=b, stride=sb))
        if ia is None or ib is None:
            return None
        odt = "i32" if dt == "i8" else "fp32"
        i = self.try_add(Node("dot", odt, ("BM", "BN"), [ia, ib], ieee=(dt == "fp32" and r.random() < 0.5)))
        if i is not None:
            self.pool.append(i)
        return i

    def pick(self, pred=lambda n: True):
        cands = [i for i in self.pool if pred(self.p.nodes[i])]
        if not cands:
            return None
        # prefer recent values
        w = [1 + k for k in range(len(cands))]
        return self.r.choices(cands, weights=w)[0]

    def pick_dt(self, dt):
        return self.pick(lambda n: n.dtype == dt)

    def step(self):
        """Add one random node; True when one was added."""
        p, r = self.p, self.r
        x = self.pick()
        nx = p.nodes[x]
        dt = nx.dtype
        choice = r.random()
        feats = self.features
        if choice < 0.08:
            return self.new_load(r.choice(FLOATS + INTS + [dt, dt])) is not None
        if choice < 0.14 and p.scalars:
            name = r.choice(list(p.scalars))
            sdt = p.scalars[name][0]
            s = self.try_add(Node("scalar", sdt, (), name=name))
            if s is None:
                return False
            if r.random() < 0.5:
                # a tile of another dtype with the scalar argument: a scalar
                # argument is a tensor for Triton, no weak typing
                y = self.pick(lambda n: n.dtype not in ("i1", sdt))
                if y is None:
                    return False
                cdt = computation_type(p.nodes[y].dtype, sdt, False)
                if cdt is None:
                    return False
                op = r.choice(["+", "-", "*", "maximum", "minimum", "<", "=="])
                odt = "i1" if op in ("<", "==") else cdt
                i = self.try_add(Node("bin", odt, p.nodes[y].shape, [y, s], op=op, cdt=cdt))
                return self._keep(i)
            y = self.pick_dt(sdt)
            if y is None:
                return False
            op = r.choice(["+", "-", "*", "maximum"])
            i = self.try_add(Node("bin", sdt, p.nodes[y].shape, [y, s], op=op))
            return self._keep(i)
        if choice < 0.30:
            if dt != "i1" and r.random() < 0.35:
                return self.mixed_binary(x)
            # binary op with another value of the same dtype
            y = self.pick_dt(dt)
            if dt == "i1":
                op = r.choice(["&", "|", "^"])
            elif is_float(dt):
                op = r.choice(["+", "-", "*", "/", "maximum", "minimum", "+", "*"])
            else:
                op = r.choice(["+", "-", "*", "&", "|", "^", "maximum", "minimum", "//", "%"])
            odt = "fp32" if op == "/" and dt in ("fp16", "bf16") else dt
            i = self.try_add(Node("bin", odt, bshape(nx.shape, p.nodes[y].shape), [x, y], op=op))
            return self._keep(i)
        if choice < 0.42:
            # binary op with a constant
            if dt == "i1":
                return False
            if is_int(dt) and r.random() < 0.2:
                # a Python float with an integer tile: fp32 (float is a
                # higher kind than int, so the constant takes part)
                op = r.choice(["+", "-", "*", "/"])
                c = r.choice([0.5, 2.0, -1.25, 3.0])
                i = self.try_add(Node("bin", "fp32", nx.shape, [x], op=op, c=c, cdt="fp32"))
                return self._keep(i)
            if is_float(dt):
                op = r.choice(["+", "-", "*", "/"])
                c = r.choice([0.5, 2.0, -1.25, 3.0, 0.75, 1.5])
            else:
                op = r.choice(["+", "-", "*", "&", "|", "^", "<<", ">>", "//", "%"])
                if op in ("<<", ">>"):
                    c = r.randrange(0, min(BITS[dt], 12))
                elif op in ("//", "%"):
                    c = r.choice([2, 3, 7, -3, 5])
                    if not is_signed(dt):
                        c = abs(c)
                else:
                    c = r.choice([1, 3, 5, 7, 15, -2])
                    if not is_signed(dt):
                        c = abs(c)
            odt = "fp32" if op == "/" and dt in ("fp16", "bf16") else dt
            i = self.try_add(Node("bin", odt, nx.shape, [x], op=op, c=c))
            return self._keep(i)
        if choice < 0.52 and dt != "i1":
            # comparison -> where
            y = self.pick_dt(dt)
            op = r.choice(["<", "<=", ">", ">=", "==", "!="])
            c = self.try_add(Node("bin", "i1", bshape(nx.shape, p.nodes[y].shape), [x, y], op=op))
            if c is None:
                return False
            z = self.pick_dt(dt)
            w = self.pick_dt(dt)
            i = self.try_add(Node("where", dt, bshape(*(p.nodes[j].shape for j in (c, z, w))), [c, z, w]))
            return self._keep(i)
        if choice < 0.62 and "math" in feats:
            if dt in ("fp16", "bf16") or is_fp8(dt):
                # Triton's math functions take fp32 and fp64 only
                op = r.choice(["neg", "abs"])
            elif is_float(dt):
                op = r.choice(["neg", "abs", "exp", "exp2", "log", "log2", "sqrt", "rsqrt",
                               "sin", "cos", "tanh", "sigmoid", "floor", "ceil", "erf", "abs"])
                if op in ("log", "log2", "sqrt", "rsqrt") and r.random() < 0.7:
                    # make the argument positive first
                    a = self.try_add(Node("un", dt, nx.shape, [x], op="abs"))
                    if a is None:
                        return False
                    x = self.try_add(Node("bin", dt, nx.shape, [a], op="+", c=0.5))
                    if x is None:
                        return False
            elif dt == "i1":
                return False
            else:
                op = r.choice(["neg", "abs", "not"] if is_signed(dt) else ["not", "neg"])
            i = self.try_add(Node("un", dt, nx.shape, [x], op=op))
            return self._keep(i)
        if choice < 0.72 and "cast" in feats:
            to = r.choice(FLOATS + INTS + ["i1"])
            if is_float(dt) and not is_fp8(dt) and r.random() < 0.25:
                # conversions to fp8: rounding, subnormals, saturation
                to = r.choice(FP8)
            bit = False
            if "bitcast" in feats and r.random() < 0.15 and \
                    dt in ("fp32", "fp16", "bf16", "i32", "i16", "u32", "fp64", "i8", "u8") + tuple(FP8):
                to = {"fp32": "i32", "fp16": "i16", "bf16": "i16", "i32": "u32",
                      "i16": "fp16" if False else "i16", "u32": "i32", "fp64": "i64",
                      "fp8e4nv": r.choice(["i8", "u8"]), "fp8e5": r.choice(["i8", "u8"]),
                      "i8": r.choice(FP8), "u8": r.choice(FP8)}[dt]
                bit = dt != to
            if to == dt:
                return False
            i = self.try_add(Node("cast", to, nx.shape, [x], bitcast=bit))
            return self._keep(i)
        if choice < 0.78 and "reduce" in feats and dt != "i1":
            op = r.choice(["sum", "max", "min", "sum"] + (["argmax", "argmin"] if is_int(dt) else []))
            # Triton's types: sum widens integers narrower than 32 bits
            # (keeping the sign); max/min compute bf16/fp16 in fp32 and
            # narrow integers in int32
            odt = dt
            if op == "sum" and dt in ("i8", "i16"):
                odt = "i32"
            if op == "sum" and dt == "u8":
                odt = "u32"
            if op in ("max", "min") and (dt in ("fp16", "bf16") or is_fp8(dt)):
                odt = "fp32"
            if op in ("max", "min") and dt in ("i8", "i16", "u8"):
                odt = "i32"
            if op.startswith("arg"):
                odt = "i32"
            ax = r.choice([0, 1])
            sh = (1, nx.shape[1]) if ax == 0 else (nx.shape[0], 1)
            i = self.try_add(Node("reduce", odt, sh, [x], op=op, axis=ax))
            return self._keep(i)
        if choice < 0.82 and "scan" in feats and dt not in ("i1", "fp16") and not is_fp8(dt):
            odt = "fp32" if dt == "bf16" else dt
            if dt in ("i8", "i16"):
                odt = "i32"
            if dt == "u8":
                odt = "u32"
            i = self.try_add(Node("scan", odt, nx.shape, [x], axis=r.choice([0, 1]),
                                  reverse=r.choice([False, True])))
            return self._keep(i)
        if choice < 0.88 and "loop" in feats and dt != "i1":
            stride = p.N + r.choice([0, 0, 2])
            arr = self.new_array(dt, max(1, p.M * stride * max(p.trip, 1)))
            if is_float(dt):
                op = r.choice(["+", "*", "maximum", "minimum", "+"])
                init = 1.0 if op == "*" else r.choice([0.0, 0.0, -1.0])
            else:
                op = r.choice(["+", "^", "|", "maximum", "minimum", "-"])
                init = r.choice([0, 0, 1])
            args = []
            bop = r.choice(["+", "*"])
            if r.random() < 0.5:
                args = [x]
            i = self.try_add(Node("loop", dt, ("BM", "BN"), args, arr=arr, stride=stride,
                                  other=self.other(dt), op=op, init=init, bop=bop,
                                  rng=r.choice(["range", "tl.range"])))
            return self._keep(i)
        if choice < 0.93 and "if" in feats:
            y = self.pick(lambda n: n.dtype == dt and n.shape == nx.shape)
            if y == x:
                return False
            static = r.random() < 0.3
            if static:
                node = Node("ifdyn", dt, nx.shape, [x, y], static=True)
            else:
                kind = r.randrange(3)
                if kind == 0:
                    th = r.randint(0, 3)
                    cond, pk = "T > %d" % th, "T"
                elif kind == 1:
                    th = r.randrange(2)
                    cond, pk = "pid0 %% 2 == %d" % th, "pid"
                else:
                    th = r.randint(-5, 5)
                    if "s0" not in p.scalars or p.scalars["s0"][0] != "i32":
                        return False
                    cond, pk = "s0 > %d" % th, "s0"
                node = Node("ifdyn", dt, nx.shape, [x, y], cond=cond, pk=pk, th=th)
            i = self.try_add(node)
            return self._keep(i)
        if is_float(dt) and r.random() < 0.3:
            y = self.pick_dt(dt)
            z = self.pick_dt(dt)
            i = self.try_add(Node("fma", dt, bshape(*(p.nodes[j].shape for j in (x, y, z))), [x, y, z]))
            return self._keep(i)
        return False

    def mixed_binary(self, x):
        """x op y with y of another dtype: Triton's promotion."""
        p, r = self.p, self.r
        nx = p.nodes[x]
        y = self.pick(lambda n: n.dtype not in ("i1", nx.dtype))
        if y is None:
            return False
        a, b = nx.dtype, p.nodes[y].dtype
        if is_float(a) or is_float(b):
            op = r.choice(["+", "-", "*", "/", "maximum", "minimum", "<", ">=", "=="])
        else:
            op = r.choice(["+", "-", "*", "&", "|", "^", "maximum", "minimum", "//", "%",
                           "<", ">", "!="])
        cdt = computation_type(a, b, op in ("/", "//", "%"))
        if cdt is None:
            return False
        odt = "i1" if op in ("<", ">", "<=", ">=", "==", "!=") else cdt
        if op == "/" and is_int(cdt):
            return False
        i = self.try_add(Node("bin", odt, bshape(nx.shape, p.nodes[y].shape), [x, y],
                              op=op, cdt=cdt))
        return self._keep(i)

    def _keep(self, i):
        if i is None:
            return False
        self.pool.append(i)
        return True

    def make_stores(self):
        p, r = self.p, self.r
        # store the last value, and maybe another one
        cands = [i for i in self.pool]
        picks = [cands[-1]]
        if len(cands) > 2 and r.random() < 0.5:
            picks.append(r.choice(cands[:-1]))
        for i in picks:
            n = p.nodes[i]
            dt = n.dtype
            kind = "store2d"
            if "bptr" in self.features and r.random() < 0.25 and dt != "i1" and \
                    n.shape == ("BM", "BN"):
                kind = "bstore"
            if dt == "i1" and r.random() < 0.5:
                # store booleans as int8 (as Triton code usually does)
                c = self.try_add(Node("cast", "i8", n.shape, [i]))
                if c is None:
                    continue
                i, dt = c, "i8"
            if dt == "i1":
                kind = "store2d"
            stride = p.N + r.choice([0, 0, 1, 8])
            arr = self.new_array(dt, p.M * stride, role="out")
            p.stores.append({"kind": kind, "arr": arr, "stride": stride, "args": [i]})
        if "atomic" in self.features and r.random() < 0.25:
            ints = [i for i in self.pool if p.nodes[i].dtype in ("i32", "fp32", "fp64")]
            if ints:
                i = r.choice(ints)
                dt = p.nodes[i].dtype
                op = r.choice(["add", "max", "min"] + (["and", "or", "xor"] if dt == "i32" else ["add", "add"]))
                rows = r.choice([1, 2, 3])
                arr = self.new_array(dt, rows * p.dims["BN"], role="out")
                p.arrays[arr] = (dt, atomic_init(self.nr, dt, rows * p.dims["BN"], op), "out")
                args = [i]
                bools = [j for j in self.pool if p.nodes[j].dtype == "i1"]
                if bools and r.random() < 0.5:
                    args.append(r.choice(bools))
                p.stores.append({"kind": "atomic", "arr": arr, "op": op, "rows": rows, "args": args})


def integer_promote(a, b):
    """Triton's integer_promote_impl (C's usual arithmetic conversions)."""
    ra, rb = BITS[a], BITS[b]
    sa, sb = is_signed(a), is_signed(b)
    if sa == sb:
        return a if ra > rb else b
    if not sa:
        return a if ra >= rb else b
    return b if rb >= ra else a


def computation_type(a, b, div_or_mod):
    """Triton's computation_type_impl for two tiles; None where Triton
    refuses (// and % of integers of different signedness)."""
    if "fp64" in (a, b):
        return "fp64"
    if "fp32" in (a, b):
        return "fp32"
    if "fp16" in (a, b):
        return "fp32" if div_or_mod else "fp16"
    if a == "bf16" and b == "bf16":
        return "fp32" if div_or_mod else "bf16"
    if "bf16" in (a, b):
        return "fp32"
    # two fp8s: the same one, or fp16 (/ too); fp8 with an integer is
    # Triton's TypeError
    if is_fp8(a) and is_fp8(b):
        return a if a == b else "fp16"
    if is_fp8(a) or is_fp8(b):
        return None
    if div_or_mod and is_signed(a) != is_signed(b):
        return None
    return integer_promote(a, b)


def poison(dt, n):
    """Output buffers start as a recognizable pattern (NaN-free for floats)."""
    if is_float(dt):
        return to_bits(np.full(n, -96.0 if is_fp8(dt) else -1234.5 if dt != "fp16" else -1234.0), dt)
    if dt == "i1":
        return np.full(n, 1, dtype=np.int8)
    lo, hi = int_range(dt)
    return to_bits(np.full(n, max(lo, -77) if is_signed(dt) else 77, dtype=np.int64), dt)


def atomic_init(nr, dt, n, op):
    if is_float(dt):
        return to_bits(round_to(nr.uniform(-1, 1, n), dt), dt)
    return to_bits(nr.integers(-50, 50, n, dtype=np.int64), dt)


def generate(seed, features=None):
    """A safe program for this seed (retrying with derived seeds)."""
    for k in range(50):
        g = Generator(seed * 1000 + k, features)
        try:
            p = g.program()
            p.expected()
        except Unsafe:
            continue
        p.seed = seed
        return p
    raise RuntimeError("could not generate a program for seed %d" % seed)
