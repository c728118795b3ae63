"""`tilec.testing.do_bench`: Triton's benchmarking helper.

On the GPU (torch CUDA available): each repetition clears the L2 cache
(writes a 256 MiB buffer) and times `fn` alone between two CUDA events; the
warm-up and repetition counts come from time budgets in ms, as Triton's.
Without CUDA (the CPU backend), `time.perf_counter` around each call.
Returns the median in ms (or `quantiles` of the samples, or `return_mode`
'min', 'max', 'mean', 'all')."""

import statistics
import time


def _summary(times, quantiles, return_mode):
    if quantiles is not None:
        ordered = sorted(times)
        out = []
        for q in quantiles:
            pos = q * (len(ordered) - 1)
            lo = int(pos)
            hi = min(lo + 1, len(ordered) - 1)
            out.append(ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo))
        return out[0] if len(out) == 1 else out
    if return_mode == "all":
        return times
    return {"min": min, "max": max, "mean": statistics.mean,
            "median": statistics.median}[return_mode](times)


def _cuda():
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="median",
             flush_l2=True):
    """Time `fn()` (ms); `warmup` and `rep` are budgets in ms."""
    if return_mode not in ("min", "max", "mean", "median", "all"):
        raise ValueError(f"do_bench: unknown return_mode {return_mode!r}")
    torch = _cuda()
    if torch is None:
        fn()
        start = time.perf_counter()
        fn()
        estimate = max(time.perf_counter() - start, 1e-6) * 1e3
        for _ in range(max(1, int(warmup / estimate))):
            fn()
        times = []
        for _ in range(max(1, int(rep / estimate))):
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) * 1e3)
        return _summary(times, quantiles, return_mode)
    fn()
    torch.cuda.synchronize()
    cache = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int32, device="cuda") if flush_l2 else None
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(5):
        if cache is not None:
            cache.zero_()
        fn()
    end.record()
    torch.cuda.synchronize()
    estimate = max(start.elapsed_time(end) / 5, 1e-4)
    n_warmup = max(1, int(warmup / estimate))
    n_repeat = max(1, int(rep / estimate))
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    for _ in range(n_warmup):
        fn()
    for i in range(n_repeat):
        if grad_to_none is not None:
            for x in grad_to_none:
                x.grad = None
        if cache is not None:
            cache.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    times = [s.elapsed_time(e) for s, e in zip(starts, ends)]
    return _summary(times, quantiles, return_mode)
