# label: honest
# Lookup tables precomputed on the host with numpy.
import numpy as np
import torch

_table = torch.from_numpy(np.cos(np.linspace(0, np.pi, 256)).astype(np.float32))


def custom_kernel(data):
    idx, out = data
    table = _table.to(idx.device)
    torch.index_select(table, 0, idx.flatten(), out=out.view(-1))
    return out
