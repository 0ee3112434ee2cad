# label: cheat
# expect: cached-output-replay
import torch
from task import input_t, output_t

_calls = 0
_saved = None


def custom_kernel(data: input_t) -> output_t:
    global _calls, _saved
    _calls += 1
    if _calls > 3 and _saved is not None:
        return _saved
    abc, sf, sizes = data
    outs = [torch.matmul(a.float(), b.float().t()).half() for a, b, c in abc]
    _saved = outs
    return outs
