/* An MPI program that loads the library of a sharded module
   (cpu-sharded.test): each of the 2 processes passes its block of W1
   (columns) and W2 (rows), and checks the replicated result against a
   double-precision product of the whole tensors. */
#include "tp_mlp.h"
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

enum { M = 8, K = 32, H = 64, N = 16 };

static float value(int tensor, int i, int j) {
  return (float)(((tensor * 131 + i * 17 + j * 7) % 23) - 11) / 16.0f;
}

/* With "nompi" the library is called without MPI_Init, with "anysize" in
   a world of any size: it must refuse both (ACCEL_ERR_COMM) before it
   runs anything. */
int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  int nompi = strcmp(mode, "nompi") == 0,
      anysize = strcmp(mode, "anysize") == 0;
  if (!nompi)
    MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  if (!nompi) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
  }
  if (nompi || anysize) {
    static float x[M][K], w1[K][H / 2], w2[H / 2][N], y[M][N];
    accel_tensor tx = {x, 2, {M, K}, {K, 1}};
    accel_tensor tw1 = {w1, 2, {K, H / 2}, {H / 2, 1}};
    accel_tensor tw2 = {w2, 2, {H / 2, N}, {N, 1}};
    accel_tensor ty = {y, 2, {M, N}, {N, 1}};
    int status = accel_mlp(&tx, &tw1, &tw2, &ty);
    printf("rank %d of %d: status %d: %s\n", rank, size, status,
           accel_status_string(status));
    if (!nompi)
      MPI_Finalize();
    return 0;
  }
  if (size != ACCEL_TP_MLP_PROCESSES || accel_tp_mlp_load_check() != ACCEL_OK) {
    fprintf(stderr, "rank %d: %d processes or a library mismatch\n", rank, size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  static float x[M][K], w1[K][H / 2], w2[H / 2][N], y[M][N];
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k)
      x[i][k] = value(0, i, k);
  /* This process's block: columns [rank*H/2, (rank+1)*H/2) of W1, the same
     rows of W2. */
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < H / 2; ++j)
      w1[k][j] = value(1, k, rank * H / 2 + j);
  for (int j = 0; j < H / 2; ++j)
    for (int n = 0; n < N; ++n)
      w2[j][n] = value(2, rank * H / 2 + j, n);
  for (int i = 0; i < M; ++i)
    for (int n = 0; n < N; ++n)
      y[i][n] = NAN;
  accel_tensor tx = {x, 2, {M, K}, {K, 1}};
  accel_tensor tw1 = {w1, 2, {K, H / 2}, {H / 2, 1}};
  accel_tensor tw2 = {w2, 2, {H / 2, N}, {N, 1}};
  accel_tensor ty = {y, 2, {M, N}, {N, 1}};
  int status = accel_mlp(&tx, &tw1, &tw2, &ty);
  if (status != ACCEL_OK) {
    fprintf(stderr, "rank %d: %s\n", rank, accel_status_string(status));
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  double worst = 0;
  for (int i = 0; i < M; ++i)
    for (int n = 0; n < N; ++n) {
      double ref = 0;
      for (int j = 0; j < H; ++j) {
        double h = 0;
        for (int k = 0; k < K; ++k)
          h += (double)value(0, i, k) * value(1, k, j);
        ref += h * value(2, j, n);
      }
      double err = fabs(y[i][n] - ref) / (1.0 + fabs(ref));
      if (!(err <= worst))
        worst = isnan(err) ? INFINITY : err;
    }
  printf("rank %d: max relative error %s\n", rank,
         worst < 1e-5 ? "below 1e-5" : "TOO LARGE");
  MPI_Finalize();
  return worst < 1e-5 ? 0 : 1;
}
