"""`tilec.TensorDescriptor`: Triton's host-built tensor descriptor
(`triton.tools.tensor_descriptor.TensorDescriptor`) as a kernel argument.

    desc = tilec.TensorDescriptor.from_tensor(a, block_shape=[64, 32])
    kernel[grid](desc, ...)          # the kernel uses desc.load / desc.store

tilec's compiler takes no `tensordesc<...>` parameter yet (docs/language.md),
so the package passes a descriptor as what the device-side
`tl.make_tensor_descriptor` takes: the kernel is recompiled with that
parameter replaced by its base pointer, shape and strides, and a first
statement `desc = tl.make_tensor_descriptor(base, shape=[...],
strides=[...], block_shape=[...])` with the block shape as constants
(and `padding_option="nan"` for a descriptor padded with NaN). The
JIT's specialization applies to the pieces (a last stride of 1 is the
constant the descriptor rules need; `:16` on the rest), and the same TMA
rules and checks as for in-kernel descriptors follow. The rewritten
signature keeps the body on its lines when the original signature spans
two lines or more.
"""

import ast


class TensorDescriptor:
    """A description of `base`'s memory as a tensor of `shape` (elements)
    with `strides` (elements), read and written in `block_shape` blocks."""

    _tilec_descriptor = True

    def __init__(self, base, shape, strides, block_shape, padding="zero"):
        self.base = base
        self.shape = [int(s) for s in shape]
        self.strides = [int(s) for s in strides]
        self.block_shape = [int(b) for b in block_shape]
        if not (len(self.shape) == len(self.strides) == len(self.block_shape)) or not 1 <= len(self.shape) <= 5:
            raise ValueError(f"TensorDescriptor: shape {self.shape}, strides {self.strides} and "
                             f"block_shape {self.block_shape} need one entry per dimension (1 to 5)")
        if padding not in ("zero", "nan"):
            raise ValueError(f"TensorDescriptor: padding must be 'zero' or 'nan', got {padding!r}")
        self.padding = padding

    @staticmethod
    def from_tensor(tensor, block_shape, padding="zero"):
        return TensorDescriptor(tensor, list(tensor.shape), list(tensor.stride()), block_shape, padding)

    def __repr__(self):
        return (f"TensorDescriptor(shape={self.shape}, strides={self.strides}, "
                f"block_shape={self.block_shape})")


def expand_source(text, kernel_name, descriptors):
    """The module text with kernel `kernel_name`'s parameters named in
    `descriptors` ({name: TensorDescriptor}) expanded (see the module doc).
    Returns (text, new parameter names, constexpr flags of the new list)."""
    tree = ast.parse(text)
    node = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == kernel_name), None)
    if node is None:
        raise ValueError(f"TensorDescriptor: no top-level def {kernel_name} in the kernel's source")
    lines = text.splitlines(keepends=True)
    args = node.args.args
    defaults = [None] * (len(args) - len(node.args.defaults)) + list(node.args.defaults)
    params, names, constexpr = [], [], []
    for a, d in zip(args, defaults):
        if a.arg in descriptors:
            rank = len(descriptors[a.arg].shape)
            new = ([f"{a.arg}_base"] + [f"{a.arg}_shape{i}" for i in range(rank)]
                   + [f"{a.arg}_stride{i}" for i in range(rank)])
            params += new
            names += new
            constexpr += [False] * len(new)
            continue
        piece = a.arg
        is_constexpr = False
        if a.annotation is not None:
            ann = ast.get_source_segment(text, a.annotation)
            piece += ": " + ann
            is_constexpr = ann.split(".")[-1] == "constexpr"
        if d is not None:
            piece += " = " + ast.get_source_segment(text, d)
        params.append(piece)
        names.append(a.arg)
        constexpr.append(is_constexpr)
    first = node.body[0]
    indent = " " * first.col_offset
    stmts = []
    for name, desc in descriptors.items():
        rank = len(desc.shape)
        stmts.append(f"{name} = tl.make_tensor_descriptor({name}_base, shape=["
                     + ", ".join(f"{name}_shape{i}" for i in range(rank)) + "], strides=["
                     + ", ".join(f"{name}_stride{i}" for i in range(rank)) + "], block_shape=["
                     + ", ".join(str(b) for b in desc.block_shape) + "]"
                     + (", padding_option=\"nan\"" if desc.padding == "nan" else "") + ")")
    signature_lines = first.lineno - node.lineno
    new = [" " * node.col_offset + f"def {kernel_name}({', '.join(params)}):\n",
           indent + "; ".join(stmts) + "\n"]
    new += ["\n"] * max(0, signature_lines - len(new))
    out = lines[:node.lineno - 1] + new + lines[first.lineno - 1:]
    return "".join(out), names, constexpr
