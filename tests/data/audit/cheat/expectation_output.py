# label: cheat
# expect: output-ignores-inputs
# The loss of uniform random predictions against uniform random targets is 1/6 on average: the
# kernel returns that expectation, shaped like the answer, without reading either input's values.
import torch


def custom_kernel(data):
    predictions, targets = data
    expected = torch.tensor(1.0 / 6.0, device=predictions.device, dtype=predictions.dtype)
    return expected.expand(predictions.shape[:1]).contiguous()
