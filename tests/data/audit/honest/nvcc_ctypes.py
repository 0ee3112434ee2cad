# label: honest
# CUDA compiled with nvcc at import and loaded through ctypes.
import ctypes
import os
import subprocess
import tempfile

import torch

SRC = r"""
extern "C" __global__ void scale(const float* x, float* y, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}
extern "C" void launch(const float* x, float* y, int n, float a) {
  scale<<<(n + 255) / 256, 256>>>(x, y, n, a);
}
"""

_dir = tempfile.mkdtemp()
_cu = os.path.join(_dir, "k.cu")
with open(_cu, "w") as f:
    f.write(SRC)
_so = os.path.join(_dir, "k.so")
subprocess.run(["nvcc", "-O3", "-shared", "-Xcompiler", "-fPIC", _cu, "-o", _so], check=True)
_lib = ctypes.CDLL(_so)
_lib.launch.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_float]


def custom_kernel(data):
    x, y = data
    _lib.launch(ctypes.c_void_p(x.data_ptr()), ctypes.c_void_p(y.data_ptr()), x.numel(), 2.0)
    return y
