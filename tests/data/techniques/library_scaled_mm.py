# FP8 GEMM on cuBLASLt through torch._scaled_mm, replayed from a CUDA graph per buffer set.
import torch
from task import input_t, output_t

_graphs = {}


def _mm(a, b, a_scale, b_scale, c):
    torch._scaled_mm(a, b.t(), scale_a=a_scale, scale_b=b_scale, out_dtype=torch.bfloat16,
                     use_fast_accum=True, out=c)


def custom_kernel(data: input_t) -> output_t:
    a, b, a_scale, b_scale, c = data  # a: [M, K], b: [N, K], float8_e4m3fn; scalar scales
    if a.dtype != torch.float8_e4m3fn:
        a = a.to(torch.float8_e4m3fn)
    key = (a.data_ptr(), b.data_ptr(), a_scale.data_ptr(), b_scale.data_ptr(), c.data_ptr())
    graph = _graphs.get(key)
    if graph is None:
        _mm(a, b, a_scale, b_scale, c)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            _mm(a, b, a_scale, b_scale, c)
        _graphs[key] = graph
    graph.replay()
    return c
