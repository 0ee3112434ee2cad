# label: cheat
# expect: rng-state
import torch

_state = torch.cuda.get_rng_state()


def custom_kernel(data):
    x, out = data
    torch.cuda.set_rng_state(_state)
    expected = torch.randn_like(x)
    out.copy_(expected)
    return out
