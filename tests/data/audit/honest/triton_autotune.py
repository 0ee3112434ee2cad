# label: honest
import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": b}, num_warps=w) for b in (64, 128)
                          for w in (4, 8)], key=["n"])
@triton.jit
def relu_kernel(x, out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out + offs, tl.maximum(tl.load(x + offs, mask=m), 0), mask=m)


def custom_kernel(data):
    x, out = data
    n = x.numel()
    relu_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, out, n)
    return out


if __name__ == "__main__":
    x = torch.randn(1 << 20, device="cuda")
    print(triton.testing.do_bench(lambda: custom_kernel((x, torch.empty_like(x)))))
