// Hopper FP8 GEMM in CuTe: a producer warpgroup issues TMA loads into a 4-stage ring, two
// consumer warpgroups run the SM90 GMMA atom, output tiles walked by a persistent scheduler.
#include <cuda_runtime.h>
#include <cute/tensor.hpp>
#include <cutlass/arch/barrier.h>
#include <cutlass/arch/reg_reconfig.h>
#include <cutlass/numeric_types.h>

using namespace cute;
using ElemAB = cutlass::float_e4m3_t;
using ElemC = cutlass::bfloat16_t;
constexpr int BM = 128, BN = 128, BK = 128, STAGES = 4;

using MmaAtom = MMA_Atom<SM90_64x128x32_F32E4M3E4M3_SS_TN<>>;
using TiledMmaT = decltype(make_tiled_mma(MmaAtom{}, Layout<Shape<_2, _1, _1>>{}));
using SmemLayoutA = decltype(tile_to_shape(GMMA::Layout_K_SW128_Atom<ElemAB>{},
                                           Shape<Int<BM>, Int<BK>, Int<STAGES>>{}));
using SmemLayoutB = decltype(tile_to_shape(GMMA::Layout_K_SW128_Atom<ElemAB>{},
                                           Shape<Int<BN>, Int<BK>, Int<STAGES>>{}));

struct SharedStorage {
  array_aligned<ElemAB, cosize_v<SmemLayoutA>, 1024> a;
  array_aligned<ElemAB, cosize_v<SmemLayoutB>, 1024> b;
  cutlass::arch::ClusterTransactionBarrier full[STAGES];
  cutlass::arch::ClusterBarrier empty[STAGES];
};

struct StaticPersistentTileScheduler {
  int tiles_m, tiles_n, next;
  __device__ StaticPersistentTileScheduler(int rows, int cols)
      : tiles_m(rows / BM), tiles_n(cols / BN), next(blockIdx.x) {}
  __device__ bool valid() const { return next < tiles_m * tiles_n; }
  __device__ int2 tile() const { return make_int2(next % tiles_m, next / tiles_m); }
  __device__ void advance() { next += gridDim.x; }
};

template <class TmaA, class TmaB>
__global__ void fp8_gemm_ws(__grid_constant__ const TmaA tma_a, __grid_constant__ const TmaB tma_b,
                            ElemC* c, float scale, int m, int n, int k) {
  extern __shared__ __align__(1024) char smem_raw[];
  auto& s = *reinterpret_cast<SharedStorage*>(smem_raw);
  Tensor sA = make_tensor(make_smem_ptr(s.a.data()), SmemLayoutA{});
  Tensor sB = make_tensor(make_smem_ptr(s.b.data()), SmemLayoutB{});
  Tensor mA = tma_a.get_tma_tensor(make_shape(m, k));
  Tensor mB = tma_b.get_tma_tensor(make_shape(n, k));
  int wg = threadIdx.x / 128, k_tiles = k / BK, stage = 0, phase = 0;
  if (threadIdx.x == 0) {
    for (int i = 0; i < STAGES; ++i) {
      s.full[i].init(1);
      s.empty[i].init(2);
    }
  }
  __syncthreads();
  StaticPersistentTileScheduler sched(m, n);
  if (wg == 0) {
    cutlass::arch::warpgroup_reg_dealloc<40>();
    if (threadIdx.x == 0) {
      for (; sched.valid(); sched.advance()) {
        int2 t = sched.tile();
        Tensor gA = local_tile(mA, Shape<Int<BM>, Int<BK>>{}, make_coord(t.x, _));
        Tensor gB = local_tile(mB, Shape<Int<BN>, Int<BK>>{}, make_coord(t.y, _));
        auto [tAgA, tAsA] = tma_partition(tma_a, Int<0>{}, Layout<_1>{}, group_modes<0, 2>(sA),
                                          group_modes<0, 2>(gA));
        auto [tBgB, tBsB] = tma_partition(tma_b, Int<0>{}, Layout<_1>{}, group_modes<0, 2>(sB),
                                          group_modes<0, 2>(gB));
        for (int kt = 0; kt < k_tiles; ++kt) {
          s.empty[stage].wait(phase ^ 1);
          s.full[stage].arrive_and_expect_tx((BM + BN) * BK);
          copy(tma_a.with(reinterpret_cast<uint64_t&>(s.full[stage])), tAgA(_, kt), tAsA(_, stage));
          copy(tma_b.with(reinterpret_cast<uint64_t&>(s.full[stage])), tBgB(_, kt), tBsB(_, stage));
          stage = (stage + 1) % STAGES;
          phase ^= (stage == 0);
        }
      }
    }
  } else {
    cutlass::arch::warpgroup_reg_alloc<232>();
    TiledMmaT mma;
    auto thr = mma.get_thread_slice(threadIdx.x - 128);
    Tensor tCrA = thr.make_fragment_A(thr.partition_A(sA));
    Tensor tCrB = thr.make_fragment_B(thr.partition_B(sB));
    Tensor mC = make_tensor(make_gmem_ptr(c), make_shape(m, n), make_stride(n, _1{}));
    for (; sched.valid(); sched.advance()) {
      int2 t = sched.tile();
      Tensor tCgC = thr.partition_C(local_tile(mC, Shape<Int<BM>, Int<BN>>{}, make_coord(t.x, t.y)));
      Tensor acc = partition_fragment_C(mma, Shape<Int<BM>, Int<BN>>{});
      clear(acc);
      for (int kt = 0; kt < k_tiles; ++kt) {
        s.full[stage].wait(phase);
        warpgroup_arrive();
        gemm(mma, tCrA(_, _, _, stage), tCrB(_, _, _, stage), acc);
        warpgroup_commit_batch();
        warpgroup_wait<0>();
        s.empty[stage].arrive();
        stage = (stage + 1) % STAGES;
        phase ^= (stage == 0);
      }
      for (int i = 0; i < size(acc); ++i) tCgC(i) = ElemC(acc(i) * scale);
    }
  }
}

void solution(const ElemAB* a, const ElemAB* b, ElemC* c, float scale, int m, int n, int k) {
  Tensor gA = make_tensor(make_gmem_ptr(a), make_shape(m, k), make_stride(k, _1{}));
  Tensor gB = make_tensor(make_gmem_ptr(b), make_shape(n, k), make_stride(k, _1{}));
  auto tma_a = make_tma_copy(SM90_TMA_LOAD{}, gA, SmemLayoutA{}(_, _, 0));
  auto tma_b = make_tma_copy(SM90_TMA_LOAD{}, gB, SmemLayoutB{}(_, _, 0));
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  auto kernel = fp8_gemm_ws<decltype(tma_a), decltype(tma_b)>;
  int smem = sizeof(SharedStorage);
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  int tiles = (m / BM) * (n / BN);
  kernel<<<std::min(sms, tiles), 384, smem>>>(tma_a, tma_b, c, scale, m, n, k);
}
