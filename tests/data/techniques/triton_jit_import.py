# Decorators imported by name; the launch is replayed from a CUDA graph per buffer set.
import torch
import triton.language as tl
from triton import cdiv, jit
from task import input_t, output_t


@jit
def add_relu_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x + y, 0.0), mask=mask)


def _launch(x, y, out):
    n = out.numel()
    add_relu_kernel[(cdiv(n, 2048),)](x, y, out, n, BLOCK=2048, num_warps=8)


_graphs = {}


def custom_kernel(data: input_t) -> output_t:
    x, y, out = data
    key = (x.data_ptr(), y.data_ptr(), out.data_ptr(), out.numel())
    graph = _graphs.get(key)
    if graph is None:
        _launch(x, y, out)  # compile outside the capture
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            _launch(x, y, out)
        _graphs[key] = graph
    graph.replay()
    return out
