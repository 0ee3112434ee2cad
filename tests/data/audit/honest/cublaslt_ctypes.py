# label: honest
# A GEMM through cuBLAS loaded with ctypes.
import ctypes

import torch

_cublas = ctypes.CDLL("libcublas.so")
_handle = ctypes.c_void_p()
_cublas.cublasCreate_v2(ctypes.byref(_handle))


def custom_kernel(data):
    a, b, c = data
    m, k = a.shape
    n = b.shape[1]
    one = ctypes.c_float(1.0)
    zero = ctypes.c_float(0.0)
    _cublas.cublasSgemm_v2(_handle, 0, 0, n, m, k, ctypes.byref(one),
                           ctypes.c_void_p(b.data_ptr()), n, ctypes.c_void_p(a.data_ptr()), k,
                           ctypes.byref(zero), ctypes.c_void_p(c.data_ptr()), n)
    return c
