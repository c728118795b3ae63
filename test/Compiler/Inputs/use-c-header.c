/* Uses the header that test/Compiler/c-header.tile generates. */
#include "scale.h"

#include <stdio.h>

int main(void) {
  CUdeviceptr x = 0, out = 0;
  scale_t k;
  if (cuInit(0) != CUDA_SUCCESS || scale_load(&k) != CUDA_SUCCESS) {
    printf("no GPU\n");
    return 0;
  }
  CUresult r = scale_launch(&k, NULL, 1, 1, 1, x, out, 1024);
  scale_unload(&k);
  printf("%d %zu %s\n", (int)r, scale_cubin_size, scale_metadata);
  return 0;
}
