# CuTe DSL (Hopper) FP8 GEMM mainloop: TMA bulk-tensor loads signalled on mbarriers,
# warpgroup FP8 MMA.
import torch
import cutlass
import cutlass.cute as cute
import cutlass.utils
from cutlass.cute.nvgpu import cpasync, warpgroup
from cutlass.cute.runtime import from_dlpack
from task import input_t, output_t

BM, BN, BK = 128, 128, 128
TX_BYTES = (BM + BN) * BK


@cute.kernel
def fp8_gemm_kernel(tma_a: cute.CopyAtom, mA: cute.Tensor, tma_b: cute.CopyAtom, mB: cute.Tensor,
                    mC: cute.Tensor, tiled_mma: cute.TiledMma, a_layout: cute.ComposedLayout,
                    b_layout: cute.ComposedLayout):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, bidy, _ = cute.arch.block_idx()
    smem = cutlass.utils.SmemAllocator()
    sA = smem.allocate_tensor(cutlass.Float8E4M3FN, a_layout, 128)
    sB = smem.allocate_tensor(cutlass.Float8E4M3FN, b_layout, 128)
    bar = smem.allocate_array(cutlass.Int64, 1)
    if tidx == 0:
        cute.arch.mbarrier_init(bar, 1)
    cute.arch.sync_threads()

    gA = cute.local_tile(mA, (BM, BK), (bidx, None))
    gB = cute.local_tile(mB, (BN, BK), (bidy, None))
    tAsA, tAgA = cpasync.tma_partition(tma_a, 0, cute.make_layout(1), sA, gA)
    tBsB, tBgB = cpasync.tma_partition(tma_b, 0, cute.make_layout(1), sB, gB)

    thr_mma = tiled_mma.get_slice(tidx)
    acc = thr_mma.make_fragment_C(thr_mma.partition_shape_C((BM, BN)))
    acc.fill(0.0)
    phase = 0
    for kt in cutlass.range(cute.size(gA, mode=[2])):
        if tidx == 0:
            cute.arch.mbarrier_arrive(bar, TX_BYTES)
            cute.copy(tma_a, tAgA[None, kt], tAsA, tma_bar_ptr=bar)
            cute.copy(tma_b, tBgB[None, kt], tBsB, tma_bar_ptr=bar)
        cute.arch.mbarrier_wait(bar, phase)
        phase ^= 1
        cute.gemm(tiled_mma, acc, thr_mma.partition_A(sA), thr_mma.partition_B(sB), acc)
        cute.arch.sync_threads()

    gC = cute.local_tile(mC, (BM, BN), (bidx, bidy))
    out = cute.make_fragment_like(acc, cutlass.BFloat16)
    out.store(acc.load().to(cutlass.BFloat16))
    cute.autovec_copy(out, thr_mma.partition_C(gC))


@cute.jit
def fp8_gemm(mA: cute.Tensor, mB: cute.Tensor, mC: cute.Tensor):
    op = warpgroup.MmaF8Op(cutlass.Float8E4M3FN, cutlass.Float32, (64, BN, 32),
                           warpgroup.OperandSource.SMEM)
    tiled_mma = cute.make_tiled_mma(op, cute.make_layout((2, 1, 1)))
    a_layout = cute.make_layout((BM, BK), stride=(BK, 1))
    b_layout = cute.make_layout((BN, BK), stride=(BK, 1))
    g2s = cpasync.CopyBulkTensorTileG2SOp()
    tma_a, tma_mA = cpasync.make_tiled_tma_atom(g2s, mA, a_layout, (BM, BK))
    tma_b, tma_mB = cpasync.make_tiled_tma_atom(g2s, mB, b_layout, (BN, BK))
    grid = (cute.ceil_div(mC.shape[0], BM), cute.ceil_div(mC.shape[1], BN), 1)
    fp8_gemm_kernel(tma_a, tma_mA, tma_b, tma_mB, mC, tiled_mma, a_layout, b_layout).launch(
        grid=grid, block=[256, 1, 1])


_compiled = None


def custom_kernel(data: input_t) -> output_t:
    global _compiled
    a, b, a_scale, b_scale, c = data
    assert a.dtype == torch.float8_e4m3fn
    tensors = [from_dlpack(t, assumed_align=16) for t in (a, b, c)]
    if _compiled is None:
        _compiled = cute.compile(fp8_gemm, *tensors)
    _compiled(*tensors)
    c.mul_(a_scale * b_scale)
    return c
