# Helion matmul autotuned over three hand-picked configs.
import torch
import helion
import helion.language as hl
from task import input_t, output_t


@helion.kernel(
    static_shapes=True,
    configs=[
        helion.Config(block_sizes=[64, 64, 32], num_warps=4, num_stages=3),
        helion.Config(block_sizes=[128, 64, 32], num_warps=8, num_stages=3),
        helion.Config(block_sizes=[128, 128, 64], num_warps=8, num_stages=4),
    ],
)
def matmul(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    m, k = x.size()
    k2, n = y.size()
    assert k == k2, f"size mismatch {k} != {k2}"
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = hl.dot(x[tile_m, tile_k], y[tile_k, tile_n], acc=acc)
        out[tile_m, tile_n] = acc.to(x.dtype)
    return out


def custom_kernel(data: input_t) -> output_t:
    a, b, c = data
    c.copy_(matmul(a, b))
    return c
