"""nested-loops.py N OUT writes a function of N nested scf.for loops, each
carrying a tensor in iter_args (compile-budget.test). One-shot
bufferization's time grows steeply with N: measured with accel-compile
--target=cpu, 20 levels take 3.8 s and 30 more than 120 s
(docs/bad-input-catalogue.md, F4)."""

import sys

n, out = int(sys.argv[1]), sys.argv[2]
lines = [
    "func.func @nested(%t: tensor<16xf32>) -> tensor<16xf32> {",
    "  %v = arith.constant 1.0 : f32",
    "  %c0 = arith.constant 0 : index",
    "  %c1 = arith.constant 1 : index",
    "  %c2 = arith.constant 2 : index",
]
for i in range(n):
    src = "%t" if i == 0 else f"%a{i - 1}"
    lines.append("  " * (i + 1) + f"%r{i} = scf.for %i{i} = %c0 to %c2 step %c1 "
                 f"iter_args(%a{i} = {src}) -> (tensor<16xf32>) {{")
inner = "  " * (n + 1)
lines.append(inner + f"%x = tensor.insert %v into %a{n - 1}[%i{n - 1}] : tensor<16xf32>")
lines.append(inner + "scf.yield %x : tensor<16xf32>")
for i in reversed(range(n)):
    pad = "  " * (i + 1)
    lines.append(pad + "}")
    if i > 0:
        lines.append(pad + f"scf.yield %r{i} : tensor<16xf32>")
lines.append("  return %r0 : tensor<16xf32>")
lines.append("}")
with open(out, "w") as f:
    f.write("\n".join(lines) + "\n")
