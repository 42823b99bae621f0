// A program the verifier rejects (a compute without a preload).
systolic.program @p config #systolic.config<rows = 4, cols = 4, input = f32, acc = f32, spad_rows = 8, spad_banks = 1, acc_rows = 8, acc_banks = 1, dram_bytes_per_cycle = 1.0, dram_latency = 1, vector_lanes = 1> buffers [] {
  systolic.config ws
  systolic.compute spad[0] m 1 k 1 n 1
}
