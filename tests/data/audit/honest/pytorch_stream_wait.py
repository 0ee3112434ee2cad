# label: honest
# Two halves on two streams, the main stream waiting on the side one.
import torch

_side = torch.cuda.Stream()


def custom_kernel(data):
    a, b, c = data
    h = a.shape[0] // 2
    main = torch.cuda.current_stream()
    _side.wait_stream(main)
    with torch.cuda.stream(_side):
        torch.matmul(a[h:], b, out=c[h:])
    torch.matmul(a[:h], b, out=c[:h])
    main.wait_stream(_side)
    return c
