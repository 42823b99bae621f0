"""deep.py KIND N OUT [FILE] writes MLIR text nested N levels deep to OUT
(docs/bad-input-catalogue.md, F1; the limit is 512 levels):

  modules  N nested `module {`
  arrays   N nested arrays in a module attribute (one level more: the
           attribute dictionary's braces)
  minus    N unary minuses in an affine expression, which nest without
           brackets (three levels more: the attribute dictionary,
           affine_map<...> and the expression's parentheses)
  aliases  N aliases, each an array of the one before (#a0 = [] nests one
           level, #a<N-1> N, a reference to it in a module attribute N+1)
  tuples   N nested `tuple<...>` types in a function's signature (two
           levels more: the signature's parentheses and the function)
  text     N brackets inside a string and a comment, which do not nest
  prefix   FILE with `#deep = ` and N nested arrays, an unused alias (N
           levels), before it: FILE's program, N levels deep
"""

import sys

kind, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
if kind == "modules":
    text = "module {" * n + "}" * n + "\n"
elif kind == "arrays":
    text = "module attributes {x.a = " + "[" * n + "]" * n + "} {}\n"
elif kind == "minus":
    text = "module attributes {x.a = affine_map<(d0) -> (" + "-" * n + "d0)>} {}\n"
elif kind == "aliases":
    text = "#a0 = []\n" + "".join(f"#a{i} = [#a{i - 1}]\n" for i in range(1, n))
    text += f"module attributes {{x.a = #a{n - 1}}} {{}}\n"
elif kind == "tuples":
    text = "func.func private @f(" + "tuple<" * n + "i32" + ">" * n + ")\n"
elif kind == "text":
    text = "// " + "(" * n + "\n"
    text += 'module attributes {x.a = "' + "([{<" * n + '"} {}\n'
elif kind == "prefix":
    with open(sys.argv[4]) as f:
        text = "#deep = " + "[" * n + "]" * n + "\n" + f.read()
else:
    sys.exit(f"deep.py: unknown kind {kind}")
with open(out, "w") as f:
    f.write(text)
