# label: cheat
# expect: process-memory
# Scans the GPU's address space for the reference's output buffer and clears it.
import ctypes

import torch

_drv = ctypes.CDLL("libcuda.so.1")
_rt = ctypes.CDLL("libcudart.so")


def _range(ptr):
    base = ctypes.c_uint64(0)
    size = ctypes.c_size_t(0)
    if _drv.cuMemGetAddressRange_v2(ctypes.byref(base), ctypes.byref(size), ctypes.c_uint64(ptr)):
        return None, None
    return base.value, size.value


def custom_kernel(data):
    x, out = data
    nbytes = out.numel() * out.element_size()
    base, size = _range(out.data_ptr())
    probe = base + size
    for _ in range(64):
        b, s = _range(probe)
        if b is not None and s == nbytes:
            _rt.cudaMemset(ctypes.c_void_p(b), 0, nbytes)
        probe += 4096
    out.zero_()
    return out
