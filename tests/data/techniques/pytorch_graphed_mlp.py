# A small MLP made graph-callable once per batch size.
import torch
from task import input_t, output_t

_graphed = {}


class MLP(torch.nn.Module):
    def __init__(self, w1, w2):
        super().__init__()
        self.w1 = w1
        self.w2 = w2

    def forward(self, x):
        return torch.nn.functional.silu(x @ self.w1) @ self.w2


def custom_kernel(data: input_t) -> output_t:
    x, w1, w2, out = data
    batch = x.shape[0]
    if batch <= 16:
        out.copy_(torch.nn.functional.silu(x @ w1) @ w2)
        return out
    key = (batch, w1.data_ptr(), w2.data_ptr())
    if key not in _graphed:
        sample = torch.randn_like(x)
        _graphed[key] = torch.cuda.make_graphed_callables(MLP(w1, w2), (sample,))
    out.copy_(_graphed[key](x))
    return out
