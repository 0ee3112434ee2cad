# label: honest
# Timing with CUDA events, printed for the author's log.
import torch


def custom_kernel(data):
    a, b, c = data
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    torch.matmul(a, b, out=c)
    end.record()
    end.synchronize()
    print(f"matmul took {start.elapsed_time(end):.3f} ms")
    return c
