# The CUDA source is assembled from parts before it is written out for nvcc.
import ctypes
import subprocess

import torch

HEAD = "#include <cuda_runtime.h>\n"
BODY = [
    'extern "C" __global__ void add(const float* a, const float* b, float* c, int n) {\n',
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n",
    "  if (i < n) c[i] = a[i] + b[i];\n}\n",
]
with open("/tmp/add.cu", "w") as f:
    f.write(HEAD + "".join(BODY))
subprocess.run(["nvcc", "-shared", "-Xcompiler", "-fPIC", "/tmp/add.cu", "-o", "/tmp/add.so"],
               check=True)
lib = ctypes.CDLL("/tmp/add.so")


def custom_kernel(data):
    a, b, c = data
    lib.add(ctypes.c_void_p(a.data_ptr()), ctypes.c_void_p(b.data_ptr()),
            ctypes.c_void_p(c.data_ptr()), a.numel())
    return c
