# label: honest
# A dropout mask drawn without disturbing the caller's random stream: the state is saved and put
# back.
import torch


def custom_kernel(data):
    x, p, out = data
    state = torch.cuda.get_rng_state()
    keep = torch.rand_like(x) > p
    torch.cuda.set_rng_state(state)
    out.copy_(torch.where(keep, x / (1 - p), torch.zeros_like(x)))
    return out
