# cuBLASLt called through ctypes: a library runs the hot loop.
import ctypes

import torch

_lt = ctypes.CDLL("libcublasLt.so")
_handle = ctypes.c_void_p()
_lt.cublasLtCreate(ctypes.byref(_handle))


def custom_kernel(data):
    a, b, c = data
    _lt.cublasLtMatmul(_handle, None, None, ctypes.c_void_p(a.data_ptr()), None,
                       ctypes.c_void_p(b.data_ptr()), None, None, ctypes.c_void_p(c.data_ptr()),
                       None, ctypes.c_void_p(c.data_ptr()), None, None, None, 0, None)
    return c
