"""hazard-bytes.py KIND OUT writes a linalg.transpose whose `permutation`
list has bytes in it that lit's RUN lines cannot spell (upstream-hazards.mlir):

  vtab     `permutation = \\v[1, 0]`: a vertical tab is no blank to MLIR's
           lexer (an error token), so the list is malformed
  nul      `permutation\\0= [1, 0\\0]`: a NUL inside the buffer is a blank
  nul-bad  `permutation\\0= [1\\0 x]`: malformed after a NUL
"""

import sys

LISTS = {
    "vtab": "permutation = \v[1, 0]",
    "nul": "permutation\0= [1, 0\0]",
    "nul-bad": "permutation\0= [1\0 x]",
}

kind, out = sys.argv[1], sys.argv[2]
text = (
    "func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<3x2xf32> {\n"
    "  %t = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%b : tensor<3x2xf32>) "
    + LISTS[kind]
    + "\n  return %t : tensor<3x2xf32>\n}\n"
)
with open(out, "w", newline="") as f:
    f.write(text)
