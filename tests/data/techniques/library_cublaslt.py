# BF16 GEMM through a small cuBLASLt wrapper compiled inline (no kernel of its own).
import torch
from torch.utils.cpp_extension import load_inline
from task import input_t, output_t

cpp_src = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cublasLt.h>

static cublasLtHandle_t handle = nullptr;

torch::Tensor lt_mm(torch::Tensor a, torch::Tensor b, torch::Tensor c, torch::Tensor workspace) {
  // row-major C[m, n] = A[m, k] B[n, k]^T, computed as column-major C^T = B A^T
  int64_t m = a.size(0), k = a.size(1), n = b.size(0);
  if (handle == nullptr) {
    cublasLtCreate(&handle);
  }
  cublasLtMatmulDesc_t op;
  cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasOperation_t trans = CUBLAS_OP_T;
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &trans, sizeof(trans));
  cublasLtMatrixLayout_t la, lb, lc;
  cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, k, n, k);
  cublasLtMatrixLayoutCreate(&lb, CUDA_R_16BF, k, m, k);
  cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, n, m, n);
  cublasLtMatmulPreference_t pref;
  cublasLtMatmulPreferenceCreate(&pref);
  size_t ws = workspace.numel();
  cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws));
  cublasLtMatmulHeuristicResult_t heur;
  int found = 0;
  cublasLtMatmulAlgoGetHeuristic(handle, op, la, lb, lc, lc, pref, 1, &heur, &found);
  int32_t splits = 1;
  cublasLtMatmulAlgoConfigSetAttribute(&heur.algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splits, sizeof(splits));
  float alpha = 1.f, beta = 0.f;
  cublasLtMatmul(handle, op, &alpha, b.data_ptr(), la, a.data_ptr(), lb, &beta, c.data_ptr(), lc,
                 c.data_ptr(), lc, &heur.algo, workspace.data_ptr(), ws,
                 at::cuda::getCurrentCUDAStream());
  cublasLtMatmulPreferenceDestroy(pref);
  cublasLtMatrixLayoutDestroy(la);
  cublasLtMatrixLayoutDestroy(lb);
  cublasLtMatrixLayoutDestroy(lc);
  cublasLtMatmulDescDestroy(op);
  return c;
}
"""
_mod = load_inline(name="lt_mm", cpp_sources=cpp_src, functions=["lt_mm"], with_cuda=True,
                   extra_ldflags=["-lcublasLt"])
_workspace = None


def custom_kernel(data: input_t) -> output_t:
    global _workspace
    a, b, c = data
    if _workspace is None:
        _workspace = torch.empty(32 << 20, device=a.device, dtype=torch.uint8)
    return _mod.lt_mm(a, b, c, _workspace)
