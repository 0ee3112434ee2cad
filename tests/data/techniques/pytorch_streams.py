# Two independent GEMMs overlapped on a side stream.
import torch
from task import input_t, output_t

_side = None


def custom_kernel(data: input_t) -> output_t:
    global _side
    a, b, c, d, out = data
    if _side is None:
        _side = torch.cuda.Stream()
    main = torch.cuda.current_stream()
    _side.wait_stream(main)
    with torch.cuda.stream(_side):
        y = c @ d
    x = a @ b
    main.wait_stream(_side)
    y.record_stream(main)
    torch.add(x, y, out=out)
    return out
