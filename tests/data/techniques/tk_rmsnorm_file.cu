// ThunderKittens RMSNorm over rows of D = 1024 bf16 values, one warp per row, row vectors
// staged in shared memory.
#include "kittens.cuh"

constexpr int D = 1024;
constexpr int WARPS = 4;
using row_vec = kittens::sv_bf<D>;
using row_gl = kittens::gl<kittens::bf16, 1, 1, -1, D, row_vec>;
struct norm_globals { row_gl x, w, y; float eps; };

__global__ void rmsnorm_tk(const __grid_constant__ norm_globals g) {
  extern __shared__ alignas(16) int __shm[];
  kittens::shared_allocator al((int*)&__shm[0]);
  row_vec (&xs)[WARPS] = al.allocate<row_vec, WARPS>();
  row_vec& ws = al.allocate<row_vec>();
  int warp = kittens::warpid();
  int row = blockIdx.x * WARPS + warp;
  if (warp == 0) {
    kittens::warp::load(ws, g.w, {0, 0, 0, 0});
  }
  kittens::warp::load(xs[warp], g.x, {0, 0, row, 0});
  __syncthreads();
  kittens::rv_fl<D> xr, wr, sq;
  kittens::warp::load(xr, xs[warp]);
  kittens::warp::load(wr, ws);
  float ss = 0.f;
  kittens::warp::mul(sq, xr, xr);
  kittens::warp::sum(ss, sq);
  kittens::warp::mul(xr, xr, rsqrtf(ss / D + g.eps));
  kittens::warp::mul(xr, xr, wr);
  kittens::warp::store(xs[warp], xr);
  kittens::warp::store(g.y, xs[warp], {0, 0, row, 0});
}

void solution(const kittens::bf16* x, const kittens::bf16* w, kittens::bf16* y, int rows,
              float eps) {
  norm_globals g{row_gl{(kittens::bf16*)x, nullptr, nullptr, (size_t)rows, nullptr},
                 row_gl{(kittens::bf16*)w, nullptr, nullptr, (size_t)1, nullptr},
                 row_gl{y, nullptr, nullptr, (size_t)rows, nullptr}, eps};
  size_t smem = (WARPS + 1) * sizeof(row_vec) + 1024;
  cudaFuncSetAttribute(rmsnorm_tk, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
  rmsnorm_tk<<<rows / WARPS, WARPS * 32, smem>>>(g);
}
