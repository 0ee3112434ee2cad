# label: honest
import torch


class Model(torch.nn.Module):
    def forward(self, x, w):
        return torch.nn.functional.gelu(x @ w)


_model = Model().eval()
_fn = torch.compile(_model, mode="max-autotune")


def custom_kernel(data):
    x, w, out = data
    out.copy_(_fn(x, w))
    return out
