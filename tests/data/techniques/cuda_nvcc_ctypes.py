# CUDA compiled with nvcc at import time and called through ctypes.
import ctypes
import os
import subprocess
import tempfile

import torch

KERNEL = r"""
#include <cuda_fp8.h>
extern "C" __global__ void dequant(const __nv_fp8_e4m3* q, const float* s, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = float(q[i]) * s[i / 128];
}
extern "C" void launch(const void* q, const float* s, float* y, int n) {
  dequant<<<(n + 255) / 256, 256>>>((const __nv_fp8_e4m3*)q, s, y, n);
}
"""

_tmp = tempfile.mkdtemp()
with open(os.path.join(_tmp, "k.cu"), "w") as f:
    f.write(KERNEL)
subprocess.check_call(["nvcc", "-O3", "-arch=sm_100a", "-shared", "-Xcompiler", "-fPIC",
                       os.path.join(_tmp, "k.cu"), "-o", os.path.join(_tmp, "k.so")])
_lib = ctypes.CDLL(os.path.join(_tmp, "k.so"))


def custom_kernel(data):
    q, s, y = data
    _lib.launch(ctypes.c_void_p(q.data_ptr()), ctypes.c_void_p(s.data_ptr()),
                ctypes.c_void_p(y.data_ptr()), ctypes.c_int(q.numel()))
    return y
