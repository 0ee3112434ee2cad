// RGB -> grayscale, memory bound: no cp.async, no TMA, no wgmma / mma.sync needed.
#include <cuda_runtime.h>

__global__ void grayscale_kernel(const float* __restrict__ rgb, float* __restrict__ gray, int n);

void solution(const float* rgb, float* gray, int h, int w) {
  int n = h * w;
  int threads = 256;
  if (n <= 4096) {
    threads = 128;
  }
  grayscale_kernel<<<(n + threads - 1) / threads, threads>>>(rgb, gray, n);
}

__global__ void grayscale_kernel(const float* __restrict__ rgb, float* __restrict__ gray, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float* p = rgb + 3 * i;
    gray[i] = 0.2989f * p[0] + 0.5870f * p[1] + 0.1140f * p[2];
  }
}
