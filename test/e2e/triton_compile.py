#!/usr/bin/env python3
"""A stand-in for the tilec CLI that compiles .tile kernels with Triton.

It follows the compile contract tilec-e2e uses (see test/e2e/README.md):

    triton_compile.py FILE --kernel NAME --signature SIG --num-warps N
                      [--num-stages S] --emit cubin -o OUT.cubin

and writes OUT.cubin, OUT.ptx and OUT.json (docs/metadata.md). With it the
examples, the harness's references and tolerances, and TilecRuntime can be
checked on a GPU machine that has Triton, independently of tilec, and Triton's
times serve as a baseline.

The .tile language is Triton's, plus three spellings Triton does not accept,
which this script rewrites first (the rewritten module is written next to the
output as OUT.triton.py):
  - `import tilec` / `import tilec.language as tl` / `@tilec.jit`: aliases of
    triton, triton.language and triton.jit;
  - module constants annotated `NAME: tl.constexpr = value`: wrapped in
    tl.constexpr so that kernels may read them;
  - `f = lambda ...` and nested `def f(...)` inside a kernel: lifted to
    module-level @triton.jit functions, the kernel's variables they use
    becoming extra parameters (passed at each call).
"""

import argparse
import ast
import hashlib
import importlib.util
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import traceback
import types

JIT_DECORATORS = {"jit", "triton.jit", "tilec.jit"}


def decorator_name(node):
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.value.id + "." + node.attr
    return ""


def is_kernel(node):
    return isinstance(node, ast.FunctionDef) and any(
        decorator_name(d) in JIT_DECORATORS for d in node.decorator_list)


def assigned_names(statements):
    """Names bound by assignments and loops in `statements`, not descending
    into nested functions or lambdas."""
    names = set()

    class Visitor(ast.NodeVisitor):
        def visit_Name(self, node):
            if isinstance(node.ctx, ast.Store):
                names.add(node.id)

        def visit_FunctionDef(self, node):
            names.add(node.name)

        def visit_Lambda(self, node):
            pass

    for statement in statements:
        Visitor().visit(statement)
    return names


def loaded_names(node):
    """Names read anywhere under `node`, in first-use order."""
    seen = []
    for child in ast.walk(node):
        if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load):
            if child.id not in seen:
                seen.append(child.id)
    return seen


def lift_helpers(kernel):
    """Lifts the lambdas and nested defs at the top level of `kernel`'s body;
    returns the new module-level functions and rewrites `kernel` in place."""
    kernel_locals = {a.arg for a in kernel.args.args} | assigned_names(
        kernel.body)
    helpers = {}
    lifted = []
    body = []
    for statement in kernel.body:
        name, params, helper_body = None, None, None
        if (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)
                and isinstance(statement.value, ast.Lambda)):
            name = statement.targets[0].id
            params = [a.arg for a in statement.value.args.args]
            helper_body = [ast.Return(value=statement.value.body)]
        elif isinstance(statement, ast.FunctionDef):
            name = statement.name
            params = [a.arg for a in statement.args.args]
            helper_body = statement.body
        if name is None:
            body.append(statement)
            continue
        own = set(params) | assigned_names(helper_body)
        probe = ast.Module(body=helper_body, type_ignores=[])
        free = [n for n in loaded_names(probe)
                if n not in own and n in kernel_locals]
        new_name = "_%s__%s" % (kernel.name, name)
        helpers[name] = (new_name, free)
        function = ast.FunctionDef(
            name=new_name,
            args=ast.arguments(posonlyargs=[],
                               args=[ast.arg(arg=p) for p in params + free],
                               vararg=None, kwonlyargs=[], kw_defaults=[],
                               kwarg=None, defaults=[]),
            body=helper_body,
            decorator_list=[ast.Attribute(value=ast.Name(id="triton",
                                                         ctx=ast.Load()),
                                          attr="jit", ctx=ast.Load())],
            returns=None, type_comment=None)
        if sys.version_info >= (3, 12):
            function.type_params = []
        lifted.append(function)

    class Calls(ast.NodeTransformer):
        def visit_Call(self, node):
            self.generic_visit(node)
            if isinstance(node.func, ast.Name) and node.func.id in helpers:
                new_name, free = helpers[node.func.id]
                node.func = ast.Name(id=new_name, ctx=ast.Load())
                node.args = node.args + [ast.Name(id=f, ctx=ast.Load())
                                         for f in free]
            return node

    kernel.body = [Calls().visit(s) for s in body]
    return lifted


def rewrite_module(source):
    tree = ast.parse(source)
    body = [ast.Import(names=[ast.alias(name="triton", asname=None)])]
    for node in tree.body:
        if is_kernel(node):
            body.extend(lift_helpers(node))
        body.append(node)
    tree.body = body
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def install_tilec_alias():
    import triton
    import triton.language
    tilec = types.ModuleType("tilec")
    tilec.jit = triton.jit
    tilec.language = triton.language
    sys.modules.setdefault("tilec", tilec)
    sys.modules.setdefault("tilec.language", triton.language)


def load_module(path):
    import triton.language as tl
    spec = importlib.util.spec_from_file_location(
        "tile_" + re.sub(r"\W", "_", os.path.basename(path)), path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    for name, annotation in getattr(module, "__annotations__", {}).items():
        if annotation is tl.constexpr and hasattr(module, name):
            value = getattr(module, name)
            if not isinstance(value, tl.constexpr):
                setattr(module, name, tl.constexpr(value))
    return module


def parse_signature(text):
    """[(kind, type, divisibility, literal)] as tilec::runtime parses it."""
    entries = []
    for raw in [e.strip() for e in text.split(",")] if text.strip() else []:
        literal = None
        if raw in ("True", "False"):
            literal = raw == "True"
        else:
            for cast in (int, float):
                try:
                    literal = cast(raw)
                    break
                except ValueError:
                    pass
        if literal is not None:
            entries.append(("constexpr", None, 1, literal))
            continue
        pointer = raw.startswith("*")
        body = raw[1:] if pointer else raw
        type_name, _, hint = body.partition(":")
        entries.append(("pointer" if pointer else "scalar", type_name,
                        int(hint) if hint else 1, None))
    return entries


def find_ptxas():
    candidates = [os.environ.get("TILEC_PTXAS"),
                  "/usr/local/cuda/bin/ptxas", shutil.which("ptxas")]
    try:
        import triton
        candidates.append(os.path.join(os.path.dirname(triton.__file__),
                                       "backends", "nvidia", "bin", "ptxas"))
    except ImportError:
        pass
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def ptxas_report(ptx_path, entry):
    ptxas = find_ptxas()
    if not ptxas:
        return None
    result = subprocess.run([ptxas, "-arch=sm_90a", "-v", "-o", os.devnull,
                             ptx_path], capture_output=True, text=True)
    if result.returncode != 0:
        return None
    text = result.stderr
    info = {"registers": 0, "spill_stores": 0, "spill_loads": 0,
            "stack_frame": 0, "shared_bytes": 0}
    patterns = {"registers": r"Used (\d+) registers",
                "stack_frame": r"(\d+) bytes stack frame",
                "spill_stores": r"(\d+) bytes spill stores",
                "spill_loads": r"(\d+) bytes spill loads",
                "shared_bytes": r"(\d+) bytes smem"}
    for key, pattern in patterns.items():
        match = re.search(pattern, text)
        if match:
            info[key] = int(match.group(1))
    return info


def entry_parameter_count(ptx, entry):
    match = re.search(r"\.entry\s+%s\s*\((.*?)\)" % re.escape(entry), ptx,
                      re.S)
    if not match:
        return None
    return len(re.findall(r"\.param\s", match.group(1)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file")
    parser.add_argument("--kernel", required=True)
    parser.add_argument("--signature", required=True)
    parser.add_argument("--num-warps", type=int, default=4)
    parser.add_argument("--num-stages", type=int, default=3)
    parser.add_argument("--emit", default="cubin")
    parser.add_argument("-o", dest="output", required=True)
    args = parser.parse_args()
    if args.emit != "cubin":
        sys.exit("triton_compile.py: only --emit cubin is supported")
    out_base = re.sub(r"\.cubin$", "", args.output)

    import triton
    from triton.backends.compiler import GPUTarget
    install_tilec_alias()

    with open(args.file) as f:
        source = f.read()
    rewritten_path = out_base + ".triton.py"
    with open(rewritten_path, "w") as f:
        f.write("# %s, rewritten for Triton by triton_compile.py\n" % args.file)
        f.write(rewrite_module(source))
    module = load_module(rewritten_path)
    kernel = getattr(module, args.kernel, None)
    if kernel is None:
        sys.exit("error: no kernel '%s' in %s" % (args.kernel, args.file))

    entries = parse_signature(args.signature)
    names = kernel.arg_names
    if len(entries) != len(names):
        sys.exit("error: signature has %d entries, %s has %d parameters (%s)"
                 % (len(entries), args.kernel, len(names), ", ".join(names)))
    signature, constexprs, attrs, parameters = {}, {}, {}, []
    for i, (name, (kind, type_name, div, literal)) in enumerate(
            zip(names, entries)):
        if kind == "constexpr":
            signature[name] = "constexpr"
            constexprs[name] = literal
            value_type = ("i1" if isinstance(literal, bool) else
                          "i32" if isinstance(literal, int) else "fp32")
            parameters.append({"name": name, "kind": "constexpr",
                               "type": value_type, "value": literal})
            continue
        signature[name] = ("*" if kind == "pointer" else "") + type_name
        if div == 16:
            attrs[(i,)] = [["tt.divisibility", 16]]
        parameters.append({"name": name, "kind": kind, "type": type_name,
                           "divisibility": 16 if div == 16 else 1})

    ast_source_params = inspect.signature(
        triton.compiler.ASTSource).parameters
    constexpr_key = "constexprs" if "constexprs" in ast_source_params \
        else "constants"
    src = triton.compiler.ASTSource(fn=kernel, signature=signature,
                                    attrs=attrs,
                                    **{constexpr_key: constexprs})
    compiled = triton.compile(src, target=GPUTarget("cuda", 90, 32),
                              options={"num_warps": args.num_warps,
                                       "num_stages": args.num_stages})
    meta = compiled.metadata
    ptx = compiled.asm["ptx"]
    with open(out_base + ".ptx", "w") as f:
        f.write(ptx)
    with open(out_base + ".cubin", "wb") as f:
        f.write(compiled.asm["cubin"])

    entry = getattr(meta, "name", args.kernel)
    # Triton appends scratch pointers after the user's parameters (global
    # scratch since 3.3, profile scratch since 3.5): count what the entry has.
    user_params = sum(1 for p in parameters if p["kind"] != "constexpr")
    in_entry = entry_parameter_count(ptx, entry)
    extra = (in_entry - user_params) if in_entry is not None else 0
    hidden = []
    for index, kind in enumerate(["global_scratch", "profile_scratch"][:extra]):
        size = getattr(meta, kind + "_size", 0) or 0
        align = getattr(meta, kind + "_align", 1) or 1
        hidden.append({"name": kind, "kind": "hidden", "bytes": 8,
                       "align": 8,
                       "recipe": {"kind": "global_scratch",
                                  "bytes_per_program": size,
                                  "align": align}})
    if extra > 2 or extra < 0:
        sys.exit("error: entry %s has %s parameters, expected %d (+ up to 2 "
                 "scratch pointers)" % (entry, in_entry, user_params))

    version = re.search(r"^\s*\.version\s+(\S+)", ptx, re.M)
    num_warps = getattr(meta, "num_warps", args.num_warps)
    cluster = list(getattr(meta, "cluster_dims", (1, 1, 1)) or (1, 1, 1))
    metadata = {
        "format": "tilec-kernel-metadata", "version": 1,
        "name": args.kernel, "entry": entry,
        "tilec_version": "triton-" + triton.__version__,
        "target": "sm_90a",
        "ptx_version": version.group(1) if version else "",
        "num_warps": args.num_warps, "num_stages": args.num_stages,
        "num_threads": 32 * num_warps,
        "shared_memory": {"static_bytes": 0,
                          "dynamic_bytes": getattr(meta, "shared", 0)},
        "cluster_dims": cluster,
        "source": {"path": args.file,
                   "hash": hashlib.sha256(source.encode()).hexdigest()},
        "signature": args.signature,
        "parameters": parameters,
        "hidden_parameters": hidden,
        "ptxas": ptxas_report(out_base + ".ptx", entry),
        "artifacts": {"ptx": os.path.basename(out_base + ".ptx"),
                      "cubin": os.path.basename(out_base + ".cubin")},
    }
    with open(out_base + ".json", "w") as f:
        json.dump(metadata, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    try:
        main()
    except SystemExit:
        raise
    except BaseException:
        traceback.print_exc()
        sys.exit("error: Triton failed to compile the kernel (traceback "
                 "above)")
