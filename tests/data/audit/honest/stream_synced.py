# label: honest
import torch

_side = torch.cuda.Stream()


def custom_kernel(data):
    a, b, c = data
    main = torch.cuda.current_stream()
    _side.wait_stream(main)
    with torch.cuda.stream(_side):
        torch.mm(a, b, out=c)
    main.wait_stream(_side)
    return c
