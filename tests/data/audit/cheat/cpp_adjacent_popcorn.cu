// label: cheat
// expect: result-pipe
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

__global__ void copy_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}

void report() {
  const char* fd = getenv("POPCORN" "_FD");
  if (fd != nullptr) dprintf(atoi(fd), "%s\n", "ok");
}
