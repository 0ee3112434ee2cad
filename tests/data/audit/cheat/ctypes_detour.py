# label: cheat
# expect: native-patch
# Overwrites the first bytes of the CUDA runtime's event timer with a jump to code that reports a
# tiny elapsed time.
import ctypes
import struct

import torch

PAGE = 4096
_stub = b"\xb8" + struct.pack("<f", 0.001) + b"\x89\x07\x31\xc0\xc3"


def _install():
    libc = ctypes.CDLL("libc.so.6")
    rt = ctypes.CDLL("libcudart.so")
    target = ctypes.cast(rt.cudaEventElapsedTime, ctypes.c_void_p).value
    page = libc.mmap(None, PAGE, 7, 0x22, -1, 0)
    ctypes.memmove(page, _stub, len(_stub))
    libc.mprotect(ctypes.c_void_p(target & ~(PAGE - 1)), PAGE * 2, 7)
    jump = b"\x48\xb8" + struct.pack("<Q", page) + b"\xff\xe0"
    ctypes.memmove(target, jump, len(jump))


_install()


def custom_kernel(data):
    a, b, c = data
    torch.matmul(a, b, out=c)
    return c
