"""`StridedBuffer`: a view of a tensor's (or array's) storage with any shape,
element strides (negative allowed) and element offset, for
`pointwise_dynamic(...).instantiate(rank)` (the seed's `flip`). No copy; the
base keeps the storage alive."""


class StridedBuffer:
    """A strided view of `base`'s storage: element (i0, i1, ...) is at
    `base.data_ptr() + (offset + sum_k i_k * strides[k]) * itemsize`.
    `shape`/`strides` default to the base's; `dtype` to its dtype (a
    different dtype of the same size reinterprets the bytes)."""

    def __init__(self, base, shape=None, strides=None, dtype=None, offset=0):
        self.base = base
        from .pointwise import _shape, _strides
        self.shape = tuple(shape) if shape is not None else _shape(base)
        self._strides = tuple(strides) if strides is not None else _strides(base)
        if len(self.shape) != len(self._strides):
            raise ValueError(f"StridedBuffer: shape {self.shape} and strides {self._strides} "
                             "have different ranks")
        self.dtype = dtype if dtype is not None else base.dtype
        self.offset = int(offset)
        self.device = getattr(base, "device", "cpu")
        self.is_cuda = getattr(base, "is_cuda", False)
        size = getattr(self.dtype, "itemsize", None)
        if size is None:
            import numpy as np
            size = np.dtype(self.dtype).itemsize if not hasattr(self.dtype, "is_floating_point") \
                else base.element_size()
        self._itemsize = size

    def stride(self, dim=None):
        return self._strides if dim is None else self._strides[dim]

    @property
    def ndim(self):
        return len(self.shape)

    def dim(self):
        return len(self.shape)

    def numel(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    def element_size(self):
        return self._itemsize

    def data_ptr(self):
        from .jit import _address
        return _address(self.base) + self.offset * self._itemsize

    def __repr__(self):
        return (f"StridedBuffer(shape={self.shape}, strides={self._strides}, offset={self.offset}, "
                f"dtype={self.dtype})")
