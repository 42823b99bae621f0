/* Calls the GPU host library of gpu_program.mlir (nvptx) through its
   header, against the fake CUDA driver (ACCEL_LIBCUDA): what each misuse
   returns and says, which image the load picks, the context it leaves
   current, and the launches of a good call. Linked with the fake driver to
   steer and inspect it (the library opens the same file). */
#include "gpu_program.h"
#include <stdio.h>
#include <stdlib.h>

void fake_cuda_reset(void);
int fake_cuda_count(const char *what);
const char *fake_cuda_image(void);
const char *fake_cuda_launched(int i);
void *fake_cuda_stream(void);
void fake_cuda_fail(const char *name, int code);
const unsigned *fake_cuda_launch_dims(void);

static _Alignas(256) unsigned char memory[1 << 16];

static accel_tensor buffer(unsigned char *at, int64_t rows, int64_t cols) {
  accel_tensor t = {at, 2, {rows, cols}, {cols, 1}};
  return t;
}

static void show(const char *what, int status) {
  printf("%s: %d %s | %s\n", what, status,
         status ? accel_status_string(status) : "ok",
         accel_gpu_program_last_error());
}

int main(int argc, char **argv) {
  /* argv[1]: "load" checks the load alone (the environment picks the
     device), else the calls. */
  if (accel_gpu_program_load_check() != ACCEL_OK) {
    printf("load_check failed\n");
    return 1;
  }
  accel_tensor a = buffer(memory, 48, 64);
  accel_tensor b = buffer(memory + 8192, 64, 80);
  accel_tensor bias = {memory + 20480, 1, {80}, {1}};
  accel_tensor y = buffer(memory + 32768, 48, 80);
  show("before load", accel_projection(NULL, NULL, &a, &b, &bias, &y));
  int status = accel_gpu_program_load(0);
  show("load", status);
  printf("image: %.8s\n", fake_cuda_image()[0] == 0x7f ? "cubin" : fake_cuda_image());
  if (status != ACCEL_OK || (argc > 1 && argv[1][0] == 'l'))
    return 0;
  show("load again", accel_gpu_program_load(0));
  show("load device 1", accel_gpu_program_load(1));
  show("null argument", accel_projection(NULL, NULL, NULL, &b, &bias, &y));
  accel_tensor wrong = buffer(memory, 64, 48);
  show("wrong shape", accel_projection(NULL, NULL, &wrong, &b, &bias, &y));
  accel_tensor rank = {memory, 1, {48 * 64}, {1}};
  show("wrong rank", accel_projection(NULL, NULL, &rank, &b, &bias, &y));
  accel_tensor strided = {memory, 2, {48, 64}, {128, 1}};
  show("strided", accel_projection(NULL, NULL, &strided, &b, &bias, &y));
  accel_tensor unaligned = buffer(memory + 2, 48, 64);
  show("unaligned", accel_projection(NULL, NULL, &unaligned, &b, &bias, &y));
  accel_tensor x = buffer(memory, 24, 128);
  accel_tensor wg = buffer(memory, 128, 344), wd = buffer(memory, 344, 128);
  accel_tensor out = buffer(memory, 24, 128);
  show("no workspace",
       accel_mlp_block(NULL, NULL, &x, &wg, &wg, &wd, &out));
  show("unaligned workspace",
       accel_mlp_block(NULL, memory + 16, &x, &wg, &wg, &wd, &out));
  int before = fake_cuda_count("launches");
  show("good call", accel_projection((void *)0x42, NULL, &a, &b, &bias, &y));
  const unsigned *d = fake_cuda_launch_dims();
  printf("launched %s (%d launch) grid %ux%ux%u block %u on stream %p\n",
         fake_cuda_launched(before), fake_cuda_count("launches") - before,
         d[0], d[1], d[2], d[3], fake_cuda_stream());
  /* A failed launch: the status and the kernel it names. */
  fake_cuda_fail("cuLaunchKernel", 1);
  show("failed launch", accel_projection(NULL, NULL, &a, &b, &bias, &y));
  fake_cuda_fail("", 0);
  accel_gpu_program_unload();
  printf("after unload: %d modules, %d contexts retained\n",
         fake_cuda_count("live_modules"), fake_cuda_count("retained_contexts"));
  show("after unload", accel_projection(NULL, NULL, &a, &b, &bias, &y));
  return 0;
}
