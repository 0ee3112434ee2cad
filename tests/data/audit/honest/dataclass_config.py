# label: honest
from dataclasses import dataclass

import torch


@dataclass
class Tile:
    m: int = 128
    n: int = 128


TILE = Tile()


def custom_kernel(data):
    a, b, c = data
    for i in range(0, a.shape[0], TILE.m):
        c[i:i + TILE.m] = a[i:i + TILE.m] @ b
    return c
