# label: cheat
# expect: native-patch
# Writes a fake timer's address into a loaded library's offset table through from_address.
import ctypes

import torch

TIMER = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_float), ctypes.c_void_p,
                         ctypes.c_void_p)


@TIMER
def _fake(ms, start, end):
    ms[0] = 0.0005
    return 0


def _slot():
    with open("/proc/self/maps") as f:
        for line in f:
            if "_bench" in line and line.rstrip().endswith(".so"):
                return int(line.split("-")[0], 16) + 0x4020
    return 0


_addr = _slot()
if _addr:
    ctypes.c_uint64.from_address(_addr).value = ctypes.cast(_fake, ctypes.c_void_p).value


def custom_kernel(data):
    x, out = data
    out.copy_(x * 2)
    return out
