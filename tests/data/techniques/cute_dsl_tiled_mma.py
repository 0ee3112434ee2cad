# CuTe DSL (Ampere-style) FP16 GEMM: cp.async G2S copies into shared memory, warp-level MMA.
import torch
import cutlass
import cutlass.cute as cute
import cutlass.utils
from cutlass.cute.runtime import from_dlpack
from task import input_t, output_t

BM, BN, BK = 128, 128, 32


@cute.kernel
def gemm_kernel(mA: cute.Tensor, mB: cute.Tensor, mC: cute.Tensor, tiled_mma: cute.TiledMma,
                tiled_copy: cute.TiledCopy, sA_layout: cute.Layout, sB_layout: cute.Layout):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, bidy, _ = cute.arch.block_idx()
    gA = cute.local_tile(mA, (BM, BK), (bidx, None))
    gB = cute.local_tile(mB, (BN, BK), (bidy, None))
    gC = cute.local_tile(mC, (BM, BN), (bidx, bidy))

    smem = cutlass.utils.SmemAllocator()
    sA = smem.allocate_tensor(cutlass.Float16, sA_layout, 16)
    sB = smem.allocate_tensor(cutlass.Float16, sB_layout, 16)

    thr_copy = tiled_copy.get_slice(tidx)
    tAgA = thr_copy.partition_S(gA)
    tAsA = thr_copy.partition_D(sA)
    tBgB = thr_copy.partition_S(gB)
    tBsB = thr_copy.partition_D(sB)

    thr_mma = tiled_mma.get_slice(tidx)
    tCsA = thr_mma.partition_A(sA)
    tCsB = thr_mma.partition_B(sB)
    tCgC = thr_mma.partition_C(gC)
    tCrA = tiled_mma.make_fragment_A(tCsA)
    tCrB = tiled_mma.make_fragment_B(tCsB)
    tCrC = tiled_mma.make_fragment_C(tCgC)
    tCrC.fill(0.0)

    for kt in cutlass.range(cute.size(gA, mode=[2])):
        cute.copy(tiled_copy, tAgA[None, None, None, kt], tAsA)
        cute.copy(tiled_copy, tBgB[None, None, None, kt], tBsB)
        cute.arch.cp_async_commit_group()
        cute.arch.cp_async_wait_group(0)
        cute.arch.barrier()
        cute.autovec_copy(tCsA, tCrA)
        cute.autovec_copy(tCsB, tCrB)
        cute.gemm(tiled_mma, tCrC, tCrA, tCrB, tCrC)
        cute.arch.barrier()

    tCrC_out = cute.make_fragment_like(tCrC, cutlass.Float16)
    tCrC_out.store(tCrC.load().to(cutlass.Float16))
    cute.autovec_copy(tCrC_out, tCgC)


@cute.jit
def gemm(mA: cute.Tensor, mB: cute.Tensor, mC: cute.Tensor):
    mma_op = cute.nvgpu.warp.MmaF16BF16Op(cutlass.Float16, cutlass.Float32, (16, 8, 16))
    tiled_mma = cute.make_tiled_mma(mma_op, cute.make_layout((2, 2, 1)))
    copy_op = cute.nvgpu.cpasync.CopyG2SOp(cache_mode=cute.nvgpu.cpasync.LoadCacheMode.GLOBAL)
    copy_atom = cute.make_copy_atom(copy_op, cutlass.Float16, num_bits_per_copy=128)
    thr_layout = cute.make_layout((32, 4), stride=(4, 1))
    val_layout = cute.make_layout((1, 8))
    tiled_copy = cute.make_tiled_copy_tv(copy_atom, thr_layout, val_layout)
    sA_layout = cute.make_layout((BM, BK), stride=(BK, 1))
    sB_layout = cute.make_layout((BN, BK), stride=(BK, 1))
    grid = (cute.ceil_div(mC.shape[0], BM), cute.ceil_div(mC.shape[1], BN), 1)
    smem_bytes = (BM + BN) * BK * 2
    gemm_kernel(mA, mB, mC, tiled_mma, tiled_copy, sA_layout, sB_layout).launch(
        grid=grid, block=[128, 1, 1], smem=smem_bytes)


_compiled = {}


def custom_kernel(data: input_t) -> output_t:
    a, b, c = data  # a: [M, K], b: [N, K], c: [M, N], fp16
    tensors = [from_dlpack(t, assumed_align=16) for t in (a, b, c)]
    key = (a.shape, b.shape)
    if key not in _compiled:
        _compiled[key] = cute.compile(gemm, *tensors)
    _compiled[key](*tensors)
    return c
