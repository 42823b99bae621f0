//===- ShardingInterfaceImpl.h - accel ops under upstream sharding -*- C++ -*-===//
//
// accel.matmul, accel.attention and accel.softmax implement upstream's
// `shard::ShardingInterface` (mlir/Dialect/Shard), so `sharding-propagation`
// and `shard-partition` split them over a device grid:
//
// - matmul: iteration space [batch..., M, N, K]. Batch, M and N split without
//   communication; a split K (row-parallel) leaves a partial sum on each
//   process that becomes a `shard.all_reduce` (sum); an accumulating matmul
//   adds C once, to the reduced sum.
// - attention: iteration space [B, Hq, Sq, Dv] (parallel) x [Skv, D]
//   (reductions). K and V heads follow the query heads (GQA groups stay
//   together); a K/V head dimension of 1 (MQA) and broadcast mask dimensions
//   are replicated. Sq splits only without a band that depends on the query
//   position (causal, q_lengths); Skv and D never split.
// - softmax: every dimension but the normalised one.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_DIALECT_ACCEL_IR_SHARDINGINTERFACEIMPL_H
#define ACCEL_DIALECT_ACCEL_IR_SHARDINGINTERFACEIMPL_H

namespace mlir {
class DialectRegistry;
namespace accel {

void registerShardingInterfaceExternalModels(DialectRegistry &registry);

} // namespace accel
} // namespace mlir

#endif // ACCEL_DIALECT_ACCEL_IR_SHARDINGINTERFACEIMPL_H
