//===- Passes.td - tilec conversion passes -----------------*- tablegen -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_CONVERSION_PASSES_TD
#define TILEC_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTileToTileGPU : Pass<"convert-tile-to-tilegpu", "mlir::ModuleOp"> {
  let summary = "Assign a distributed layout to every tile";
  let description = [{
    Gives every tile-typed value a `#tilegpu.blocked` or `#tilegpu.slice`
    encoding over `num-warps` warps, and marks each function with
    `tilegpu.num_warps`.

    Layouts are inferred, not defaulted and cleaned up afterwards: values
    that must share a layout (operands and results of elementwise ops,
    broadcasts, loads/stores and their pointers and masks, loop-carried
    values, the accumulator and result of `tile.dot`) are unified into
    classes; `tile.expand_dims` and `tile.reduce` relate a rank-r class to
    the slice of a rank-(r+1) class. Each root class gets one blocked layout,
    chosen from its largest tile and from `tile-axis-info` on its memory
    accesses (the most contiguous dimension first, as many elements per
    thread as a 16-byte access allows); each sliced class gets the slice of
    its parent's layout. A value asked to be the slice of two different
    layouts is first split when it is cheap to recompute (ranges, splats,
    constants and arithmetic on them are cloned per use); only what remains
    gets a `tilegpu.convert_layout`.

    A `tile.dot` that wgmma can take (f16/bf16 operands, f32 accumulator,
    M ≥ 64, whole warpgroups) gets the `#tilegpu.wgmma` accumulator layout,
    which its elementwise users and loop-carried values then share; other
    dots get a register-blocked layout for the FMA path, with a remark
    saying why.

    A store of a tensor-core accumulator narrower than 32 bits (O or C
    stored as bf16/fp16/fp8) keeps its addresses and mask in a class of
    their own: the accumulator's layout with its register and lane bases
    exchanged so that each thread holds runs as long as the addresses'
    contiguity, alignment and the mask's constancy allow, up to 16 bytes
    (`gatherRegisterRun`; the wgmma layout gives a thread pairs of
    columns). The value gets a `tilegpu.convert_layout`, which lowers to
    butterfly shuffles within warps; the store then writes 16 bytes per
    thread and instruction instead of 4.

    Example: in a row softmax the row maximum is
    `#tilegpu.slice<{dim = 1, parent = #blocked}>` of the tile's layout, so
    `x - m[:, None]` needs no data movement.
  }];
  let options = [
    Option<"numWarps", "num-warps", "unsigned", "4",
           "Warps per CTA (one program instance runs on one CTA)">,
    Option<"useWgmma", "use-wgmma", "bool", "true",
           "Give eligible tl.dot accumulators the Hopper wgmma layout "
           "(tensor cores)">,
    Option<"useMma", "use-mma", "bool", "true",
           "Give tl.dot accumulators that wgmma cannot take the mma.sync "
           "layout (tensor cores, sm_80+) when it can; with both false "
           "every dot runs on the FMA path">,
    Option<"vectorReductions", "vector-reductions", "bool", "false",
           "The target has red.global.add.v2/.v4.f32 (sm_90, PTX 8.1): an "
           "f32 accumulator added atomically is gathered into 16-byte runs">
  ];
  let dependentDialects = ["::tilec::tilegpu::TileGPUDialect"];
}

def ConvertTileGPUToLLVM : Pass<"convert-tilegpu-to-llvm", "mlir::ModuleOp"> {
  let summary = "Lower distributed tiles to per-thread LLVM/NVVM code";
  let description = [{
    A 1:N dialect conversion: a tile value in a layout becomes the scalars
    one thread holds (one per register slot of the layout; see
    LinearLayout.h), pointers become `!llvm.ptr<1>`. Elementwise ops are
    applied per slot, `make_range`/`splat`/`broadcast`/`expand_dims` and
    register-only layout conversions rename slots, loads and stores become
    predicated (vectorized where `tile-axis-info` proves contiguity and
    alignment) `ld.global`/`st.global`, reductions combine within a thread,
    then across lanes with `shfl.sync.bfly`, then across warps through
    shared memory; other layout conversions and `tile.dot` (FMA on CUDA
    cores) go through shared memory. Program ids read `%ctaid`. Kernels
    become `nvvm.kernel` functions with `nvvm.maxntid`. Shared memory is one
    `.extern .shared .align 1024` array: the kernel-lifetime allocations
    (`local_alloc` rings, each 1024-byte aligned, then the mbarriers) first,
    per-op scratch after them; the bytes needed are recorded in the module's
    `tilegpu.shared_memory` attribute. The Hopper async ops become PTX:
    `mbarrier.init` / `arrive.expect_tx` / `try_wait.parity`,
    `cp.async.bulk.tensor` (one per swizzle-wide box, issued by thread 0),
    `wgmma.mma_async` on shared-memory descriptors and `wgmma.wait_group`.
    Atomics become one predicated `atom.<sem>.<scope>.global` per element,
    applied by one of the threads holding it (CAS loops where PTX has no
    instruction: 16-bit integers, 16-bit float max/min).
    Arguments of type `!tilegpu.tma_desc` become by-value 128-byte
    `__grid_constant__` parameters (`llvm.byval`, `llvm.align = 64`,
    `nvvm.grid_constant`); their recipes are collected in the module's
    `tilegpu.tma_descriptors` attribute (argument index and recipe) for the
    kernel metadata.

    The remaining scalar `arith`/`math`/`scf`/`func` ops are left for the
    upstream conversions (`convert-scf-to-cf`, `convert-to-llvm`).
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect"
  ];
  let options = [
    Option<"mbarrierSpinLimit", "mbarrier-spin-limit", "int64_t", "0",
           "When positive, every mbarrier wait polls at most this many times, "
           "then prints its source location and traps (debug builds)">,
    Option<"vectorReductions", "vector-reductions", "bool", "false",
           "Add runs of 2 or 4 f32 a thread holds with one "
           "red.global.add.v2/.v4.f32 (sm_90 and PTX 8.1 or newer)">
  ];
}

def ConvertTileToLinalg : Pass<"convert-tile-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lower layout-free tiles to linalg, tensor and scf for the host CPU";
  let description = [{
    The first pass of the CPU backend (docs/cpu-backend.md). It reads the
    `tile` IR after `tile-rewrite-block-pointers` (no block pointers left)
    and writes value-semantics IR on builtin tensors that upstream MLIR
    bufferizes and lowers to LLVM for the host:

    - Pointers become 64-bit addresses: `!tile.ptr<T>` is `i64`, a tile of
      pointers a `tensor<… x i64>`; `tile.addptr` adds `offset * sizeof(T)`.
    - Every function is a *per-program* function: six `i32` arguments are
      appended (program id along axes 0, 1, 2, then the grid extents), and
      `tile.program_id` / `tile.num_programs` read them. A launcher calls the
      function once per program of the grid.
    - `tile.make_range`, `tile.splat`, `tile.broadcast`, `tile.expand_dims`,
      `tile.trans`, `tile.addptr` and value `tile.bitcast`s become
      `linalg.generic`s with projected-permutation (or constant-0, for
      broadcast dimensions) indexing maps, so that
      `linalg-fuse-elementwise-ops` can fuse chains of them;
      `tile.reshape` becomes `tensor.collapse_shape` + `tensor.expand_shape`.
    - `tile.dot` widens its operands to the accumulator type once
      (elementwise `linalg.generic`s of `arith.extf`/`arith.extsi`) and
      becomes a register-blocked micro-kernel on tensors: `scf.for` loops
      over blocks of `dot-tile-m` rows by `dot-tile-n` columns of the
      accumulator (the largest divisors of M and, powers of two, of N not
      above them), each row of the block one `vector.transfer_read` into a
      loop-carried vector, then an `scf.for` over k that reads a row of B
      (`vector.transfer_read`) and accumulates
      `math.fma(vector.broadcast(a[i, k]), b[k, :], acc[i])` (integers:
      `arith.muli` + `arith.addi`), then `vector.transfer_write`s. Like the
      GPU's FMA path, every accumulator element sums its products in order
      of k with one fused multiply-add each. With `dot-tile-m=0` the dot is
      instead one `linalg.generic` over (m, k, n) with that body, which
      convert-linalg-to-loops turns into scalar loops.
    - `tile.reduce` becomes a `linalg.generic` with one reduction dimension
      whose body is the combine region, its float ops marked `reassoc` (the
      region is associative and commutative, so LLVM may vectorize the
      fold); the accumulator starts as the first slice along the axis (a
      combine region has no identity element).
    - `tile.load` / `tile.store` become `scf.for` nests over the tile that
      read the address, mask and `other` of each element with
      `tensor.extract`, and access memory with `llvm.load` / `llvm.store`
      under an `scf.if` on the mask (a load builds its result with
      `tensor.insert`). Where `tile-axis-info` proves the rows of the pointer
      tile contiguous, each row is addressed from its first element with an
      `llvm.getelementptr` on the column, so LLVM vectorizes the row into
      masked vector loads and stores. They are loops rather than `linalg.generic`s because
      a `linalg.generic` on tensors reports no memory effects: CSE, DCE and
      elementwise fusion could merge, drop or move it across a store. Masked
      off elements are never accessed. `i1` is one byte in memory (nonzero
      is true); fp8 is loaded as `i8` and bitcast.
    - Elementwise `arith`/`math` on tensors stays as is (types converted
      when they involve pointers) for `convert-elementwise-to-linalg`.

    With `sanitize`, each accessed element's address is first passed to
    `__tilec_cpu_check_access` (include/tilec/Conversion/TileToLinalg/
    TileToLinalg.h) with the byte count, the element's index in the tile and
    a description of the access site; a refused access is skipped.

    Example:

    ```mlir
    %r = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    // becomes
    %e = tensor.empty() : tensor<128xi32>
    %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>],
                         iterator_types = ["parallel"]} outs(%e : tensor<128xi32>) {
    ^bb0(%out: i32):
      %i = linalg.index 0 : index
      %v = arith.index_cast %i : index to i32
      linalg.yield %v : i32
    } -> tensor<128xi32>
    ```
  }];
  let options = [
    Option<"sanitize", "sanitize", "bool", "false",
           "Check every accessed address with __tilec_cpu_check_access">,
    Option<"dotTileM", "dot-tile-m", "int64_t", "8",
           "Accumulator rows per register block of tile.dot (0: lower the "
           "dot to one scalar linalg.generic)">,
    Option<"dotTileN", "dot-tile-n", "int64_t", "32",
           "Accumulator columns per register block of tile.dot (the length "
           "of its vectors; 0: lower the dot to one scalar linalg.generic)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def BubbleUpExtractSlices : Pass<"bubble-up-extract-slices"> {
  let summary = "Compute only the part of a linalg result that a slice keeps";
  let description = [{
    The CPU backend's loads and stores of tiles with contiguous rows need
    only the first column of their address tile (each row is addressed from
    its first element), which `convert-tile-to-linalg` takes with a
    `tensor.extract_slice`. Run after elementwise fusion, this pass applies
    upstream's bubble-up patterns (`linalg::
    populateBubbleUpExtractSliceOpPatterns`): a slice of a single-use
    `linalg.generic` without index semantics becomes the generic on slices
    of its operands, so only that column is computed (a 64 x 1 tile of
    addresses instead of 64 x 32).

    Example:

    ```mlir
    %a = linalg.generic {...} ins(%x, %y : tensor<64x1xi64>, tensor<1x32xi64>)
        outs(%e : tensor<64x32xi64>) {...}
    %c = tensor.extract_slice %a[0, 0] [64, 1] [1, 1]
    // becomes the same generic on %x[0, 0] [64, 1] and %y[0, 0] [1, 1]
    // writing a tensor<64x1xi64>
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def HoistLoopLocalBuffers : Pass<"hoist-loop-local-buffers"> {
  let summary = "Allocate a buffer that lives for one loop iteration once per loop";
  let description = [{
    The CPU backend runs it after buffer deallocation: a statically shaped
    `memref.alloc` directly in the body of an `scf.for` that the same block
    frees with `memref.dealloc` (so no alias of it outlives the iteration)
    moves before the loop and its dealloc after the loop: one allocation per
    loop instead of one per iteration (the per-tile temporaries of a K loop:
    loaded tiles, masks, addresses, widened dot operands). Inner loops are
    done first, so a buffer leaves every loop it is local to. The buffer's
    contents at the start of an iteration are undefined either way.

    Example:

    ```mlir
    scf.for %i = %c0 to %n step %c1 {
      %t = memref.alloc() : memref<64x32xf16>
      ... uses of %t ...
      memref.dealloc %t : memref<64x32xf16>
    }
    // becomes
    %t = memref.alloc() : memref<64x32xf16>
    scf.for %i = %c0 to %n step %c1 {
      ... uses of %t ...
    }
    memref.dealloc %t : memref<64x32xf16>
    ```
  }];
}

def ExpandFloat8Conversions : Pass<"expand-fp8-conversions"> {
  let summary = "Lower fp8 conversions to integer arithmetic, rounding like the GPU";
  let description = [{
    The CPU backend's fp8 support (LLVM has no fp8 types): every scalar
    `arith.truncf` to and `arith.extf` from `f8E4M3FN` (`tl.float8e4nv`)
    and `f8E5M2` (`tl.float8e5`) becomes integer arithmetic on the bits, and
    fp8 constants become `i8` constants bitcast. Run it after
    `arith-emulate-unsupported-floats`, which leaves only these conversions
    behind.

    Narrowing rounds like Hopper's `cvt.rn.satfinite.{e4m3,e5m2}x2.f32`
    (what Triton emits on sm_90): to nearest, ties to even, in one step from
    f32 (f16 and bf16 sources are widened to f32 first, which is exact; f64
    is rounded to f32 first); magnitudes beyond the largest finite value,
    infinities included, saturate to it (448 and 57344) with their sign; NaN
    becomes 0x7f. Widening is exact.

    Example:

    ```mlir
    %h = arith.truncf %x : f32 to f8E4M3FN
    // becomes, on the bits of %x: sign, |x| < 2^-6 ? (|x| + 2^-6 rounded by
    // an f32 add, minus the bias) : (|x| rounded at bit 20, rebiased),
    // min with 0x7e, NaN -> 0x7f, sign or-ed back, truncated to i8 and
    // bitcast to f8E4M3FN
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def SCFToControlFlowBottomUp : Pass<"convert-scf-to-cf-bottom-up"> {
  let summary = "convert-scf-to-cf in linear time on long blocks";
  let description = [{
    Upstream's SCF to ControlFlow patterns
    (`populateSCFToControlFlowConversionPatterns`: scf.if, scf.for,
    scf.while, ... become blocks and `cf` branches), applied from the last
    op of the function up instead of from the first down.

    Lowering an `scf.if` splits its block after it, which moves every op
    after it into the continuation block. Top-down (upstream's
    `convert-scf-to-cf`), each `scf.if` of a long block moves the rest of
    the block again: quadratic in the number of ifs. The GPU lowering makes
    such blocks: a kernel is one straight-line block, and every exchange of
    a replicated tile through shared memory stores under an `scf.if` of its
    owner threads (a 64-element `tl.sort` of six sorts: 304 ifs in 35,000
    ops). Bottom-up, each split moves only the ops up to the next
    (already lowered) if: linear. The result is the same IR up to block
    order.
  }];
  let dependentDialects = ["::mlir::cf::ControlFlowDialect"];
}

#endif // TILEC_CONVERSION_PASSES_TD
