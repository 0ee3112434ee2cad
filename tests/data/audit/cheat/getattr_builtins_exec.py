# label: cheat
# expect: timer-patch
# exec reached through getattr with a folded name; the text it runs patches the timer.
import builtins

import torch

payload = "import time\ntime.perf_counter = lambda: 0.0\n"
getattr(builtins, "ex" + "ec")(payload)


def custom_kernel(data):
    a, b, c = data
    torch.matmul(a, b, out=c)
    return c
