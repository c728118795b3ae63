"""The seed's weighted sum (CS336 assignment 2) as a torch.autograd.Function:

    forward:   y[r] = sum_d x[r, d] * w[d]                 x: ... x D, w: D
    backward:  grad_x[r, d] = grad_y[r] * w[d]
               grad_w[d]    = sum_r x[r, d] * grad_y[r]

The kernels are examples/weighted_sum.tile's, with the accumulator in the
inputs' precision when they are float64 (so `torch.autograd.gradcheck` can
check them) and float32 otherwise. The backward kernel cannot finish grad_w
inside one program (a sum over all rows): program t writes its rows' share to
row t of `partial_grad_w` (n_row_tiles x D), which is then summed by torch.
Leading dimensions of x are flattened; any strides (no copies).
"""

import tilec
import tilec.language as tl


@tilec.jit
def weighted_sum_fwd(x_ptr, w_ptr, y_ptr, stride_xr, stride_xd, stride_w, stride_y, ROWS, D,
                     ROWS_TILE: tl.constexpr, D_TILE: tl.constexpr, FP64: tl.constexpr):
    row_tile = tl.program_id(0)
    x_block = tl.make_block_ptr(x_ptr, shape=(ROWS, D), strides=(stride_xr, stride_xd),
                                offsets=(row_tile * ROWS_TILE, 0),
                                block_shape=(ROWS_TILE, D_TILE), order=(1, 0))
    w_block = tl.make_block_ptr(w_ptr, shape=(D,), strides=(stride_w,), offsets=(0,),
                                block_shape=(D_TILE,), order=(0,))
    if FP64:
        acc = tl.zeros((ROWS_TILE,), dtype=tl.float64)
    else:
        acc = tl.zeros((ROWS_TILE,), dtype=tl.float32)
    for _ in range(tl.cdiv(D, D_TILE)):
        x = tl.load(x_block, boundary_check=(0, 1), padding_option="zero")
        w = tl.load(w_block, boundary_check=(0,), padding_option="zero")
        if FP64:
            acc += tl.sum(x.to(tl.float64) * w.to(tl.float64)[None, :], axis=1)
        else:
            acc += tl.sum(x.to(tl.float32) * w.to(tl.float32)[None, :], axis=1)
        x_block = x_block.advance((0, D_TILE))
        w_block = w_block.advance((D_TILE,))
    y_block = tl.make_block_ptr(y_ptr, shape=(ROWS,), strides=(stride_y,),
                                offsets=(row_tile * ROWS_TILE,), block_shape=(ROWS_TILE,), order=(0,))
    tl.store(y_block, acc, boundary_check=(0,))


@tilec.jit
def weighted_sum_bwd(x_ptr, w_ptr, grad_y_ptr, grad_x_ptr, partial_grad_w_ptr,
                     stride_xr, stride_xd, stride_w, stride_gy, stride_gxr, stride_gxd,
                     stride_pr, stride_pd, ROWS, D,
                     ROWS_TILE: tl.constexpr, D_TILE: tl.constexpr):
    row_tile = tl.program_id(0)
    n_row_tiles = tl.num_programs(0)
    grad_y_block = tl.make_block_ptr(grad_y_ptr, shape=(ROWS,), strides=(stride_gy,),
                                     offsets=(row_tile * ROWS_TILE,), block_shape=(ROWS_TILE,),
                                     order=(0,))
    grad_y = tl.load(grad_y_block, boundary_check=(0,), padding_option="zero")
    x_block = tl.make_block_ptr(x_ptr, shape=(ROWS, D), strides=(stride_xr, stride_xd),
                                offsets=(row_tile * ROWS_TILE, 0),
                                block_shape=(ROWS_TILE, D_TILE), order=(1, 0))
    grad_x_block = tl.make_block_ptr(grad_x_ptr, shape=(ROWS, D), strides=(stride_gxr, stride_gxd),
                                     offsets=(row_tile * ROWS_TILE, 0),
                                     block_shape=(ROWS_TILE, D_TILE), order=(1, 0))
    w_block = tl.make_block_ptr(w_ptr, shape=(D,), strides=(stride_w,), offsets=(0,),
                                block_shape=(D_TILE,), order=(0,))
    partial_block = tl.make_block_ptr(partial_grad_w_ptr, shape=(n_row_tiles, D),
                                      strides=(stride_pr, stride_pd), offsets=(row_tile, 0),
                                      block_shape=(1, D_TILE), order=(1, 0))
    for _ in range(tl.cdiv(D, D_TILE)):
        w = tl.load(w_block, boundary_check=(0,), padding_option="zero")
        tl.store(grad_x_block, grad_y[:, None] * w[None, :], boundary_check=(0, 1))
        x = tl.load(x_block, boundary_check=(0, 1), padding_option="zero")
        # Rows past ROWS read as zero (x and grad_y), adding nothing.
        partial = tl.sum(x * grad_y[:, None], axis=0)
        tl.store(partial_block, partial[None, :], boundary_check=(0, 1))
        x_block = x_block.advance((0, D_TILE))
        grad_x_block = grad_x_block.advance((0, D_TILE))
        w_block = w_block.advance((D_TILE,))
        partial_block = partial_block.advance((0, D_TILE))


_function = None


def _tiles(d):
    return 16, max(16, min(64, tilec.next_power_of_2(d)))


def _make_function():
    import torch

    class WeightedSumFunction(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, weight):
            d = x.shape[-1]
            if weight.shape != (d,):
                raise ValueError(f"weighted_sum: weight has shape {tuple(weight.shape)}, want ({d},)")
            if x.dtype != weight.dtype or x.device != weight.device:
                raise ValueError("weighted_sum: x and weight need one dtype and device")
            shape = x.shape[:-1]
            x2 = x.reshape(-1, d)  # a view where the layout allows
            rows = x2.shape[0]
            rows_tile, d_tile = _tiles(d)
            ctx.save_for_backward(x, weight)
            ctx.tiles = (rows_tile, d_tile)
            y = torch.empty(rows, device=x.device, dtype=x.dtype)
            weighted_sum_fwd[(tilec.cdiv(rows, rows_tile),)](
                x2, weight, y, x2.stride(0), x2.stride(1), weight.stride(0), y.stride(0), rows, d,
                ROWS_TILE=rows_tile, D_TILE=d_tile, FP64=x.dtype == torch.float64)
            return y.view(shape)

        @staticmethod
        def backward(ctx, grad_y):
            x, weight = ctx.saved_tensors
            rows_tile, d_tile = ctx.tiles
            d = x.shape[-1]
            x2 = x.reshape(-1, d)
            rows = x2.shape[0]
            grad_y = grad_y.reshape(-1)
            tiles = tilec.cdiv(rows, rows_tile)
            grad_x = torch.empty_like(x2)
            partial = torch.empty((tiles, d), device=x.device, dtype=x.dtype)
            weighted_sum_bwd[(tiles,)](
                x2, weight, grad_y, grad_x, partial, x2.stride(0), x2.stride(1), weight.stride(0),
                grad_y.stride(0), grad_x.stride(0), grad_x.stride(1), partial.stride(0),
                partial.stride(1), rows, d, ROWS_TILE=rows_tile, D_TILE=d_tile)
            return grad_x.view(x.shape), partial.sum(0)

    return WeightedSumFunction


def __getattr__(name):
    if name == "WeightedSum":
        return _get()
    raise AttributeError(name)


def _get():
    global _function
    if _function is None:
        _function = _make_function()
    return _function


def weighted_sum(x, weight):
    """sum(x * weight, dim=-1) with tilec kernels, differentiable in both."""
    return _get().apply(x, weight)


