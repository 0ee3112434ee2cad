# FP16 GEMM on tensor cores through the WMMA API, tiles staged in shared memory.
import torch
from torch.utils.cpp_extension import load_inline
from task import input_t, output_t

cuda_src = r"""
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

constexpr int WM = 16, WN = 16, WK = 16;
constexpr int TILE = 64;  // 4 x 4 warps of 16 x 16

__global__ void wmma_gemm(const half* __restrict__ a, const half* __restrict__ b,
                          float* __restrict__ c, int m, int n, int k) {
  __shared__ half sa[TILE][WK];
  __shared__ half sb[WK][TILE];
  int warp = threadIdx.x / 32;
  int wy = warp / 4, wx = warp % 4;
  int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;

  wmma::fragment<wmma::accumulator, WM, WN, WK, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int kk = 0; kk < k; kk += WK) {
    for (int i = threadIdx.x; i < TILE * WK; i += blockDim.x) {
      sa[i / WK][i % WK] = a[(row0 + i / WK) * k + kk + i % WK];
      sb[i / TILE][i % TILE] = b[(kk + i / TILE) * n + col0 + i % TILE];
    }
    __syncthreads();
    wmma::fragment<wmma::matrix_a, WM, WN, WK, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, WM, WN, WK, half, wmma::row_major> fb;
    wmma::load_matrix_sync(fa, &sa[wy * WM][0], WK);
    wmma::load_matrix_sync(fb, &sb[0][wx * WN], TILE);
    wmma::mma_sync(acc, fa, fb, acc);
    __syncthreads();
  }
  wmma::store_matrix_sync(c + (row0 + wy * WM) * n + col0 + wx * WN, acc, n,
                          wmma::mem_row_major);
}

torch::Tensor mm(torch::Tensor a, torch::Tensor b) {
  int m = a.size(0), k = a.size(1), n = b.size(1);
  TORCH_CHECK(m % TILE == 0 && n % TILE == 0 && k % WK == 0, "tile-aligned shapes only");
  auto c = torch::empty({m, n}, a.options().dtype(torch::kFloat32));
  dim3 grid(n / TILE, m / TILE);
  wmma_gemm<<<grid, 512>>>((const half*)a.data_ptr(), (const half*)b.data_ptr(),
                           c.data_ptr<float>(), m, n, k);
  return c;
}
"""
cpp_src = "torch::Tensor mm(torch::Tensor a, torch::Tensor b);"
_mod = load_inline(name="wmma_gemm", cpp_sources=cpp_src, cuda_sources=cuda_src,
                   functions=["mm"], extra_cuda_cflags=["-O3", "-arch=sm_80"])


def custom_kernel(data: input_t) -> output_t:
    a, b, c = data
    if a.shape[0] < 64:
        torch.matmul(a, b, out=c)
        return c
    c.copy_(_mod.mm(a, b))
    return c
