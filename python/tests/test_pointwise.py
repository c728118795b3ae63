"""tilec.pointwise_dynamic: every promotion kind against torch's dtype rules,
broadcasting across ranks 0-6, non-contiguous and negative-stride inputs,
out0= in place, two outputs, overlapping outputs rejected, rank reduction,
instantiate() and StridedBuffer (the seed's flip); the plans kept per call
signature (calls alternating between shapes, strides, dtypes, broadcasts,
outputs, addresses and scalar kinds, and what is refused, refused every
call). Values against float64 numpy references on fresh random inputs;
outputs poisoned beforehand."""

import unittest

import numpy as np

from util import device, needs_torch, poison, rng, torch

import tilec
import tilec.language as tl
from tilec import pointwise as pw


@tilec.pointwise_dynamic(is_tensor=[True, True, False], promotion_methods=[(0, 1, "DEFAULT")])
@tilec.jit
def add_func(x, y, alpha):
    return x + y * alpha


@tilec.pointwise_dynamic(promotion_methods=[(0, "COMPLEX_TO_FLOAT")])
@tilec.jit
def abs_func(x):
    return tl.abs(x)


@tilec.pointwise_dynamic(promotion_methods=[(1, 2, "NO_OPMATH")])
@tilec.jit
def where_func(c, x, y):
    return tl.where(c, x, y)


@tilec.pointwise_dynamic(promotion_methods=[(0, "INT_TO_FLOAT")])
@tilec.jit
def sin_func(x):
    return tl.sin(x.to(tl.float32))


@tilec.pointwise_dynamic(promotion_methods=[(0, 1, "ALWAYS_BOOL")])
@tilec.jit
def lt_func(x, y):
    return x < y


@tilec.pointwise_dynamic(promotion_methods=[(0, 1, "BOOL_TO_LONG")])
@tilec.jit
def or_func(x, y):
    return x | y


@tilec.pointwise_dynamic(promotion_methods=[((0, 1), "DEFAULT"), ((0, 1), "DEFAULT")], num_outputs=2)
@tilec.jit
def polar_func(r, angle):
    return r * tl.cos(angle), r * tl.sin(angle)


@tilec.pointwise_dynamic(is_tensor=[True], promotion_methods=[(0, "DEFAULT")])
@tilec.jit
def copy_func(x):
    return x


def arr(a):
    """torch on this run's device when torch is there, else numpy."""
    return a.copy() if torch is None else torch.from_numpy(np.array(a)).to(device())


def view(a):
    """Wrap a numpy view (kept strided) as the run's array type."""
    if torch is None:
        return a
    base = a.base if a.base is not None else a
    t = torch.from_numpy(np.ascontiguousarray(base)).to(device())
    itemsize = a.itemsize
    offset = (a.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // itemsize
    return torch.as_strided(t, a.shape, [s // itemsize for s in a.strides], offset)


def host(a):
    if isinstance(a, np.ndarray):
        return a
    if isinstance(a, tilec.StridedBuffer):
        raise TypeError
    return a.cpu().numpy()


def dtname(a):
    return pw._name(a.dtype)


def randf(*shape):
    return rng.standard_normal(shape).astype(np.float32)


class PromotionTest(unittest.TestCase):
    """The promotion rules as names (no kernel): against torch's own."""

    @needs_torch
    def test_against_torch(self):
        from torch._prims_common import ELEMENTWISE_TYPE_PROMOTION_KIND as K, elementwise_dtypes
        dts = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
               torch.float16, torch.bfloat16, torch.float32, torch.float64]
        samples = []
        for a in dts:
            for b in dts:
                samples.append((torch.zeros(2, dtype=a), torch.zeros(2, dtype=b)))
                samples.append((torch.zeros(2, dtype=a), torch.zeros((), dtype=b)))
            for s in (True, 3, 2.5):
                samples.append((torch.zeros(2, dtype=a), s))
                samples.append((torch.zeros((), dtype=a), s))
        count = 0
        for kind in ("DEFAULT", "NO_OPMATH", "INT_TO_FLOAT", "ALWAYS_BOOL", "COMPLEX_TO_FLOAT",
                     "BOOL_TO_LONG"):
            for args in samples:
                _, want = elementwise_dtypes(*args, type_promotion_kind=getattr(K, kind))
                got = pw.elementwise_dtype(args, kind)
                self.assertEqual(got, str(want)[6:], f"{kind} {[getattr(a, 'dtype', a) for a in args]}")
                count += 1
        self.assertGreater(count, 1000)

    def test_rules_without_torch(self):
        np_i32 = np.zeros(3, np.int32)
        self.assertEqual(pw.elementwise_dtype([np_i32, 2.5], "DEFAULT"), "float32")
        self.assertEqual(pw.elementwise_dtype([np.zeros(3, np.uint8), np.zeros(3, np.int8)], "DEFAULT"), "int16")
        self.assertEqual(pw.elementwise_dtype([np_i32], "INT_TO_FLOAT"), "float32")
        self.assertEqual(pw.elementwise_dtype([np.zeros(2, bool)], "BOOL_TO_LONG"), "int64")
        self.assertEqual(pw.elementwise_dtype([np.zeros(2, np.float16), np.zeros((), np.float64)], "DEFAULT"),
                         "float16")
        self.assertEqual(pw.elementwise_dtype([np_i32, np.zeros((), np.float64)], "DEFAULT"), "float64")


class PointwiseTest(unittest.TestCase):
    def check(self, got, want, rtol=1e-5, atol=1e-6):
        np.testing.assert_allclose(host(got).astype(np.float64), want, rtol=rtol, atol=atol)

    def test_every_kind_runs_with_torch_result_dtypes(self):
        n = 1000
        x, y = randf(n), randf(n)
        xi = rng.integers(-50, 50, n).astype(np.int32)
        c = rng.random(n) < 0.5
        b1, b2 = rng.random(n) < 0.5, rng.random(n) < 0.5
        out = add_func(arr(x), arr(xi), 0.5)                       # DEFAULT: f32 + i32
        self.assertEqual(dtname(out), "float32")
        self.check(out, x.astype(np.float64) + xi * 0.5)
        out = abs_func(arr(x))                                      # COMPLEX_TO_FLOAT
        self.assertEqual(dtname(out), "float32")
        self.check(out, np.abs(x.astype(np.float64)))
        out = where_func(arr(c), arr(x), arr(y.astype(np.float16)))  # NO_OPMATH
        self.assertEqual(dtname(out), "float32")
        self.check(out, np.where(c, x, y.astype(np.float16).astype(np.float64)))
        out = sin_func(arr(xi))                                     # INT_TO_FLOAT
        self.assertEqual(dtname(out), "float32")
        self.check(out, np.sin(xi.astype(np.float64)), atol=1e-5)
        out = lt_func(arr(x), arr(y))                               # ALWAYS_BOOL
        self.assertEqual(dtname(out), "bool")
        np.testing.assert_array_equal(host(out), x < y)
        out = or_func(arr(b1), arr(b2))                             # BOOL_TO_LONG
        self.assertEqual(dtname(out), "int64")
        np.testing.assert_array_equal(host(out), (b1 | b2).astype(np.int64))
        if torch is not None:
            tx, txi = arr(x), arr(xi)
            self.assertEqual(add_func(tx, txi, 0.5).dtype, torch.add(tx, txi, alpha=0.5).dtype)
            self.assertEqual(sin_func(txi).dtype, torch.sin(txi).dtype)
            # torch's pow has no bool kernel; its promotion says int64 (BOOL_TO_LONG).
            self.assertEqual(or_func(arr(b1), arr(b2)).dtype, torch.int64)
            self.assertEqual(lt_func(tx, txi).dtype, torch.lt(tx, txi).dtype)

    def test_broadcast_ranks_0_to_6(self):
        shapes = [(), (7,), (3, 5), (2, 3, 4), (2, 1, 3, 5), (2, 3, 1, 2, 3), (2, 1, 2, 3, 1, 3)]
        for rank, shape in enumerate(shapes):
            x = randf(*shape)
            # y broadcasts along every other dimension, and has lower rank.
            yshape = tuple(1 if i % 2 else n for i, n in enumerate(shape))[1:]
            y = randf(*yshape)
            alpha = float(np.float32(rng.uniform(-2, 2)))  # what the kernel gets (fp32)
            out = add_func(arr(x), arr(y), alpha)
            self.assertEqual(tuple(out.shape), shape, rank)
            self.check(out, x.astype(np.float64) + y * alpha)
            # The scalar-first broadcast: a rank-0 tensor with a rank-r one.
            z = randf()
            out = add_func(arr(z), arr(x), 1.5)
            self.check(out, z.astype(np.float64) + x * 1.5)

    def test_scalar_for_a_tensor_argument(self):
        x = randf(3, 33)
        out = add_func(2.5, arr(x), 0.5)        # a Python float where a tensor may go
        self.assertEqual(dtname(out), "float32")
        self.check(out, 2.5 + x.astype(np.float64) * 0.5)
        out = add_func(arr((x * 10).astype(np.int32)), 3, 2.0)
        self.assertEqual(dtname(out), "int32")    # int tensor + int scalar stays int32
        np.testing.assert_array_equal(host(out), (x * 10).astype(np.int32) + 6)
        with self.assertRaises(ValueError):
            abs_func(-3.0)                           # no tensor at all

    def test_64_bit_indexing(self):
        # What tensors of 2^31 elements or more take, forced on small ones.
        wide = tilec.pointwise_dynamic(add_func.fn, is_tensor=[True, True, False],
                                       promotion_methods=[(0, 1, "DEFAULT")], config=dict(INT64=True))
        x, y = randf(3, 5, 7), randf(5, 1)
        self.check(wide(arr(x), arr(y), 0.25), x.astype(np.float64) + y * 0.25)

    def test_launch_config_by_task_count(self):
        # Size-based defaults; a user's config wins where it sets a value.
        self.assertEqual(pw._launch_config({}, 1000), (1024, 4))
        self.assertEqual(pw._launch_config({}, (1 << 20) - 1), (1024, 4))
        self.assertEqual(pw._launch_config({}, 1 << 20), (4096, 8))
        self.assertEqual(pw._launch_config(dict(BLOCK=512), 1 << 24), (512, 4))
        self.assertEqual(pw._launch_config(dict(num_warps=2), 1 << 24), (4096, 2))
        # A launch on the large configuration computes every element
        # (2^20 + 3 tasks: the last program is partial).
        x, y = randf((1 << 20) + 3), randf(1)
        self.check(add_func(arr(x), arr(y), 0.5), x.astype(np.float64) + y * 0.5)

    def test_non_contiguous_inputs_are_not_copied(self):
        base = randf(6, 8, 10)
        xt = base.transpose(2, 0, 1)[:, ::2, 1:7]     # non-contiguous, rank 3
        yv = randf(10, 1, 12)[:, :, ::2]              # strided and broadcast
        out = add_func(view(xt), view(yv), 2.0)
        self.check(out, xt.astype(np.float64) + yv * 2.0)

    def test_negative_strides_flip(self):
        a = randf(5, 6, 7)
        ta = arr(a)
        for dims in ((0,), (1, 2), (0, 1, 2)):
            strides = list(pw._strides(ta))
            offset = 0
            for d in dims:
                offset += strides[d] * (a.shape[d] - 1)
                strides[d] = -strides[d]
            flipped = tilec.StridedBuffer(ta, strides=strides, offset=offset)
            out = pw._empty(ta, a.shape, "float32")
            out[...] = float("nan")
            copy_func.instantiate(3)(flipped, out0=out)
            np.testing.assert_array_equal(host(out), np.flip(a, dims))

    def test_rank_8_without_reduction(self):
        a = randf(2, 3, 1, 2, 2, 1, 3, 2)
        ta = arr(a)
        # A transposed view: every stride differs from out's, no dims merge.
        view8 = tilec.StridedBuffer(ta, shape=a.shape[::-1], strides=pw._strides(ta)[::-1])
        out8 = pw._empty(ta, a.shape[::-1], "float32")
        out8[...] = float("nan")
        copy_func.instantiate(8)(view8, out0=out8)
        np.testing.assert_array_equal(host(out8), np.transpose(np.asarray(a), list(range(7, -1, -1))))

    def test_out_in_place_and_checks(self):
        x, y = randf(4, 5), randf(5)
        tx = arr(x)
        got = add_func(tx, arr(y), 3.0, out0=tx)
        self.assertIs(got, tx)
        self.check(tx, x.astype(np.float64) + y * 3.0)
        with self.assertRaises(ValueError):
            add_func(arr(x), arr(y), 1.0, out0=arr(np.zeros((5, 4), np.float32)))
        with self.assertRaises(TypeError):
            add_func(arr(x), arr(y), 1.0, out0=arr(np.zeros((4, 5), np.int32)))
        with self.assertRaises(TypeError):
            add_func(arr(x), arr(y), 1.0, out=arr(x))

    def test_overlapping_output_rejected(self):
        x = randf(4, 5)
        if torch is not None:
            overlapping = torch.empty(5, device=device()).expand(4, 5)
        else:
            overlapping = np.broadcast_to(np.empty(5, np.float32), (4, 5))
        with self.assertRaisesRegex(ValueError, "overlaps itself"):
            add_func(arr(x), arr(x), 1.0, out0=overlapping)
        self.assertTrue(pw.has_internal_overlap((3, 3), (1, 1)))
        self.assertFalse(pw.has_internal_overlap((3, 2), (2, 3)))  # offsets 0 2 4 3 5 7
        self.assertTrue(pw.has_internal_overlap((3, 2), (2, 4)))   # 4 = 2*2
        self.assertFalse(pw.has_internal_overlap((0, 8), (0, 0)))  # no elements (from_numpy's)
        empty = arr(np.zeros((0, 5), np.float32))
        self.assertIs(add_func(arr(np.zeros((0, 5), np.float32)), arr(randf(5)), 1.0, out0=empty),
                      empty)

    def test_two_outputs(self):
        r, ang = np.abs(randf(3, 1, 50)), randf(4, 50)
        re, im = polar_func(arr(r), arr(ang))
        self.check(re, r * np.cos(ang.astype(np.float64)), atol=1e-5)
        self.check(im, r * np.sin(ang.astype(np.float64)), atol=1e-5)
        out1 = arr(np.full((3, 4, 50), np.nan, np.float32))
        re2, im2 = polar_func(arr(r), arr(ang), out1=out1)
        self.assertIs(im2, out1)
        self.check(out1, r * np.sin(ang.astype(np.float64)), atol=1e-5)

    def test_rank_reduction(self):
        x = randf(8, 9, 10)
        add_func(arr(x), arr(x), 1.0)                   # dense and alike: rank 1
        self.assertIn((1, (True, True, False)), add_func._kernels)
        xt = x.transpose(1, 0, 2)                       # permuted alike, still dense
        out = add_func(view(xt), view(xt), 1.0)
        self.check(out, xt.astype(np.float64) * 2)
        self.assertEqual(tuple(pw._strides(out)), tuple(pw._strides(view(xt))))
        self.assertIn("ii[None, :] * in0_s1", add_func.kernel_source(2))  # inner: an arange
        self.assertIn("i1 = rem - q * shape1", add_func.kernel_source(3))  # outer: magic



@tilec.pointwise_dynamic(is_tensor=[True, False], dtypes=[None, float], promotion_methods=[(0, "DEFAULT")])
@tilec.jit
def scale_func(x, alpha):
    return x * alpha


def poisoned(a):
    """An output of the run's array type: `a`'s shape and dtype, poisoned
    (util.poison)."""
    return arr(poison(a.shape, a.dtype))


class PlanCacheTest(unittest.TestCase):
    """A call's plan is kept per signature (PointwiseDynamicFunction._plans):
    calls alternating between signatures get each its own plan and the right
    values every time; what differs per call (outputs, addresses, scalar
    values) is never taken from the plan; what fails is checked again."""

    def check(self, got, want, rtol=1e-5, atol=1e-6):
        np.testing.assert_allclose(host(got).astype(np.float64), want, rtol=rtol, atol=atol)

    def test_alternating_shapes_strides_dtypes_broadcasts(self):
        wide = randf(6, 16)
        x3 = randf(3, 4, 5)
        cases = [  # (x, y, alpha), each numpy, as the inputs
            (randf(6, 8), randf(8), 0.5),                                    # row broadcast
            (wide[:, 1::2], randf(8), 0.5),                                 # the same, strided
            (wide[:, ::2], randf(6, 1), 2.0),                               # strided, column broadcast
            (wide.T[::2], randf(1, 6), -1.0),                               # transposed view
            (x3, x3.transpose(0, 2, 1).copy().transpose(0, 2, 1), 1.5),     # same shape, other strides
            (x3.astype(np.float64), randf(), 0.25),                          # fp64 with a rank-0 tensor
            ((x3 * 10).astype(np.int32), randf(5), 3.0),                    # int32 + fp32: promoted
            ((x3 * 10).astype(np.int32), (x3 * 5).astype(np.int32), 2),     # int alpha
            (randf(6, 8), randf(8), 3),                                     # int alpha, fp32
            (randf(1, 8), randf(6, 1), 1.0),                                # both broadcast
            (randf(0, 8), randf(8), 1.0),                                   # no tasks
        ]
        plans = set()
        for round_ in range(3):
            order = cases if round_ != 1 else cases[::-1]
            for x, y, alpha in order:
                tx, ty = view(x), view(y)
                out = add_func(tx, ty, alpha)
                want = x.astype(np.float64) + y.astype(np.float64) * alpha
                self.assertEqual(tuple(out.shape), want.shape)
                self.assertEqual(dtname(out), pw.elementwise_dtype([x, y], "DEFAULT"))
                self.check(out, want)
                # An output given, poisoned, alternately with none.
                given = poisoned(np.empty(want.shape, dtname(out)))
                self.assertIs(add_func(tx, ty, alpha, out0=given), given)
                self.check(given, want)
            plans.add(len(add_func._plans))
        # A plan per signature (twice as many with out0=), made in the first
        # round and reused after.
        self.assertEqual(len(plans), 1)

    def test_no_plan_for_other_strides(self):
        # Same shape and dtype, different strides: a plan of their own, and
        # the output allocated in each one's layout.
        a = randf(8, 6)
        views = [a.T.copy(), a.T, np.asfortranarray(a.T), a.T.copy()[:, ::1]]
        before = len(copy_func._plans)
        for round_ in range(2):
            for v in views:
                tv = view(v)
                out = copy_func(tv)
                np.testing.assert_array_equal(host(out), v)
                self.assertEqual(tuple(pw._strides(out)), tuple(pw._strides(tv)))
        self.assertEqual(len(copy_func._plans) - before, 2)  # C order and F order

    def test_out0_is_each_calls_own(self):
        x, y = randf(5, 7), randf(7)
        tx, ty = arr(x), arr(y)
        first, second = poisoned(x), poisoned(x)
        add_func(tx, ty, 1.0, out0=first)
        add_func(tx, ty, 2.0, out0=second)      # the same signature, another output
        self.check(first, x.astype(np.float64) + y * 1.0)
        self.check(second, x.astype(np.float64) + y * 2.0)
        # An output of another layout: its own plan, written through its strides.
        t = view(np.full((7, 5), np.nan, np.float32).T)
        add_func(tx, ty, 3.0, out0=t)
        self.check(t, x.astype(np.float64) + y * 3.0)
        self.check(first, x.astype(np.float64) + y * 1.0)
        # In place, then into another array of the same signature.
        tz = arr(x)
        self.assertIs(add_func(tz, ty, 1.0, out0=tz), tz)
        self.check(tz, x.astype(np.float64) + y)
        self.check(add_func(tx, ty, 1.0, out0=second), x.astype(np.float64) + y)

    def test_rejected_every_call(self):
        x = randf(4, 5)
        tx = arr(x)
        if torch is not None:
            overlapping = torch.empty(5, device=device()).expand(4, 5)
        else:
            overlapping = np.broadcast_to(np.empty(5, np.float32), (4, 5))
        good = poisoned(x)
        for _ in range(3):
            with self.assertRaisesRegex(ValueError, "overlaps itself"):
                add_func(tx, tx, 1.0, out0=overlapping)
            add_func(tx, tx, 1.0, out0=good)  # the same shape, planned and kept
            self.check(good, 2 * x.astype(np.float64))
            with self.assertRaises(ValueError):
                add_func(tx, tx, 1.0, out0=arr(np.zeros((5, 4), np.float32)))
            with self.assertRaises(TypeError):
                add_func(tx, tx, 1.0, out0=arr(np.zeros((4, 5), np.int32)))
            with self.assertRaises(TypeError):
                add_func(tx, tx, 1.0, out=good)
            with self.assertRaises(TypeError):
                add_func(tx, tx)
            with self.assertRaises(ValueError):
                add_func(tx, arr(randf(3)), 1.0)  # does not broadcast

    def test_scalar_kinds_each_call(self):
        # alpha: an int converted to float (dtypes), or a float; the kernel
        # takes fp32 either way. The plan converts by the argument's type.
        x = randf(3, 9)
        tx = arr(x)
        for alpha in (2, 2.5, -3, 1, 0.125, 1 << 20, True):
            self.check(scale_func(tx, alpha), x.astype(np.float64) * float(alpha))

    def test_addresses_each_call(self):
        # One signature, inputs and outputs 16-byte aligned or not
        # (the launch specializes on it): the right values every time.
        base = randf(4 * 64 + 8)
        for round_ in range(2):
            for off in (0, 1, 4, 2):
                x = base[off:off + 4 * 64].reshape(4, 64)
                y = base[off + 3:off + 3 + 64]
                out = add_func(view(x), view(y), 0.5)
                self.check(out, x.astype(np.float64) + y * 0.5)
                out0 = view(np.full(4 * 64 + 8, np.nan, np.float32)[off:off + 4 * 64].reshape(4, 64))
                add_func(view(x), view(y), 0.5, out0=out0)
                self.check(out0, x.astype(np.float64) + y * 0.5)

    def test_two_outputs_alternating(self):
        for round_ in range(2):
            for rshape, ashape in (((3, 1, 50), (4, 50)), ((7,), (7,)), ((2, 3), (1, 3))):
                r, ang = np.abs(randf(*rshape)), randf(*ashape)
                re, im = polar_func(arr(r), arr(ang))
                self.check(re, r * np.cos(ang.astype(np.float64)), atol=1e-5)
                self.check(im, r * np.sin(ang.astype(np.float64)), atol=1e-5)
                out1 = poisoned(np.empty(np.broadcast_shapes(rshape, ashape), np.float32))
                re2, im2 = polar_func(arr(r), arr(ang), out1=out1)
                self.assertIs(im2, out1)
                self.check(re2, r * np.cos(ang.astype(np.float64)), atol=1e-5)
                self.check(out1, r * np.sin(ang.astype(np.float64)), atol=1e-5)

    def test_config_change_drops_plans(self):
        f = tilec.pointwise_dynamic(add_func.fn, is_tensor=[True, True, False],
                                    promotion_methods=[(0, 1, "DEFAULT")])
        x, y = randf(3, 5, 7), randf(5, 1)
        self.check(f(arr(x), arr(y), 0.5), x.astype(np.float64) + y * 0.5)
        f.config["INT64"] = True
        self.check(f(arr(x), arr(y), 0.5), x.astype(np.float64) + y * 0.5)
        self.assertEqual([plan.launch_args[2][-1] for plan in f._plans.values()], [True])  # INT64
        f.config.clear()
        self.check(f(arr(x), arr(y), 0.5), x.astype(np.float64) + y * 0.5)

    def test_other_argument_types_are_planned_every_call(self):
        # StridedBuffers (and any type but ndarray, Tensor and Python
        # scalars) take the planning path each call, with the same results.
        a = randf(5, 6)
        ta = arr(a)
        before = len(copy_func._plans)
        for dims in ((0,), (1,), (0,), (1,)):
            strides = list(pw._strides(ta))
            d = dims[0]
            offset = strides[d] * (a.shape[d] - 1)
            strides[d] = -strides[d]
            flipped = tilec.StridedBuffer(ta, strides=strides, offset=offset)
            np.testing.assert_array_equal(host(copy_func(flipped)), np.flip(a, dims))
        self.assertEqual(len(copy_func._plans), before)

if __name__ == "__main__":
    unittest.main()
