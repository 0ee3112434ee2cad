# NVFP4 GEMM handed to cuBLASLt (block-scaled e2m1 operands, one e4m3 scale per 16 values),
# compiled inline: the library runs the hot loop; the data types say fp4.
import torch
from torch.utils.cpp_extension import load_inline
from task import input_t, output_t

wrapper = r"""
#include <torch/extension.h>
#include <cublasLt.h>

static cublasLtHandle_t lt = nullptr;

torch::Tensor fp4_mm(torch::Tensor a, torch::Tensor b, torch::Tensor sa, torch::Tensor sb,
                     torch::Tensor c) {
  if (!lt) cublasLtCreate(&lt);
  const int64_t m = a.size(0), n = b.size(0), k = a.size(1) * 2;
  cublasLtMatmulDesc_t desc;
  cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasLtMatmulMatrixScale_t mode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3;
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &mode, sizeof(mode));
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &mode, sizeof(mode));
  const void* pa = sa.data_ptr();
  const void* pb = sb.data_ptr();
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &pb, sizeof(pb));
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &pa, sizeof(pa));
  cublasLtMatrixLayout_t la, lb, lc;
  cublasLtMatrixLayoutCreate(&la, CUDA_R_4F_E2M1, k, n, k);
  cublasLtMatrixLayoutCreate(&lb, CUDA_R_4F_E2M1, k, m, k);
  cublasLtMatrixLayoutCreate(&lc, CUDA_R_16F, n, m, n);
  const float one = 1.0f, zero = 0.0f;
  cublasLtMatmul(lt, desc, &one, b.data_ptr(), la, a.data_ptr(), lb, &zero, c.data_ptr(), lc,
                 c.data_ptr(), lc, nullptr, nullptr, 0, 0);
  return c;
}
"""

ext = load_inline(name="lt_fp4", cpp_sources=wrapper, functions=["fp4_mm"],
                  extra_ldflags=["-lcublasLt"])


def custom_kernel(data: input_t) -> output_t:
    a, b, sfa, sfb, sfa_perm, sfb_perm, c = data
    return ext.fp4_mm(a[:, :, 0], b[:, :, 0], sfa_perm, sfb_perm, c[:, :, 0])
