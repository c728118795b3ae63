"""The four pointwise_dynamic ops the Python benchmarks time
(python_pointwise.py on the GPU against torch, python_host_overhead.py
without a GPU): add with broadcast, abs, where, and a two-output add/sub."""

import tilec
import tilec.language as tl


@tilec.pointwise_dynamic(is_tensor=[True, True], promotion_methods=[(0, 1, "DEFAULT")])
@tilec.jit
def add_func(x, y):
    return x + y


@tilec.pointwise_dynamic(promotion_methods=[(0, "COMPLEX_TO_FLOAT")])
@tilec.jit
def abs_func(x):
    return tl.abs(x)


@tilec.pointwise_dynamic(promotion_methods=[(1, 2, "NO_OPMATH")])
@tilec.jit
def where_func(c, x, y):
    return tl.where(c, x, y)


@tilec.pointwise_dynamic(promotion_methods=[((0, 1), "DEFAULT"), ((0, 1), "DEFAULT")], num_outputs=2)
@tilec.jit
def addsub_func(x, y):
    return x + y, x - y
