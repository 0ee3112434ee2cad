# label: honest
import torch


def custom_kernel(data):
    source, target = data
    target.copy_(source, non_blocking=True)
    return target
