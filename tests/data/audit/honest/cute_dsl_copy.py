# label: honest
import cutlass
import cutlass.cute as cute
import torch
from cutlass.cute.runtime import from_dlpack


@cute.kernel
def copy_kernel(src: cute.Tensor, dst: cute.Tensor):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    i = bidx * 256 + tidx
    if i < src.shape[0]:
        dst[i] = src[i] * cutlass.Float32(2.0)


@cute.jit
def launch(src: cute.Tensor, dst: cute.Tensor):
    copy_kernel(src, dst).launch(grid=((src.shape[0] + 255) // 256, 1, 1), block=(256, 1, 1))


def custom_kernel(data):
    x, y = data
    launch(from_dlpack(x), from_dlpack(y))
    return y
