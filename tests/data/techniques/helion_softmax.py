# Row softmax in Helion with one fixed config (no autotuning search).
import torch
import helion
import helion.language as hl
from task import input_t, output_t


@helion.kernel(config=helion.Config(block_sizes=[1], num_warps=8))
def softmax(x: torch.Tensor) -> torch.Tensor:
    n, _m = x.size()
    out = torch.empty_like(x)
    for tile_n in hl.tile(n):
        values = x[tile_n, :].to(torch.float32)
        amax = torch.amax(values, dim=1, keepdim=True)
        exp = torch.exp(values - amax)
        sum_exp = torch.sum(exp, dim=1, keepdim=True)
        out[tile_n, :] = (exp / sum_exp).to(x.dtype)
    return out


def custom_kernel(data: input_t) -> output_t:
    x, out = data
    if x.size(1) > 16384:
        out.copy_(torch.softmax(x.float(), dim=-1))
        return out
    out.copy_(softmax(x))
    return out
