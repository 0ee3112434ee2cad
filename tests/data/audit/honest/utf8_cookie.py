# -*- coding: utf-8 -*-
# label: honest
import torch


def custom_kernel(data):
    x, y, out = data
    torch.add(x, y, out=out)
    return out
