// label: honest
#include <cstdio>
#include <cuda_runtime.h>

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// Times itself for the author's own log; the harness keeps its own timing.
void solution(const float* a, const float* b, float* c, int n) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start);
  vector_add<<<(n + 255) / 256, 256>>>(a, b, c, n);
  cudaEventRecord(stop);
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  fprintf(stderr, "vector_add: %.3f ms\n", ms);
}
