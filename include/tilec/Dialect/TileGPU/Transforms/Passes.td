//===- Passes.td - tilegpu passes --------------------------*- tablegen -*-===//
//
// Part of tilec, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILEGPU_TRANSFORMS_PASSES_TD
#define TILEC_DIALECT_TILEGPU_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileGPUChooseWarpSpecialize : Pass<"tilegpu-choose-warp-specialize", "mlir::ModuleOp"> {
  let summary = "Decide, by the dots' registers, which loops --warp-specialize=auto splits";
  let description = [{
    The loop-local half of `--warp-specialize=auto`, run (in that mode
    only) before `tilegpu-assign-async-copies`, which copies the operands
    of a loop to be split by TMA (the producer warpgroup issues TMA only)
    where it would otherwise pick cp.async. It writes its decision on the
    loop as the `tile.warp_specialize` attribute that `tl.range(...,
    warp_specialize=...)` sets (a loop that has one is left as written),
    and `tilegpu-warp-specialize` follows it.

    For each `scf.for` of a kernel with `tile.dot`s in the warpgroup-MMA
    encoding directly in its body, with R the registers a thread holds for
    the loop's wgmma values as if all were live at once (each accumulator
    chain and each distinct register A, spread over the CTA's threads: a
    lower bound of what ptxas allocates):

    - `false` when a dot has 8-bit operands (fp8 attention at head dim
      128 ran 23 % slower split), when the kernel's warps are not one or
      two warpgroups, or when R exceeds what a consumer thread gets after
      setmaxnreg (232 on 8 warps, 240 on 4), with a remark: split, ptxas
      spills (the one-sweep backward at head dim 128 with 64 x 128 blocks,
      256 registers: 323 against 353 TFLOP/s pipelined on an H100);
    - `true` when R leaves no room for a second CTA on the SM (2 R times
      the CTA's threads above 64K registers), so the split's one CTA per
      SM costs no occupancy, and the kernel has at most two such loops
      (more would hand their rings on from loop to loop, which `auto`
      does not: the backward's four loops ran 3 % slower so), with a
      remark: the one-sweep backward at head dim 64 (176 registers a
      thread on 8 warps) ran 9 % faster split;
    - else undecided: `tilegpu-warp-specialize`'s shared-memory rule
      decides.
  }];
}

def TileGPUAssignAsyncCopies : Pass<"tilegpu-assign-async-copies", "mlir::ModuleOp"> {
  let summary = "Decide how every wgmma operand reaches shared memory";
  let description = [{
    Runs after layouts (convert-tile-to-tilegpu). Every `tile.dot` whose
    accumulator has a `#tilegpu.wgmma` layout becomes a
    `tilegpu.warpgroup_dot` reading its operands from shared-memory rings
    (`tilegpu.local_alloc`, swizzled as wgmma reads them), or its A from
    registers when A is a tile in the accumulator layout of an earlier dot
    whose warps split M alike (P in attention). Each operand gets there in
    one of three ways, decided once, here:

    - **TMA** (`tilegpu.tma_load` + an mbarrier): a global load (a tile of
      pointers, a rewritten block pointer or tensor descriptor) whose
      addresses and mask are an affine box of a tensor the runtime can
      describe at launch (Analysis/AffineAccess.h: base a 16-byte aligned
      pointer argument, strides kernel arguments or constants, one of them
      1, bounds from the mask). The kernel gets a `!tilegpu.tma_desc`
      argument whose `#tilegpu.tma_recipe` says how the runtime builds it.
    - **cp.async** (`tilegpu.async_copy`, commit, wait): a global load whose
      per-thread runs are 4, 8 or 16 contiguous, aligned bytes
      (tile-axis-info); masked-off elements are zero-filled. Also a box in
      a loop of three or more dots whose dot operand loads are all at most
      `cp-async-box-bytes` (8 KB), where cp.async can take it (a loop's
      copies are all TMA or all cp.async; decided per loop first):
      measured on an H100 (twelfth session), tutorial 06's backward
      (16x64 to 32x128 boxes of qT and dO, four and three dots a loop)
      runs 23 % (head dim 64, 4 warps) and 27 % (head dim 128, 8 warps)
      faster with cp.async, and ptxas spills 132 instead of 312 and 8
      instead of 244 bytes; the forward's 64x64 boxes (two dots a loop)
      were 4 % slower without causal masking and 4-7 % faster with it or
      in fp8, so two-dot loops keep TMA. A loop to be warp-specialized
      (`tl.range(..., warp_specialize=True)`, or every loop with
      `--warp-specialize=all`) keeps TMA: its producer issues TMA only.
    - **registers** (`tilegpu.local_store`): anything else, the value
      computed or loaded into registers and stored swizzled; a
      `tile.trans` of a register tile (`tl.dot(tl.trans(dsT), k)`) stores
      the untransposed tile with `transposed` (element (i, j) to (j, i)),
      not transposed in registers through scratch shared memory first.

    The loads are replaced only when every user is such a dot, directly or
    through a 2-d `tile.trans` (`tl.dot(q, k.T)`). One load read as B both
    ways (attention backward's `tl.dot(k, qT)` and
    `tl.dot(dsT, tl.trans(qT))`) gets one ring, read K-major by one dot and
    N-major by the other; 16-bit B only, the one operand wgmma reads in
    both orientations. The result
    is the single-stage form: in a loop, a CTA barrier (the previous
    iteration's readers are done), the copy, its wait, the dot; mbarriers
    are initialized before their loop and invalidated after it;
    `tilegpu-pipeline` then overlaps copies with the dots. A remark on each
    load says which way it went and why not a faster one.

    Example: in a matmul loop, `%a = tile.load %ptrs, %mask` and
    `%acc = tile.dot %a, %b, %c` become `tilegpu.tma_load %desc[...], %ring[%c0], ...`,
    `tilegpu.mbarrier_wait ...` and `tilegpu.warpgroup_dot %ring[%c0], ...`.
  }];
  let options = [
    Option<"useTMA", "use-tma", "bool", "true",
           "Copy affine boxes with TMA (--disable-tma turns it off)">,
    Option<"useCpAsync", "use-cp-async", "bool", "true",
           "Copy other aligned loads with cp.async (--disable-cp-async)">,
    Option<"cpAsyncBoxBytes", "cp-async-box-bytes", "int64_t", "8192",
           "In a loop of three or more dots, copy boxes of at most this many "
           "bytes with cp.async where it can, not TMA (0: TMA for every box)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::tilec::tilegpu::TileGPUDialect"];
}

def TileGPUPipeline : Pass<"tilegpu-pipeline", "mlir::ModuleOp"> {
  let summary = "Software-pipeline loops of async copies and wgmma over num-stages buffers";
  let description = [{
    Takes every `scf.for` whose body holds async copies in the single-stage
    form tilegpu-assign-async-copies makes (`tilegpu.tma_load` with its
    `mbarrier_expect`, `tilegpu.async_copy` with its commit) and pipelines
    it with MLIR's `scf::pipelineForLoop` (a modulo schedule of two stages,
    epilogue not peeled, earlier stages predicated): with S = `num-stages`
    (or the loop's `tl.range(num_stages=...)`),

    - every ring and mbarrier array it fills gets S buffers; iteration t
      uses buffer t mod S and waits for mbarrier phase (t / S) mod 2;
    - stage 0 is the copies (and the address arithmetic they need) of
      iteration t + S - 1, issued after the point where every reader of
      buffer (t - 1) mod S is done, predicated on the iteration existing;
      the prologue issues iterations 0 … S-2. When only TMA fills the
      loop's rings, that point is a release: every warp arrives on an
      "empty" mbarrier of the slot (`tilegpu.mbarrier_arrive`, S of them,
      counting the warps), and thread 0 waits for the slot's release
      before it refills it (`tilegpu.mbarrier_wait ... leader`, parity
      flipped so that a slot's first use passes); no warp waits for the
      others, so warpgroups run up to the ring's depth apart. With
      cp.async (every thread copies), a CTA barrier there;
    - stage 1 is everything else, in its order, on iteration t;
    - the cp.async copies of one iteration are one group; the wait before
      their first reader leaves S - 2 newer groups in flight;
    - every `warpgroup_dot` runs asynchronously: a `warpgroup_wait` goes
      before the first use of its result other than another dot's
      accumulator, with the number of dots issued since as its depth. A
      dot with a register A is retired at the end of its iteration (the
      wait's depth is the number of dots after it), unless it is the
      body's last dot, its result only goes through the yield to the next
      iteration (where no other dot accumulates into it), and its A is a
      narrowing conversion of a value computed from a wait that, in the
      next iteration, retires it: then it stays in flight behind the next
      iteration's first dots (attention's P * V; the backward's dK and dQ,
      which only accumulate, in kernels of more than one warpgroup: with
      one, two CTAs share an SM and the kept A fragments cost spills),
      as in Triton;
    - a read of a result nested in the body's control flow waits before
      the op of the body that holds it;
    - after the loop, the results' dots and the copies are waited for.

    A loop whose TMA copies fill rings of the same tiles (same barrier
    layout, bytes and stage count) as the loop pipelined just before it in
    the same block continues that loop's rings: its copies go into the
    same buffers and mbarriers (initialized once before the first loop,
    invalidated once after this one, the release mbarriers too) and its
    iteration t counts as B + t, B = max(0, ceil((ub - lb) / step)) of the
    earlier loop (plus that loop's own B), for slots, phases and releases;
    its first iteration releases the earlier loop's last slot. A remark
    says so. Causal attention's two loops over K and V blocks thus share
    one set of rings, and a producer warpgroup (tilegpu-warp-specialize)
    runs from one loop's copies into the next one's without a handoff.

    In a persistent kernel (tilegpu-persistent) the first pipelined loop of
    the loop over programs counts its iterations from a value that loop
    carries (0 at the start): when the body's pipelined loops form one
    chain of continued rings, the body yields that value plus the last
    loop's trip count and the rings' mbarriers are initialized once before
    the loop over programs and invalidated once after it, so the rings run
    on from one program to the next (a remark says so); otherwise the
    carried value stays 0. A single-buffer TMA copy made once per program
    directly in that body (attention's Q: CTA barrier, expect, copy, wait)
    gets the release protocol instead of the CTA barrier: thread 0 waits
    on a one-slot "empty" mbarrier (parity ((k & 1) ^ 1) in the k-th
    program), every warp arrives on it after the wait that retires the
    last dots reading the buffer, and the copy with its wait moves right
    before its first reader, after the loops' prologue copies.

    Any trip count, 0 and those below S included, runs every iteration's
    copies once and waits for them once. When S buffers of the loop's rings,
    beside the other rings it reads and its ops' scratch, would not fit the
    227 KB of a CTA's shared memory, fewer stages (at least 2) are taken and
    a remark says so. A loop it cannot take keeps the single-stage form and
    gets a remark saying why (one whose bounds compare unsigned among them:
    `scf::pipelineForLoop` does not expand it).
  }];
  let options = [
    Option<"numStages", "num-stages", "unsigned", "3",
           "Buffers per ring (1 keeps the single-stage form)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def TileGPUClusterMulticast : Pass<"tilegpu-cluster-multicast", "mlir::ModuleOp"> {
  let summary = "Group neighbouring programs into thread-block clusters that share their TMA copies";
  let description = [{
    Runs after `tilegpu-pipeline`, before `tilegpu-warp-specialize`, when
    `num-ctas` = C > 1: the programs along grid axis 0 run in thread-block
    clusters of C CTAs (`tl.program_id(0)` = 2k and 2k + 1 together for C =
    2; a Hopper cluster's CTAs run at once on one GPC and reach each other's
    shared memory, PTX ISA §5.2.3). A block every CTA of a cluster loads
    alike is then copied once per cluster and multicast into all of them
    (the H100 whitepaper's "TMA multicast"; FlashAttention-3 and CUTLASS
    share K and V, or a GEMM's B, this way), which halves (C = 2) the L2
    traffic of that operand.

    A copy is shared when its coordinates do not depend on
    `tl.program_id(0)` (a dataflow analysis over the kernel: the values
    computed from `program_id(0)`, from atomics, or from control flow
    that depends on them differ between the CTAs of a cluster; everything
    else is the same in all of them): attention's K and V, whose block
    pointers advance over N_CTX from an offset of `program_id(1)` only.
    When they depend on it only through integers computed before the loop
    by pure arithmetic with a division, remainder or shift (a GEMM's
    grouped program order gives programs 2k and 2k + 1 one column of B
    blocks when the group holds an even count of M blocks), each CTA
    computes those integers for every program of its cluster before the
    prologue, and the copies are multicast when they agree
    (`multicast_if`), each CTA's own otherwise. A
    software-pipelined loop (its ring slots released through "empty"
    mbarriers) is taken when its bounds and every enclosing loop's bounds
    and `if` condition are the same in every CTA of the cluster (so that
    the CTAs run the same iterations: each waits for the others' releases),
    and every copy into a ring, the prologue's too, is shared; then:

    - the shared rings' `tilegpu.tma_load`s get `multicast = C`: the CTA of
      rank r issues every C-th box, into every CTA of the cluster (the
      other rings stay each CTA's own);
    - the empty barriers count the warps of all C CTAs (`mbarrier_init`
      count times C), and the warps release a slot in every CTA
      (`tilegpu.mbarrier_arrive {clusterCTAs = C}`): a CTA refills a slot
      only when all of them are done with it;
    - the last of the barriers' `mbarrier_init`s (all before the loop) ends
      with a cluster barrier (the others' barriers exist before a copy
      signals them), and the empty barriers' `mbarrier_inval` starts with
      one (no CTA still arrives on them, or exits, while another does).

    The kernel then gets `tilegpu.cluster_dims = [C, 1, 1]`: the lowering
    writes `.reqnctapercluster` into the PTX, the metadata `cluster_dims`,
    and the runtime launches it with `cuLaunchKernelEx` (the grid's axis 0
    must be a multiple of C). A kernel with nothing to share is left
    unclustered. Every loop gets a remark saying what it shares or why
    nothing. Not handled: blocks of fewer boxes than C (one swizzle row
    wide, e.g. head dim 64 in 16 bits: the rows would have to be split,
    with a smaller TMA box).
  }];
  let options = [
    Option<"numCTAs", "num-ctas", "unsigned", "1",
           "CTAs per cluster along grid axis 0 (1, 2, 4 or 8; 1 = no clusters)">
  ];
  let dependentDialects = ["::tilec::tilegpu::TileGPUDialect"];
}

def TileGPUIssueDotsEarly : Pass<"tilegpu-issue-dots-early", "mlir::ModuleOp"> {
  let summary = "Issue a loop's dot ahead of an earlier-written dot whose inputs are ready later";
  let description = [{
    On Hopper a dot is asynchronous: its wgmma runs on the tensor cores
    while the warpgroup goes on, and a wait before the first read of its
    result retires it. A dot written after elementwise work it does not
    need runs only after that work. Tutorial 06's backward computes
    `pT = exp2(qkT - m)` and only then `dpT = tl.dot(v, tl.trans(do))`,
    which needs only `do`: the tensor cores idle under `exp2`.

    In each `scf.for` body, a `tile.dot` whose inputs are ready before
    those of a dot written ahead of it overtakes that dot: it moves up,
    with the ops it depends on that can move (its operands' loads,
    transposes, conversions, in their order), past the ops it does not
    depend on, stopping below the first op it needs that cannot move (an
    earlier dot's result, an op with a region or a write), below a dot
    whose inputs are ready no later (the anchor of a dot is the last op it
    depends on that cannot move), or, when a load moves with it, below a
    write or a volatile load. A volatile load never moves. The ops it
    passes keep their order. A dot moves only when it overtakes a dot or
    lands right behind a dot it does not need; the others stay
    (attention's forward P V does not move above the row sum). In the
    backward's dK/dV loop, `dpT` moves above `exp2` and `dv` to just after
    `qkT`; in its dQ loop, `dp` moves above `exp2` to just after `qk`. The
    tensor cores run it under `exp2`, and the wait before the softmax
    leaves it in flight (`tilegpu-pipeline` counts the dots issued since).
  }];
}

def TileGPUPrefetchLoads : Pass<"tilegpu-prefetch-loads", "mlir::ModuleOp"> {
  let summary = "Load the next iteration's small tiles into registers one iteration ahead";
  let description = [{
    A `tl.load` in a loop that the async-copy passes left a load (a tile
    that is not a dot operand, as tutorial 06 backward's `m = tl.load(M +
    offs_m)` and `Di = tl.load(D + offs_m)`, or a small operand that goes
    through registers) is read at the top of each iteration and
    used a few instructions later: the warpgroup waits a global-memory
    latency (~0.5–1 µs) on every trip, with its tensor cores idle. This
    pass issues each such load one iteration early, into registers carried
    by the loop (software pipelining at distance 1 in registers, the
    "prefetch" of classic loop pipelining; Triton's pipeliner reaches the
    same with cp.async rings):

    - before the loop, the load of iteration 0, masked off when the loop
      runs no iteration;
    - at the top of iteration i, the load of iteration i + 1: its address,
      mask and `other` recomputed for i + 1 (the induction variable plus
      the step, each loop-carried value replaced by what the iteration
      yields), masked off on the last iteration, so no address past the
      loop's is read;
    - the load's uses read the loop-carried value.

    A load qualifies when it is directly in the body of an `scf.for`
    (signed bounds) that issues a `tilegpu.warpgroup_dot` (the loops whose
    one warpgroup has no other warps to hide a latency behind), writes no
    global memory (no store, atomic, TMA store, inline assembly or call:
    the next iteration's load would be issued before this iteration's
    write; measured on an H100, thirteenth session, prefetching the one-sweep
    backward's m and Delta past its dQ atomics anyway cost 5 and 16 %:
    ptxas spilled more) and checks nothing (no `tl.device_assert` or `tl.device_print`: a load
    guarded by an assert would run before it), is not
    volatile, yields a tile of at most 16 registers a thread (so the
    extra registers stay few), and its address, mask and `other` are
    computed in the body by pure ops from the induction variable,
    loop-carried values whose yielded values are the same, and values from
    outside the loop (no other load on the way).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::tilec::tile::TileDialect"];
}

def TileGPUStoreViaTMA : Pass<"tilegpu-store-via-tma", "mlir::ModuleOp"> {
  let summary = "Store a tensor-core kernel's 2-d output tiles through shared memory with TMA";
  let description = [{
    A `tl.store` of a 2-d tile from registers (`st.global`, one to four
    elements a thread and instruction) keeps the consumer warps at the
    load/store unit while they could start the next program, and writes
    rows in 16-byte pieces. FlashAttention-3 and CUTLASS's epilogues write
    the tile into shared memory instead and let one thread hand it to the
    TMA unit (`cp.async.bulk.tensor` global from shared, PTX ISA
    §9.7.9.25.5.3), which writes whole lines while the warps go on.

    In a kernel with a `tilegpu.warpgroup_dot`, a store qualifies when its
    tile is 2-d, its addresses and mask are a TMA box of a kernel argument
    (`AffineAccessAnalysis::getTMABox`, as for loads: a mask bound is the
    tensor's size, and TMA does not write elements outside it) and it sits
    directly in the kernel's body, in the consumer region of its
    `tilegpu.warp_specialize`, or in a persistent kernel's loop over
    programs (every consumer thread runs it alike: the barriers meet). It
    becomes:

    - `tilegpu.tma_store_wait` first when it is in the loop over programs
      (the previous program's copy has read the buffer);
    - `tilegpu.local_store` of the value into a one-buffer staging ring
      (`tilegpu.local_alloc`, the swizzled layout the descriptor's box
      reads), `tilegpu.fence_async_shared`, a barrier of the consumer
      threads;
    - `tilegpu.tma_store` by thread 0, with a `!tilegpu.tma_desc` argument
      and its `#tilegpu.tma_recipe`, only when every size of the box that
      depends on a kernel argument is positive (the runtime describes an
      empty dimension as one element, which the masked store did not
      write);
    - one `tilegpu.tma_store_wait` at the end of the kernel (or of the
      consumer region) naming every staging buffer: the buffers stay live
      until there, so nothing after a copy reuses their memory while it
      reads them, and the CTA's shared memory outlives the reads.

    A kernel that touches the stored tensor otherwise (a load, another
    store or an atomic of pointers computed from its argument, or a TMA
    copy of it) keeps that store: the copy's writes, which
    `wait_group.read` does not order, are ordered with none of them. A
    kernel with an atomic, inline assembly or a call keeps all its stores:
    it may tell another CTA the output is ready.

    The staging buffer is live where the store is: after a loop it reuses
    the loop's rings (tilegpu-allocate-shared), in a persistent kernel it
    is a buffer of its own. When it would take the kernel past 227 KB of
    shared memory (`planSharedMemoryBytes`), the store stays as it is,
    with a remark (fewer pipeline stages make room).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TileGPUAtomicAddViaTMA : Pass<"tilegpu-atomic-add-via-tma", "mlir::ModuleOp"> {
  let summary = "Add a tensor-core kernel's 2-d f32 atomic tiles into global memory with TMA reductions";
  let description = [{
    FlashAttention's one-sweep backward adds each block's share of dQ into
    an f32 buffer: `tl.atomic_add(dq_ptrs, dq, sem="relaxed")`, a 64 x 128
    tile every step. From registers that is a `red.global.add.v4.f32` per
    4 elements and thread, after shuffles that gather the accumulator's
    pairs into runs of 4 (8 reds and 16 shuffles a thread at head dim
    128), in the consumer warps' instruction stream. FlashAttention-3
    writes dQ into shared memory instead and has the TMA unit add it
    (`cp.reduce.async.bulk.tensor ... .add`, PTX ISA §9.7.9.25.5.4),
    atomically per element, while the warps go on.

    In a kernel with a `tilegpu.warpgroup_dot`, a `tile.atomic_rmw` of
    kind `fadd` on a 2-d f32 tile qualifies when its old values are not
    read, it is `relaxed` at `gpu` scope (a TMA reduction orders nothing),
    its pointers and mask are a TMA box of a kernel argument
    (`AffineAccessAnalysis::getTMABox`, as for stores: the box's sizes
    bound the mask, and TMA touches nothing outside them), no thread holds
    an element another holds, nothing else in the kernel touches that
    tensor (a load, store, other atomic or TMA copy would not be ordered
    with the reduction's writes, made through the async proxy), the kernel
    has no other atomic, inline assembly or call (a release could tell
    another CTA the sums are complete before they are), and it sits in the
    kernel's body or the consumer region of its `tilegpu.warp_specialize`,
    possibly in loops and ifs (their bounds and conditions are alike in
    every thread, so the barriers meet), in a kernel without ping-pong
    turns (tilec runs the pass before `tilegpu-warp-specialize`, whose
    turns refuse loops with barriers: a turn awaited before a barrier the
    other warpgroup holds would deadlock). It becomes:

    - `tilegpu.tma_store_wait` of the staging buffer (thread 0 waits until
      the previous reduction from it has read it; a barrier);
    - `tilegpu.local_store` of the value (before the shuffles
      `convert-tile-to-tilegpu` made for the atomic's addresses) into the
      staging buffer, `tilegpu.fence_async_shared`, a barrier;
    - `tilegpu.tma_store add` by thread 0, with a `!tilegpu.tma_desc`
      argument and its `#tilegpu.tma_recipe`, only when every size of the
      box that depends on a kernel argument is positive;
    - one `tilegpu.tma_store_wait` at the end of the kernel (or of the
      consumer region) naming the buffers, which stay live until there.

    The kernel's atomics of one tile type share one staging buffer (causal
    attention's two loops). When it would take the kernel past 227 KB of
    shared memory, the atomic stays as it is, with a remark; a remark also
    says when one becomes a reduction.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TileGPUPersistent : Pass<"tilegpu-persistent", "mlir::ModuleOp"> {
  let summary = "Make kernels persistent: each CTA loops over programs of the grid";
  let description = [{
    A kernel launched with more programs than the GPU runs at once pays, in
    every CTA, for its start and its end (the launch, Q's load and the
    pipeline's fill in attention, the epilogue) with the SM idle. The pass
    rewrites each kernel into a persistent one, as FlashAttention-3 and
    cuDNN's attention kernels are written by hand: the kernel gets three
    i32 arguments `grid_x, grid_y, grid_z` (`tilegpu.program_grid` = axis;
    the `program_grid` hidden parameters of docs/metadata.md: the grid the
    caller launched, which the runtime passes while it launches
    min(grid_x · grid_y · grid_z, SMs × CTAs per SM) CTAs along x, the
    metadata saying `"persistent": true`), and its body becomes the body of

        scf.for %vid = program_id(0) to grid_x·grid_y·grid_z step num_programs(0)
            {tilegpu.persistent}

    in which `tl.program_id(a)` is `tilegpu.persistent_program_id %vid`
    (the programs run in the order of a non-persistent launch, axis 0
    fastest; the CTAs running at once work on consecutive programs) and
    `tl.num_programs(a)` is `grid_a`. Later passes continue the rings of
    the body's pipelined loops from one program to the next
    (tilegpu-pipeline) and split the whole loop into producer and
    consumers (tilegpu-warp-specialize), so a CTA's producer copies the
    next program's tiles while its consumers finish this one.

    Refused, with a remark, when the programs might observe each other
    (atomics, volatile loads, inline assembly, calls, while loops: one CTA
    now runs several programs in turn, so a program waiting for a later
    one would wait forever), when it prints or asserts
    (`tile.print`, `tile.assert`: their output names the program by the
    CTA's indices), when they run different numbers of
    iterations of a loop (the slope analysis of tilegpu-longest-first:
    a launch hands a freed SM the next program, a persistent kernel's
    fixed rounds do not; causal attention ran 8-28 % slower persistent on
    an H100, bench/RESULTS.md, ninth session) or when the kernel has more
    than one block. Off unless asked for (`tilec --persistent`).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::tilec::tilegpu::TileGPUDialect"];
}

def TileGPULongestFirst : Pass<"tilegpu-longest-first", "mlir::ModuleOp"> {
  let summary = "Launch a kernel's longest programs first when its work grows with program_id(0)";
  let description = [{
    A GPU runs a grid's CTAs in the order of their linear index, x
    fastest, as SMs free up. When the programs with the larger
    `tl.program_id(0)` run longer (causal attention: the first loop of
    tutorial 06's forward kernel runs `start_m` iterations), that order
    starts the longest programs last, and the last wave is a few long
    programs on an otherwise idle GPU. Handing out the program ids longest
    first (Graham's longest-processing-time-first list scheduling, which
    FlashAttention-3's causal scheduler also uses) fills the tail with the
    short ones.

    The pass computes, for every `scf.for` of a kernel, how its trip count
    moves with `program_id(0)` (a slope analysis of its bounds: sums,
    differences, products and floor divisions by constants, min, max,
    sign extensions, all signed; values that do not depend on `program_id(0)` are constant).
    When at least one loop runs more iterations for a larger
    `program_id(0)` and none runs fewer or depends on it in a way the
    analysis cannot tell, and the programs cannot observe each other (no
    atomics, volatile loads, inline assembly, calls or while loops: the
    order the hardware runs them in is then invisible), the kernel gets
    `tilegpu.longest_first = G` and a remark. The lowering then maps the
    CTA of linear index L (x fastest) in a grid of nx x ny to
    `program_id(0)` = nx - 1 - (L mod (G·nx)) / g and `program_id(1)` =
    G·(L / (G·nx)) + (L mod (G·nx)) mod g, with g = min(G, ny - G·(L / (G·nx)))
    (the last group may be smaller): the launch walks `program_id(0)`
    downwards and, for each, `program_id(1)` through a group of G. With
    G = 1 only axis 0 is reversed; a larger G interleaves more of
    `program_id(1)` (attention's heads), nearer to a global longest-first
    order, while the CTAs running at once still share the K and V of G
    heads (G = 8: 16 MB of K and V at N_CTX 4096, head dim 128, within
    the L2). `program_id(2)` and `num_programs` are unchanged.

    Runs after `tilegpu-cluster-multicast` and skips clustered kernels (the
    CTAs of a cluster must be the programs 2k, 2k + 1 of axis 0).
  }];
  let options = [
    Option<"group", "group", "unsigned", "8",
           "How many consecutive program_id(1) values the launch interleaves "
           "for each program_id(0) (1: reverse axis 0 only)">
  ];
  let dependentDialects = ["::tilec::tilegpu::TileGPUDialect"];
}

def TileGPUWarpSpecialize : Pass<"tilegpu-warp-specialize", "mlir::ModuleOp"> {
  let summary = "Split TMA-fed pipelined loops into a producer warpgroup and the consumer warps";
  let description = [{
    Runs after `tilegpu-pipeline`. Takes a loop the pipeliner expanded
    with the release through "empty" mbarriers (every ring it fills is
    filled by `tilegpu.tma_load`; its stage-0 copies are predicated
    `mbarrier_wait ... leader` on the empty barriers, `mbarrier_expect`
    and `tma_load` on the "full" ones, in the loop and in its prologue)
    and gives the copies to a warpgroup of their own:

    - The kernel's body (after the shared-memory allocations) goes into the
      `consumer` region of a `tilegpu.warp_specialize`, run by the
      kernel's `num_warps` warps (the threads its layouts index), without
      the copies and the waits for the empty barriers: the consumers wait
      for the full barriers, run the wgmma and everything else, and
      release each slot by arriving on its empty barrier, as they did.
    - The `producer` region, run by one warp of one extra warpgroup, is
      the backward slice of those copies: the prologue's copies, and a
      loop with the same bounds whose body is the copies of iteration
      t + S − 1 with the arithmetic they need (the induction variable,
      loop-carried coordinates and advanced block pointers, pure scalars
      from before the loop such as program ids, recomputed). Its leader
      thread waits for the release of a slot before it refills it
      (the parity that lets a slot's first fill pass), sets the full
      barrier's expected bytes and issues the copies, up to S iterations
      ahead of the consumers.
    - The `mbarrier_init` of those barriers moves before the op, where the
      whole CTA runs (its `bar.sync 0` makes them visible to both sides);
      the full barriers count 1 arrival (the producer's expect-tx), the
      empty ones `num_warps` (lane 0 of every consumer warp).
    - The producer lowers its registers to `producer-registers`, the
      consumers raise theirs to `consumer-registers` (setmaxnreg); CTA
      barriers in the consumer code become named barriers of the consumer
      threads; the CTA grows by 128 threads (the metadata's `num_threads`
      and the kernel's `.maxntid` say so).

    The producer runs ahead of the consumers, so its loops' rings cannot
    simply share memory as they do unsplit. When they do not fit side by
    side, consecutive loops hand them on (`auto` between two loops only:
    causal attention at head dim 128 ran 7–14 % faster split so on an
    H100 before its loops continued one set of rings, the backward's four
    loops 3 % slower; `all`, `requested` and
    loops written `warp_specialize=True` take any number): `tilegpu.ring_handoff k` goes
    into the consumer region after the `warpgroup_wait {pendings = 0}` that
    retires loop k's dots (nothing after it may use loop k's rings) and
    into the producer region before loop k + 1's first copy, and
    tilegpu-allocate-shared lets rings on either side share memory. The
    kernel is then split when the split, tried first on a copy of the
    kernel and laid out by tilegpu-allocate-shared's own rule, fits
    (a kernel of loops over different tiles); the producer starts a loop's
    copies when the consumers have finished the loop before, a pipeline's
    fill at each loop's start. Loops whose rings tilegpu-pipeline
    continued (causal attention's two loops over K and V: one set of
    rings) need no handoff: the producer runs on from one loop's copies
    into the next one's. Such loops are split together or not at all (a
    loop that shares its rings with a loop not split is refused, with a
    remark).

    A loop is taken when it is asked for and can be: `mode` `all` takes
    every loop that can be; `auto` those `tilegpu-choose-warp-specialize`
    (run before `tilegpu-assign-async-copies`) chose by their dots'
    registers or left undecided, and of those left undecided the ones with
    a `tilegpu.warpgroup_dot` in kernels whose rings and mbarriers, side by side,
    take more than half of an SM's 227 KB of shared memory (an SM holds one
    such CTA anyway, and a warp-specialized kernel runs one CTA per SM, so
    the split costs no occupancy: attention at head dim 128 and the
    128 x 256 GEMM, not attention at head dim 64, which runs two CTAs per
    SM without it); `requested` only loops written
    `tl.range(..., warp_specialize=True)`; `off` none. Every mode but
    `off` takes a loop with `warp_specialize=True` (the loop's
    `tile.warp_specialize` attribute, set by the frontend or by
    `tilegpu-choose-warp-specialize`) and never one with
    `warp_specialize=False`. A loop that is asked for and cannot be
    taken keeps its form and gets a remark saying why: it is not a
    pipelined TMA loop with the release through mbarriers (cp.async
    copies, one stage), it is nested in other control flow, the kernel's
    warps are not whole warpgroups, or a copy's coordinates depend on
    values the consumers compute (a load, a tile, an op with regions).

    In a persistent kernel (tilegpu-persistent) the loops directly in the
    loop over programs are split like loops of the kernel's body when
    their rings run on from one program to the next (their mbarriers
    initialized once, before the loop over programs): the producer runs
    the loop over programs too, carrying what the copies' coordinates
    need (the ring iteration), and takes the body's once-per-program
    copies that tilegpu-pipeline gave the release protocol (attention's
    Q: the ops it marked `oncePerProgram`), so it copies the next
    program's tiles while the consumers finish this one. Ring handoffs are
    not made there.

    Example: the pipelined matmul loop

    ```mlir
    tilegpu.mbarrier_init %full : !tilegpu.mbarriers<3>
    tilegpu.mbarrier_init %empty {count = 4 : i32} : !tilegpu.mbarriers<3>
    // prologue: wait leader, expect, tma_load for iterations 0, 1
    scf.for %i = ... {
      tilegpu.mbarrier_wait %full[%s], %phase
      %d = tilegpu.warpgroup_dot ...
      tilegpu.mbarrier_arrive %empty[%prev] if %hasPrev
      tilegpu.mbarrier_wait %empty[%j], %parity leader if %jExists
      tilegpu.mbarrier_expect %full[%j], 32768 if %jExists
      tilegpu.tma_load %desc[...], %ring[%j], %full[%j] if %jExists
    }
    ```

    becomes `tilegpu.mbarrier_init`s, then `tilegpu.warp_specialize
    consumer { ... the loop without the last three ops ... } producer {
    ... the prologue's copies; scf.for %i = ... { the last three ops and
    their operands } }`.
  }];
  let options = [
    Option<"mode", "mode", "std::string", "\"auto\"",
           "Which loops: off, requested (tl.range(warp_specialize=True) "
           "only), auto (also loops with wgmma in kernels of 4 or 8 warps), "
           "all (every loop that can be)">,
    Option<"producerRegisters", "producer-registers", "unsigned", "40",
           "Registers per thread of the producer warpgroup after setmaxnreg "
           "(a multiple of 8 in [24, 256]; 40 leaves room for the spin "
           "limit's printf)">,
    Option<"consumerRegisters", "consumer-registers", "unsigned", "0",
           "Registers per thread of the consumer warps after setmaxnreg "
           "(a multiple of 8 in [24, 256]); 0: by the consumer warpgroups, "
           "240 for one, 232 for two, else what the SM's 64K registers "
           "leave beside the producer">,
    Option<"pingPong", "ping-pong", "std::string", "\"off\"",
           "off, auto or on. With two consumer warpgroups (8 warps), let "
           "them take turns at the tensor cores in each split loop with two "
           "or more warpgroup dots and no consumer barrier: "
           "tilegpu.turn_pass after the body's first dot, tilegpu.turn_wait "
           "before its last (FlashAttention-3's ping-pong: one warpgroup's "
           "softmax runs under the other's wgmma). `on` remarks on each "
           "split loop that cannot; `auto` (the compiler's default) takes "
           "those that can silently">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::tilec::tilegpu::TileGPUDialect"];
}

def TileGPUIntraWarpgroupOverlap : Pass<"tilegpu-intra-warpgroup-overlap", "mlir::ModuleOp"> {
  let summary = "Issue a consumer loop's last dot one iteration late, under the next iteration's code";
  let description = [{
    FlashAttention-3's intra-warpgroup overlap (Shah et al., "FlashAttention-3:
    Fast and Accurate Attention with Asynchrony and Low-precision", 2024,
    §3.2). Runs after `tilegpu-pipeline` and `tilegpu-warp-specialize`, on
    their loops (a producer warpgroup's consumer loop, or a pipelined loop
    whose TMA copies the body issues itself). In attention's loop the
    warps issue S = Q K^T, wait for it, run the
    softmax with no wgmma in flight, then issue O += P V. Issued in the
    order QK^T(j), PV(j - 1), the wait for S(j) leaves PV(j - 1) running
    under softmax(j); the wait before the rescale of O retires it.

    A loop is taken when its body has two or more asynchronous
    `tilegpu.warpgroup_dot`s, the last of which (D) takes its A from
    registers and yields its result, and nothing else reads it; the
    iteration argument it feeds is read only by one `tilegpu.warpgroup_wait`
    after the body's first dot; and the body has no cp.async copies or
    CTA barriers (their ring is released by a barrier placed for the dots'
    order). Then:

    - the first iteration is peeled (without D) and the loop starts one step
      later; D's operands defined in the body (P, the ring slot, the
      rescaled accumulator) are carried to the next iteration, where D is
      issued right after the body's first dot;
    - the wait that read D's result through the iteration argument now takes
      D's result and its register A (kept unchanged until then), and the
      ring-slot releases (`tilegpu.mbarrier_arrive`) between D and that wait
      move after it (the slot D reads is free once D is retired), followed
      by the refills there (a pipelined loop's `mbarrier_wait ... leader`,
      `mbarrier_expect` and `tma_load`: the leader waits for every warp's
      release of the slot it refills);
    - after the loop D is issued once more for the last iteration and
      retired; everything is guarded by the loop running at least once;
    - the `pendings` of every wait in the peeled iteration and the loop are
      recounted: the dots issued after the one it retires.

    Ping-pong's turns (`tilegpu.turn_pass` right after the first dot) then
    follow both dots: each warpgroup issues QK^T(j) and PV(j - 1) in its
    turn, as FlashAttention-3 does.

    `mode` says which loops: `all` (the pass's default) every loop that
    can be taken, with a remark saying why not for each other loop with
    dots; `warp-specialized` (the compiler's default) only loops in the
    consumer region of a `tilegpu.warp_specialize`, silently. The device
    runs measured the overlap faster there (both head dims, with and
    without ping-pong) and up to 2 % slower in non-causal loops without a
    producer warpgroup (docs/architecture.md 4c'').
  }];
  let options = [
    Option<"mode", "mode", "std::string", "\"all\"",
           "all (every loop that can be) or warp-specialized (only the "
           "consumer loops of a tilegpu.warp_specialize)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::tilec::tilegpu::TileGPUDialect"];
}

def TileGPUAllocateShared : Pass<"tilegpu-allocate-shared", "mlir::ModuleOp"> {
  let summary = "Lay out the kernel's shared memory";
  let description = [{
    Gives every shared-memory user of a kernel its place in the dynamic
    shared memory: rings (`tilegpu.local_alloc`, 1024-byte aligned for the
    swizzle), mbarrier arrays (`tilegpu.mbarrier_alloc`, 8-byte aligned)
    and the scratch of ops whose lowering goes through shared memory
    (tilec/Dialect/TileGPU/IR/Scratch.h; 128-byte aligned). Each has a live
    range over the kernel's ops in order — from its first to its last use,
    widened to the whole of every loop it is used in, and to the whole of a
    `tilegpu.warp_specialize` whose producer uses it (narrowed by its
    `tilegpu.ring_handoff`s: a producer use between handoffs k − 1 and k
    lives from the consumers' handoff k − 1 to their handoff k); an op's
    scratch lives while the op runs — and buffers whose ranges do not overlap share
    memory (first fit, largest first). Where a ring or an mbarrier array
    reuses memory, a `tilegpu.barrier` goes before its first use unless one
    (or an `mbarrier_inval`, which begins with one) is already between the
    two: program order is not an order between warpgroups, one of which
    may still be in the loop that last read the memory. Writes the `offset` of the
    allocations, `tilegpu.scratch_offset` on scratch users and the total
    (`tilegpu.shared_memory`) on the kernel; convert-tilegpu-to-llvm reads
    them and nothing else. Fails with a located error when the kernel needs
    more than the 227 KB a Hopper CTA can have.
  }];
}

#endif // TILEC_DIALECT_TILEGPU_TRANSFORMS_PASSES_TD
