"""`tilec.pointwise_dynamic`: FlagGems' pointwise code generator on tilec
(the design in the seed: a scalar `@tilec.jit` function becomes a kernel and
a wrapper that handles broadcasting, strides, dtype promotion and outputs).

    @tilec.pointwise_dynamic(is_tensor=[True, True, False],
                             promotion_methods=[(0, 1, "DEFAULT")])
    @tilec.jit
    def add_func(x, y, alpha):
        return x + y * alpha

    out = add_func(a, b, 0.5)             # broadcast, promoted, allocated
    add_func(a, b, 0.5, out0=a)           # in place (outputs by keyword)

The wrapper (metadata computation, once per call signature: each input's
and output's type, dtype, shape, strides and device, a scalar's type; a
call of a known signature only allocates its outputs and launches, see
PointwiseDynamicFunction._signature):
- task space: the broadcast of the tensor inputs' shapes (ranks 0-8);
- output dtypes from `promotion_methods`, one `(arg indices..., KIND)` per
  output, KIND one of torch's ELEMENTWISE_TYPE_PROMOTION_KIND (DEFAULT,
  NO_OPMATH, INT_TO_FLOAT, ALWAYS_BOOL, COMPLEX_TO_FLOAT, BOOL_TO_LONG) with
  torch's result-type rules (dimensioned tensors over zero-dim tensors over
  Python scalars, by category);
- outputs `out0=`, `out1=`, ... are checked (shape, device, a dtype the
  result can be cast to, no internal overlap); missing ones are allocated
  (with the inputs' layout when they all share one, else contiguous);
- inputs are read in place through their strides (broadcast dimensions get
  stride 0): nothing is copied or made contiguous;
- the task space is reduced to rank 1 when every tensor is dense,
  non-overlapping and laid out alike, else adjacent dimensions that are
  contiguous in every tensor are merged and size-1 dimensions dropped.

The kernel is generated as source text per task-space rank and per which
arguments are tensors (ranks 0-1: a 1-D block of tasks per program; rank 2
and up: a tile of outer positions by consecutive innermost ones, see
_kernel_source), appended to the scalar function's module text (so
errors in the scalar function point at its file), compiled by tilec and
cached; dtypes specialize it further in tilec's JIT. `instantiate(rank)`
returns the rank's launcher without the metadata step (every output given,
every tensor of that rank; for `StridedBuffer` views with negative strides).

Arrays: torch tensors (GPU or CPU backend) or numpy arrays (CPU backend).
"""

import sys

from . import _capi
from .jit import BoundLaunch as _BoundLaunch
from .jit import JITFunction as _JITFunction, KernelBase as _KernelBase
from .jit import foreign_dtype_name as _foreign_dtype_name

DEFAULT, NO_OPMATH, INT_TO_FLOAT, ALWAYS_BOOL, COMPLEX_TO_FLOAT, BOOL_TO_LONG = (
    "DEFAULT", "NO_OPMATH", "INT_TO_FLOAT", "ALWAYS_BOOL", "COMPLEX_TO_FLOAT", "BOOL_TO_LONG")
_KINDS = {DEFAULT, NO_OPMATH, INT_TO_FLOAT, ALWAYS_BOOL, COMPLEX_TO_FLOAT, BOOL_TO_LONG}
MAX_RANK = 8

# ------------------------------------------------------------ dtypes

# torch's promotion categories (bool 0, integer 1, float 2, complex 3) and
# sizes, keyed by torch's dtype names. The tilec scalar types come from the
# compiler's table (_capi.scalar_types()); which of them torch promotes
# (not uint16..uint64 or the fp8 types) and complex, which tilec has not,
# are torch's.
_TORCH_PROMOTED = ("i1", "u8", "i8", "i16", "i32", "i64", "fp16", "bf16", "fp32", "fp64")
_KIND_CATEGORY = {_capi.KIND_BOOL: 0, _capi.KIND_SIGNED: 1, _capi.KIND_UNSIGNED: 1,
                  _capi.KIND_FLOAT: 2}
_CATEGORY = {}
_SIZE = {}


def _fill_categories():
    if _CATEGORY:
        return
    by_name = _capi.TYPE_BY_NAME
    for n in _TORCH_PROMOTED:
        t = by_name[n]
        _CATEGORY[_foreign_dtype_name(t)] = _KIND_CATEGORY[t.kind]
        _SIZE[_foreign_dtype_name(t)] = t.size
    for n, size in (("complex64", 8), ("complex128", 16)):
        _CATEGORY[n] = 3
        _SIZE[n] = size


_COMPLEX_TO_FLOAT = {"complex64": "float32", "complex128": "float64"}


def _name(dtype):
    """'float32' for torch.float32, numpy.float32 and np.dtype('float32')."""
    _fill_categories()
    n = str(dtype)
    n = n[6:] if n.startswith("torch.") else n
    if n == "bool_":
        n = "bool"
    if n not in _CATEGORY:
        try:
            import numpy as np
            n = np.dtype(dtype).name
        except (TypeError, ImportError):
            pass
    if n not in _CATEGORY:
        raise TypeError(f"pointwise_dynamic: unsupported dtype {dtype}")
    return n


def promote_types(a, b):
    """torch.promote_types on dtype names."""
    _fill_categories()
    if a == b:
        return a
    ca, cb = _CATEGORY[a], _CATEGORY[b]
    if ca != cb:
        hi, lo = (a, b) if ca > cb else (b, a)
        if _CATEGORY[hi] == 3 and _CATEGORY[lo] == 2 and _SIZE[lo] == 8:
            return "complex128"
        return hi
    if ca == 0:
        return "bool"
    if ca == 1:
        if "uint8" in (a, b):
            other = b if a == "uint8" else a
            return "int16" if other == "int8" else other
        return a if _SIZE[a] >= _SIZE[b] else b
    if ca == 2:
        if {a, b} == {"float16", "bfloat16"}:
            return "float32"
        return a if _SIZE[a] > _SIZE[b] else b
    return a if _SIZE[a] >= _SIZE[b] else b


def _combine(higher, lower):
    """c10's combine_categories."""
    _fill_categories()
    if higher is None:
        return lower
    if lower is None:
        return higher
    ch, cl = _CATEGORY[higher], _CATEGORY[lower]
    if ch == 3:
        return higher
    if cl == 3:
        return ("complex128" if higher == "float64" else "complex64") if ch == 2 else lower
    if ch == 2:
        return higher
    if higher == "bool" or cl == 2:
        return promote_types(higher, lower)
    return higher


def result_type(args):
    """torch.result_type over tensors, arrays and Python scalars: dimensioned
    tensors, then zero-dim tensors, then scalars (a Python float is the
    default float32, an int int64), combined by category."""
    dim = zero = wrapped = None
    for a in args:
        if isinstance(a, bool):
            t, group = "bool", 2
        elif isinstance(a, int):
            t, group = "int64", 2
        elif isinstance(a, float):
            t, group = "float32", 2
        elif isinstance(a, complex):
            t, group = "complex64", 2
        else:
            t = _name(a.dtype)
            group = 0 if len(_shape(a)) > 0 else 1
        if group == 0:
            dim = t if dim is None else promote_types(dim, t)
        elif group == 1:
            zero = t if zero is None else promote_types(zero, t)
        else:
            wrapped = t if wrapped is None else promote_types(wrapped, t)
    return _combine(dim, _combine(zero, wrapped))


def elementwise_dtype(args, kind):
    """The result dtype (a name) of torch's elementwise promotion `kind`."""
    if kind not in _KINDS:
        raise ValueError(f"pointwise_dynamic: unknown promotion kind {kind!r} "
                         f"(one of {', '.join(sorted(_KINDS))})")
    t = result_type(args)
    if kind == INT_TO_FLOAT and _CATEGORY[t] <= 1:
        return "float32"
    if kind == ALWAYS_BOOL:
        return "bool"
    if kind == COMPLEX_TO_FLOAT and _CATEGORY[t] == 3:
        return _COMPLEX_TO_FLOAT[t]
    if kind == BOOL_TO_LONG and t == "bool":
        return "int64"
    return t


# ------------------------------------------------------------ arrays


# The argument types whose signature a call is planned on (see
# PointwiseDynamicFunction._signature): numpy.ndarray and torch.Tensor, exact
# types (filled in by _array_types when a function is made or first called,
# from what is imported then), and Python scalars.
_ND = None
_TT = None
_SCALAR_TYPES = frozenset((bool, int, float, complex))


class _Unmatched:
    """Stands for an array type that is not imported."""


# What a plan's launch is promised of each input and output (BoundLaunch's
# lead_kinds) by its type: a call of the same signature has the same type,
# dtype and device there.
_LEAD_KINDS = {float: "float"}


def _array_types():
    global _ND, _TT
    if _ND is None or _ND is _Unmatched:
        np = sys.modules.get("numpy")
        _ND = np.ndarray if np is not None else _Unmatched
        _LEAD_KINDS[_ND] = "ndarray"
    if _TT is None or _TT is _Unmatched:
        t = sys.modules.get("torch")
        _TT = t.Tensor if t is not None else _Unmatched
        _LEAD_KINDS[_TT] = "tensor"


def _is_array(v):
    return hasattr(v, "shape") and hasattr(v, "dtype") and not isinstance(v, (int, float, bool))


def _shape(v):
    return tuple(int(s) for s in v.shape)


def _strides(v):
    s = v.stride() if callable(getattr(v, "stride", None)) else None
    if s is not None:
        return tuple(s)
    itemsize = v.dtype.itemsize
    if any(b % itemsize for b in v.strides):
        raise ValueError("pointwise_dynamic: an array whose strides are not whole elements")
    return tuple(b // itemsize for b in v.strides)


def _device(v):
    if getattr(v, "is_cuda", False):
        return str(v.device)
    return "cpu"


def _is_torch(v):
    t = sys.modules.get("torch")
    return t is not None and isinstance(getattr(v, "base", v), t.Tensor)


def _allocator(like, shape, dtype, strides=None):
    """A function of no arguments that allocates an uninitialized array like
    `like` (a torch tensor on its device, else a numpy array) of `shape`
    and dtype name `dtype`, laid out in the dimension order of `strides` if
    given (contiguous otherwise); everything but the allocation is done
    here, once (the cached calls of PointwiseDynamicFunction keep it)."""
    shape = tuple(shape)
    if _is_torch(like):
        import torch
        dt = getattr(torch, dtype)
        dev = getattr(like, "device", "cpu")
        if strides is not None and tuple(strides) != _contiguous_strides(shape):
            strides = tuple(strides)
            return lambda: torch.empty_strided(shape, strides, dtype=dt, device=dev)
        return lambda: torch.empty(shape, dtype=dt, device=dev)  # (faster than empty_strided)
    import numpy as np
    dt = np.dtype(dtype)
    if strides is not None and len(shape) > 0:
        # The inputs' layout: allocate in their dimension order.
        order = sorted(range(len(shape)), key=lambda d: -strides[d])
        permuted = tuple(shape[d] for d in order)
        axes = tuple(order.index(d) for d in range(len(shape)))
        if axes != tuple(range(len(shape))):
            return lambda: np.empty(permuted, dtype=dt).transpose(axes)
    return lambda: np.empty(shape, dtype=dt)


def _contiguous_strides(shape):
    """torch.empty(shape)'s strides (a size-0 dimension counts as 1)."""
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def _empty(like, shape, dtype, strides=None):
    return _allocator(like, shape, dtype, strides)()


def broadcast_shapes(shapes):
    rank = max((len(s) for s in shapes), default=0)
    out = [1] * rank
    for s in shapes:
        for i, n in enumerate(s):
            j = rank - len(s) + i
            if n != 1:
                if out[j] != 1 and out[j] != n:
                    raise ValueError(f"pointwise_dynamic: shapes {[tuple(x) for x in shapes]} "
                                     "do not broadcast")
                out[j] = n
    return tuple(out)


def _broadcast_strides(shape, strides, task):
    lead = len(task) - len(shape)
    out = [0] * lead
    for n, s in zip(shape, strides):
        out.append(0 if n == 1 else s)
    return out


def _dense_non_overlapping(shape, strides):
    """Every element of a block of prod(shape) elements exactly once
    (a permutation of a contiguous layout)."""
    expected = 1
    for n, s in sorted(((n, s) for n, s in zip(shape, strides) if n != 1), key=lambda p: p[1]):
        if s != expected:
            return False
        expected *= n
    return True


def has_internal_overlap(shape, strides):
    """True when two indices of the view address the same element (exact);
    never for a view of no elements (as torch's has_internal_overlap)."""
    if 0 in shape:
        return False
    dims = sorted(((abs(s), n) for n, s in zip(shape, strides) if n > 1))
    if any(s == 0 for s, _ in dims):
        return True
    span = 0
    for s, n in dims:
        if s <= span:
            break
        span += s * (n - 1)
    else:
        return False
    # The sufficient condition failed: decide exactly when that is cheap.
    count = 1
    for _, n in dims:
        count *= n
    if count > (1 << 22):
        return True  # treated as overlapping (conservative)
    import numpy as np
    offsets = np.zeros(1, dtype=np.int64)
    for s, n in dims:
        offsets = (offsets[:, None] + s * np.arange(n, dtype=np.int64)[None, :]).ravel()
    return len(np.unique(offsets)) != len(offsets)


def _reduce(task, strides_list):
    """(task, strides) with size-1 dimensions dropped and adjacent
    dimensions merged where every tensor is contiguous across them."""
    dims = [d for d in range(len(task)) if task[d] != 1]
    shape = [task[d] for d in dims]
    strides = [[s[d] for d in dims] for s in strides_list]
    i = len(shape) - 1
    while i > 0:
        if all(st[i - 1] == st[i] * shape[i] for st in strides):
            shape[i - 1] *= shape[i]
            del shape[i]
            for st in strides:
                st[i - 1] = st[i]
                del st[i]
        i -= 1
    return shape, strides


# ------------------------------------------------------------ code generation


def _kernel_source(fn_name, name, rank, tensor_mask, num_outputs):
    """(text, parameter names, constexpr flags) of the rank-`rank` kernel.

    Ranks 0 and 1: a 1-D block of BLOCK tasks per program. Rank r >= 2: a
    BO x BI tile per program, BO positions of the outer dimensions 0..r-2
    (flattened) by BI consecutive positions of the innermost one, so that
    the inner index is a plain arange (contiguous, vectorizable accesses
    where the innermost stride is 1, which the JIT specializes) and the outer
    multi-index is computed once per row of the tile: by multiply-and-shift
    (_magic) with 32-bit indices, by division with 64-bit ones."""
    args, call_args, strides = [], [], []
    for i, is_t in enumerate(tensor_mask):
        if is_t:
            args.append(f"in{i}")
            strides += [f"in{i}_s{d}" for d in range(rank)]
        else:
            args.append(f"sc{i}")
    outs = [f"out{k}" for k in range(num_outputs)]
    for k in range(num_outputs):
        strides += [f"out{k}_s{d}" for d in range(rank)]
    shape = [f"shape{d}" for d in range(rank)]
    if rank <= 1:
        magic, extra, consts = [], ["num_tasks"], ["BLOCK", "INT64"]
    else:
        magic = [x for d in range(1, rank - 1) for x in (f"magic{d}", f"shift{d}")]
        extra, consts = ["num_tasks", "n_inner_blocks"], ["BO", "BI", "INT64"]
    names = args + outs + shape + magic + strides + extra + consts
    params = args + outs + shape + magic + strides + extra + [c + ": tl.constexpr" for c in consts]
    lines = ["@tilec.jit", f"def {name}({', '.join(params)}):", "    pid = tl.program_id(0)"]
    if rank <= 1:
        lines += ["    if INT64:",
                  "        tid = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)",
                  "    else:",
                  "        tid = pid * BLOCK + tl.arange(0, BLOCK)",
                  "    mask = tid < num_tasks"]
        if rank == 1:
            lines.append("    i0 = tid")
    else:
        inner = rank - 1
        lines += ["    pid_o = pid // n_inner_blocks",
                  "    pid_i = pid - pid_o * n_inner_blocks",
                  "    if INT64:",
                  "        io = pid_o.to(tl.int64) * BO + tl.arange(0, BO)",
                  "        ii = (pid_i * BI).to(tl.int64) + tl.arange(0, BI)",
                  "    else:",
                  "        io = pid_o * BO + tl.arange(0, BO)",
                  "        ii = pid_i * BI + tl.arange(0, BI)",
                  f"    mask = (io < num_tasks)[:, None] & (ii < shape{inner})[None, :]",
                  "    rem = io"]
        for d in range(rank - 2, 0, -1):
            lines += ["    if INT64:",
                      f"        i{d} = rem % shape{d}",
                      f"        rem = rem // shape{d}",
                      "    else:",
                      f"        q = ((rem.to(tl.int64) * magic{d}) >> shift{d}).to(tl.int32)",
                      f"        i{d} = rem - q * shape{d}",
                      "        rem = q"]
        lines.append("    i0 = rem")

    def offset(prefix):
        if rank == 0:
            return "tid * 0"
        if rank == 1:
            return f"i0 * {prefix}_s0"
        outer = " + ".join(f"i{d} * {prefix}_s{d}" for d in range(rank - 1))
        return f"({outer})[:, None] + ii[None, :] * {prefix}_s{rank - 1}"

    for i, is_t in enumerate(tensor_mask):
        if is_t:
            lines.append(f"    x{i} = tl.load(in{i} + ({offset(f'in{i}')}), mask=mask)")
            call_args.append(f"x{i}")
        else:
            call_args.append(f"sc{i}")
    results = ", ".join(f"r{k}" for k in range(num_outputs))
    lines.append(f"    {results} = {fn_name}({', '.join(call_args)})")
    for k in range(num_outputs):
        lines.append(f"    tl.store(out{k} + ({offset(f'out{k}')}), r{k}, mask=mask)")
    constexpr = [False] * (len(names) - len(consts)) + [True] * len(consts)
    return "\n".join(lines) + "\n", names, constexpr


def _magic(d):
    """(m, k) with floor(n / d) == (n * m) >> k for 0 <= n < 2^31 (the
    round-up method: k = 31 + ceil(log2 d), m = ceil(2^k / d) <= 2^32, so
    n * m < 2^63 fits int64; Granlund and Montgomery, PLDI 1994)."""
    k = 31 + (d - 1).bit_length()
    return -(-(1 << k) // d), k


# Tasks per program and warps of a launch, by task count (as FlagGems'
# heuristics_for_tile_size / heuristics_for_num_warps): small launches keep
# many programs in flight with 1024-task blocks on 4 warps; from 2^20 tasks
# on, 4096-task blocks on 8 warps amortize each program's index arithmetic
# and keep more loads in flight per SM (add-with-broadcast at 2^24 fp32 on
# the H200: 74 % of the copy ceiling with 1024/4, 90 % with 4096/8).
_LARGE_LAUNCH_TASKS = 1 << 20


def _launch_config(config, num_tasks):
    """(BLOCK, num_warps) of a launch of num_tasks tasks: the user's
    config where it sets them, the size-based default where it does not."""
    large = num_tasks >= _LARGE_LAUNCH_TASKS
    block = config.get("BLOCK", 4096 if large else 1024)
    warps = config.get("num_warps", 8 if block >= 4096 else 4)
    return block, warps


class _GeneratedKernel(_KernelBase):
    def __init__(self, text, name, file_name, params, constexpr):
        super().__init__(name, file_name, params, constexpr, {})
        self._text = text

    def source(self):
        return self._text


class PointwiseDynamicFunction:
    """What `@pointwise_dynamic` returns; call it like the scalar function
    (inputs positionally, outputs as `out0=`, `out1=`, ...)."""

    def __init__(self, fn, is_tensor=None, dtypes=None, promotion_methods=None, num_outputs=None,
                 config=None):
        if not isinstance(fn, _JITFunction):
            raise TypeError("pointwise_dynamic decorates a @tilec.jit function")
        self.fn = fn
        nargs = len(fn.arg_names)
        self.is_tensor = list(is_tensor) if is_tensor is not None else [True] * nargs
        if len(self.is_tensor) != nargs:
            raise ValueError(f"pointwise_dynamic: is_tensor has {len(self.is_tensor)} entries, "
                             f"{fn.name} takes {nargs} arguments")
        self.dtypes = list(dtypes) if dtypes is not None else [None] * nargs
        if promotion_methods is None:
            raise ValueError("pointwise_dynamic: promotion_methods is required (one per output)")
        self.promotion_methods = []
        for m in promotion_methods:
            m = tuple(m)
            kind = m[-1]
            if kind not in _KINDS:
                raise ValueError(f"pointwise_dynamic: unknown promotion kind {kind!r}")
            idx = []
            for x in m[:-1]:
                idx += list(x) if isinstance(x, (tuple, list)) else [x]
            for i in idx:
                if not 0 <= i < nargs:
                    raise ValueError(f"pointwise_dynamic: promotion index {i} out of range")
            self.promotion_methods.append((tuple(idx), kind))
        self.num_outputs = num_outputs if num_outputs is not None else len(self.promotion_methods)
        if len(self.promotion_methods) != self.num_outputs:
            raise ValueError(f"pointwise_dynamic: {self.num_outputs} outputs need as many "
                             "promotion_methods")
        # A user's config is kept as given; what it leaves out is chosen
        # per launch from the task count (_launch_config).
        self.config = dict(config) if config else {}
        self._kernels = {}
        self._plans = {}
        self._plans_config = dict(self.config)
        self._nargs = nargs
        self._out_index = {f"out{k}": k for k in range(self.num_outputs)}
        _array_types()
        self.__name__ = fn.name
        self.__doc__ = fn.__doc__

    # -- kernels

    def _kernel(self, rank, tensor_mask):
        key = (rank, tensor_mask)
        k = self._kernels.get(key)
        if k is None:
            if rank > MAX_RANK:
                raise ValueError(f"pointwise_dynamic: rank {rank} > {MAX_RANK}")
            name = f"_pointwise_{self.fn.name}_rank{rank}_" + "".join("t" if t else "s" for t in tensor_mask)
            text, params, constexpr = _kernel_source(self.fn.name, name, rank, tensor_mask,
                                                     self.num_outputs)
            k = _GeneratedKernel(self.fn.source() + "\n\n" + text, name, self.fn.file_name, params,
                                 constexpr)
            self._kernels[key] = k
        return k

    def kernel_source(self, rank, tensor_mask=None):
        """The generated kernel text for a rank (debugging aid)."""
        mask = tuple(tensor_mask) if tensor_mask is not None else tuple(self.is_tensor)
        return _kernel_source(self.fn.name, f"_pointwise_{self.fn.name}_rank{rank}", rank, mask,
                              self.num_outputs)[0]

    def _launch_plan(self, rank, task, strides_list, tensor_mask):
        """(kernel, grid, the run-time arguments after the inputs and
        outputs, num_warps) of a launch over `task` (the task-space shape
        after rank reduction), or None when there are no tasks."""
        num_tasks = 1
        for n in task:
            num_tasks *= n
        if num_tasks == 0:
            return None
        block, warps = _launch_config(self.config, num_tasks)
        big = self.config.get("INT64", False) or num_tasks + block >= (1 << 31) or any(
            sum(abs(s) * (n - 1) for s, n in zip(st, task)) >= (1 << 31) for st in strides_list)
        flat = [s for st in strides_list for s in st]
        kernel = self._kernel(rank, tensor_mask)
        if rank <= 1:
            return kernel, (-(-num_tasks // block),), (*task, *flat, num_tasks, block, big), warps
        inner = task[-1]
        outer = num_tasks // inner
        bi = min(block, 1 << (inner - 1).bit_length())
        bo = max(1, block // bi)
        n_inner_blocks = -(-inner // bi)
        magic = []
        for d in range(1, rank - 1):
            magic += _magic(task[d]) if not big else (0, 0)
        grid = (-(-outer // bo) * n_inner_blocks,)
        if grid[0] > 0x7FFFFFFF:
            raise ValueError(f"pointwise_dynamic: {grid[0]} programs; at most 2^31-1")
        return kernel, grid, (*task, *magic, *flat, outer, n_inner_blocks, bo, bi, big), warps

    def _launch(self, rank, args, outs, task, strides_list, tensor_mask):
        plan = self._launch_plan(rank, task, strides_list, tensor_mask)
        if plan is not None:
            kernel, grid, tail, warps = plan
            kernel[grid](*args, *outs, *tail, num_warps=warps)

    # -- the wrapper
    #
    # A call is planned once per signature: for each argument its type and,
    # for arrays, dtype, shape, strides and device (for Python scalars the
    # type alone: promotion looks at nothing else); which outputs are given,
    # with the same of each. The plan holds all that follows from those
    # (every check passed, output dtypes, allocators for the missing outputs,
    # the rank-reduced task space and strides, the kernel, grid and launch
    # arguments), so a call with a known signature only allocates and
    # launches. Nothing in a plan depends on a data address: an output's
    # internal overlap is a property of its shape and strides, and the
    # launch specializes on addresses (16-byte alignment) by itself. Other
    # argument types (StridedBuffer, subclasses, numpy scalars) take the
    # planning path every call. The plans assume is_tensor, dtypes and
    # promotion_methods are not changed after the first call; a changed
    # config drops them.

    _MAX_PLANS = 1024  # more signatures than this: the plans start over

    def _signature(self, args, kwargs):
        """(key, outputs given) of a call, or None when it is not
        cacheable (see above)."""
        key = []
        for a in args:
            t = type(a)
            if t is _ND:
                key.append((t, a.dtype, a.shape, a.strides))
            elif t is _TT:
                key.append((t, a.dtype, a.shape, a.stride(), a.device))
            elif t in _SCALAR_TYPES:
                key.append(t)
            else:
                return None
        outs = None
        if kwargs:
            outs = [None] * self.num_outputs
            index = self._out_index
            for name, o in kwargs.items():
                k = index.get(name)
                if k is None:
                    return None
                t = type(o)
                if t is _ND:
                    key.append((k, t, o.dtype, o.shape, o.strides))
                elif t is _TT:
                    key.append((k, t, o.dtype, o.shape, o.stride(), o.device))
                else:
                    return None
                outs[k] = o
        return tuple(key), outs

    def __call__(self, *args, **kwargs):
        # A call without outputs given, inline (the signature as _signature
        # computes it).
        if not kwargs and len(args) == self._nargs and self._plans_config == self.config:
            key = []
            for a in args:
                t = type(a)
                if t is _TT:
                    key.append((t, a.dtype, a.shape, a.stride(), a.device))
                elif t is _ND:
                    key.append((t, a.dtype, a.shape, a.strides))
                elif t in _SCALAR_TYPES:
                    key.append(t)
                else:
                    break
            else:
                plan = self._plans.get(tuple(key))
                if plan is not None:
                    return plan.fast(args)
        return self._call(args, kwargs)

    def _call(self, args, kwargs):
        if self._plans_config != self.config:
            self._plans.clear()
            self._plans_config = dict(self.config)
        sig = self._signature(args, kwargs) if len(args) == self._nargs else None
        if sig is not None:
            plan = self._plans.get(sig[0])
            if plan is not None:
                return plan.run(args, sig[1])
        plan, kargs, outs = self._plan(args, kwargs)
        if sig is None and len(args) == self._nargs:
            # Planning notes the array types imported since (_array_types).
            sig = self._signature(args, kwargs)
        if sig is not None:
            if len(self._plans) >= self._MAX_PLANS:
                self._plans.clear()
            self._plans[sig[0]] = plan
        return plan.first(kargs, outs)

    def _plan(self, args, kwargs):
        """Every check of a call: its _Plan (which keeps no argument, a plan
        is run on each call's own), and the call's inputs (scalars converted)
        and outputs (the missing ones allocated)."""
        _array_types()
        nargs = len(self.is_tensor)
        if len(args) != nargs:
            raise TypeError(f"{self.__name__}() takes {nargs} positional arguments (inputs), "
                            f"got {len(args)}")
        outs = [None] * self.num_outputs
        for key, v in kwargs.items():
            if not (key.startswith("out") and key[3:].isdigit() and int(key[3:]) < self.num_outputs):
                raise TypeError(f"{self.__name__}() got an unexpected keyword {key!r} "
                                f"(outputs are out0..out{self.num_outputs - 1})")
            outs[int(key[3:])] = v
        tensor_mask = tuple(bool(t) and _is_array(a) for t, a in zip(self.is_tensor, args))
        for i, (t, a) in enumerate(zip(self.is_tensor, args)):
            if not t and _is_array(a):
                raise TypeError(f"{self.__name__}: argument {i} is not a tensor argument "
                                "(is_tensor), got an array")
        tensors = [a for a, m in zip(args, tensor_mask) if m]
        devices = {_device(a) for a in tensors + [o for o in outs if o is not None]}
        if len(devices) > 1:
            raise ValueError(f"{self.__name__}: tensors on several devices {sorted(devices)}")
        task = broadcast_shapes([_shape(a) for a in tensors])
        # Output dtypes.
        dtypes = [elementwise_dtype([args[i] for i in idx], kind) for idx, kind in self.promotion_methods]
        in_strides = [_broadcast_strides(_shape(a), _strides(a), task) for a in tensors]
        like = tensors[0] if tensors else next((o for o in outs if o is not None), None)
        if like is None:
            raise ValueError(f"{self.__name__}: no tensor argument or output to take the device from")
        # The inputs' common layout, if they have one.
        layout = None
        if tensors and all(_shape(a) == task for a in tensors):
            s0 = _strides(tensors[0])
            if all(_strides(a) == s0 for a in tensors) and _dense_non_overlapping(task, s0) \
                    and all(s >= 0 for s in s0):
                layout = s0
        allocators = [None] * self.num_outputs
        out_strides = []
        for k in range(self.num_outputs):
            o = outs[k]
            if o is None:
                alloc = _allocator(like, task, dtypes[k], layout)
                allocators[k] = alloc
                # What it allocates has the same strides every time.
                outs[k] = o = alloc()
                out_strides.append(list(_strides(o)))
                continue
            if _shape(o) != task:
                raise ValueError(f"{self.__name__}: out{k} has shape {_shape(o)}, the result "
                                 f"{task}")
            have = _name(o.dtype)
            if _CATEGORY[have] < _CATEGORY[dtypes[k]]:
                raise TypeError(f"{self.__name__}: out{k} is {have}; the {dtypes[k]} result "
                                "cannot be cast to it")
            if has_internal_overlap(_shape(o), _strides(o)):
                raise ValueError(f"{self.__name__}: out{k} overlaps itself (some of its elements "
                                 "share memory); pass an output without internal overlap")
            out_strides.append(list(_strides(o)))
        all_strides = in_strides + out_strides
        # Task-space rank: 1 when every tensor is dense, non-overlapping and
        # laid out alike; else merge what is contiguous everywhere.
        s0 = all_strides[0]
        if all(list(st) == list(s0) for st in all_strides) and _dense_non_overlapping(task, s0) \
                and all(s >= 0 for s in s0):
            n = 1
            for x in task:
                n *= x
            shape, strides_list = [n], [[1]] * len(all_strides)
        else:
            shape, strides_list = _reduce(task, all_strides)
        # Scalars converted for the kernel (_scalar), by position.
        floats = tuple(i for i, (a, m) in enumerate(zip(args, tensor_mask))
                       if not m and self._scalar(i, a) is not a)
        launch = self._launch_plan(len(shape), shape, strides_list, tensor_mask)
        kargs = [float(a) if i in floats else a for i, a in enumerate(args)]
        return _Plan(self.num_outputs, allocators, floats, launch, kargs + outs), kargs, outs

    def _scalar(self, i, a):
        want = self.dtypes[i]
        if want is float and isinstance(a, int):
            return float(a)
        return a

    def instantiate(self, rank):
        """The rank-`rank` launcher without metadata computation: call it
        with the inputs (tensors of exactly that rank, or StridedBuffers,
        and scalars) and every output as `outN=`; the task space is out0's
        shape and every tensor is read through its own strides."""
        def overload(*args, **kwargs):
            outs = [kwargs.pop(f"out{k}") for k in range(self.num_outputs)]
            if kwargs:
                raise TypeError(f"unexpected keywords {sorted(kwargs)}")
            tensor_mask = tuple(bool(t) and _is_array(a) for t, a in zip(self.is_tensor, args))
            task = _shape(outs[0])
            if len(task) != rank:
                raise ValueError(f"instantiate({rank}): out0 has rank {len(task)}")
            strides_list = []
            for a in [a for a, m in zip(args, tensor_mask) if m] + outs:
                if len(_shape(a)) != rank:
                    raise ValueError(f"instantiate({rank}): a tensor of rank {len(_shape(a))}")
                strides_list.append(list(_strides(a)))
            kargs = [a if m else self._scalar(i, a) for i, (a, m) in enumerate(zip(args, tensor_mask))]
            self._launch(rank, kargs, outs, list(task), strides_list, tensor_mask)
            return outs[0] if self.num_outputs == 1 else tuple(outs)
        return overload


class _Plan:
    """What a call of a known signature does (PointwiseDynamicFunction's
    plans): allocate the missing outputs, convert the scalars that need it,
    launch."""
    __slots__ = ("num_outputs", "allocators", "launch_args", "fast", "bound")

    def __init__(self, num_outputs, allocators, floats, launch, lead):
        self.num_outputs = num_outputs
        # One per output: its allocator, None where the call gives it.
        self.allocators = tuple(allocators)
        # (kernel, grid, trailing arguments, num_warps), None without tasks.
        self.launch_args = launch
        # The launch with everything after the inputs and outputs fixed, on
        # the inputs and outputs of the kinds in `lead` (the call planned: a
        # call of the same signature has the same kinds of them), the
        # scalars in `floats` converted. Without outputs given, `fast(args)`
        # is the whole call: it allocates the outputs, launches and returns
        # them; else `bound(inputs and outputs)` launches.
        self.fast = self.bound = None
        all_allocated = all(a is not None for a in self.allocators)
        if launch is not None:
            kernel, grid, tail, warps = launch
            kinds = [_LEAD_KINDS.get(type(v)) for v in lead]
            for i in floats:
                kinds[i] = "to_float"
            run = _BoundLaunch(kernel, grid, kinds, tail, num_warps=warps,
                               allocators=self.allocators if all_allocated else ()).run
            if all_allocated:
                self.fast = run
            else:
                self.bound = run
        elif all_allocated:
            self.fast = self._allocate_only

    def _allocate_only(self, args):
        outs = [alloc() for alloc in self.allocators]
        return outs[0] if self.num_outputs == 1 else tuple(outs)

    def run(self, args, outs):
        """A call: `outs` the outputs given (a list, None for none)."""
        if self.fast is not None:
            return self.fast(args)
        for k, alloc in enumerate(self.allocators):
            if alloc is not None:
                outs[k] = alloc()
        if self.bound is not None:
            self.bound((*args, *outs))
        return outs[0] if self.num_outputs == 1 else tuple(outs)

    def first(self, kargs, outs):
        """The call planned (its outputs allocated, its scalars converted:
        `kargs`): through kernel[grid], as any launch."""
        if self.launch_args is not None:
            kernel, grid, tail, warps = self.launch_args
            kernel[grid](*kargs, *outs, *tail, num_warps=warps)
        return outs[0] if self.num_outputs == 1 else tuple(outs)


def pointwise_dynamic(f=None, *, is_tensor=None, dtypes=None, promotion_methods=None,
                      num_outputs=None, config=None):
    """`@tilec.pointwise_dynamic(...)` over a `@tilec.jit` scalar function;
    see the module docstring."""
    def wrap(fn):
        return PointwiseDynamicFunction(fn, is_tensor=is_tensor, dtypes=dtypes,
                                        promotion_methods=promotion_methods,
                                        num_outputs=num_outputs, config=config)
    return wrap(f) if f is not None else wrap
