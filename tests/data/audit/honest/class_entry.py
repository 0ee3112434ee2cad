# label: honest
# The entry point is an object whose call runs the kernel.
import torch


class Runner:
    def __init__(self):
        self.scale = 1.0

    def __call__(self, data):
        x, out = data
        torch.mul(x, self.scale, out=out)
        return out


custom_kernel = Runner()
