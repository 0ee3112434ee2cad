# Bias + GELU on two halves forked onto two streams, captured once per buffer set into a
# CUDA graph and replayed on the caller's stream.
import torch
from torch.utils.cpp_extension import load_inline
from task import input_t, output_t

cuda_src = r"""
#include <cuda_runtime.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void bias_gelu(const float* __restrict__ x, const float* __restrict__ bias,
                          float* __restrict__ out, int n, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i] + bias[i % cols];
    out[i] = 0.5f * v * (1.f + erff(v * 0.70710678f));
  }
}

static cudaStream_t s_main = nullptr, s_side = nullptr;
static cudaEvent_t fork_ev, join_ev;
static cudaGraphExec_t g_exec = nullptr;
static const void* g_key = nullptr;

void run(torch::Tensor x, torch::Tensor bias, torch::Tensor out) {
  int n = x.numel(), cols = x.size(-1), half_n = (x.size(0) / 2) * cols;
  if (s_main == nullptr) {
    cudaStreamCreateWithFlags(&s_main, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&s_side, cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&fork_ev, cudaEventDisableTiming);
    cudaEventCreateWithFlags(&join_ev, cudaEventDisableTiming);
  }
  if (g_exec == nullptr || g_key != x.data_ptr()) {
    cudaGraph_t graph;
    cudaStreamBeginCapture(s_main, cudaStreamCaptureModeThreadLocal);
    cudaEventRecord(fork_ev, s_main);
    cudaStreamWaitEvent(s_side, fork_ev, 0);
    bias_gelu<<<(half_n + 255) / 256, 256, 0, s_main>>>(x.data_ptr<float>(), bias.data_ptr<float>(),
                                                       out.data_ptr<float>(), half_n, cols);
    bias_gelu<<<(n - half_n + 255) / 256, 256, 0, s_side>>>(x.data_ptr<float>() + half_n,
                                                           bias.data_ptr<float>(),
                                                           out.data_ptr<float>() + half_n, n - half_n, cols);
    cudaEventRecord(join_ev, s_side);
    cudaStreamWaitEvent(s_main, join_ev, 0);
    cudaStreamEndCapture(s_main, &graph);
    if (g_exec != nullptr) {
      cudaGraphExecDestroy(g_exec);
    }
    cudaGraphInstantiate(&g_exec, graph, 0);
    cudaGraphDestroy(graph);
    g_key = x.data_ptr();
  }
  cudaGraphLaunch(g_exec, at::cuda::getCurrentCUDAStream());
}
"""
_mod = load_inline(name="bias_gelu_graph",
                   cpp_sources="void run(torch::Tensor x, torch::Tensor bias, torch::Tensor out);",
                   cuda_sources=cuda_src, functions=["run"])


def custom_kernel(data: input_t) -> output_t:
    x, bias, out = data
    _mod.run(x, bias, out)
    return out
