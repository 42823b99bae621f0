"""Tests of accel.core, the in-process compiler (the accel._core extension).

Skipped as a whole only when the extension is not built (ModuleNotFoundError
for accel._core); an extension that is there but fails to load is an error.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

try:
    from accel import core
except ModuleNotFoundError as err:
    if err.name != "accel._core":
        raise
    pytest.skip(str(err), allow_module_level=True)

import accel
from accel import ir, tools

MATMUL = """\
func.func @mm(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>,
              %c: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %0 = accel.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>)
                    outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}
"""

# Line 3 has the K mismatch; the builder would refuse it, so it is written out.
BAD_MATMUL = """\
func.func @bad(%a: tensor<4x8xf32>, %b: tensor<7x16xf32>,
               %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = accel.matmul ins(%a, %b : tensor<4x8xf32>, tensor<7x16xf32>)
                    outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
"""

# `foo` (line 2, column 8) is not an op.
SYNTAX_ERROR = """\
func.func @f() {
  %0 = foo
}
"""


def attention_function() -> ir.Function:
    f = ir.Function("attn")
    q = f.arg((2, 8, 128, 64), "f16")
    k = f.arg((2, 2, 128, 64), "f16")
    v = f.arg((2, 2, 128, 64), "f16")
    f.ret(f.attention(q, k, v, causal=True, out_dtype="f32"))
    return f


def test_version_is_the_compiler_id() -> None:
    # "accel <version>+<git commit>" (".dirty", or "unknown" outside git).
    assert re.fullmatch(
        re.escape(f"accel {accel.__version__}+")
        + r"([0-9a-f]{12}(\.dirty)?|unknown)", core.version()), core.version()


def test_parse_round_trip_of_built_attention() -> None:
    f = attention_function()
    out = core.parse(f.to_mlir())
    assert out.startswith("module {")
    assert "func.func @attn(" in out
    assert re.search(r"accel\.attention causal ins\(", out), out
    # Printing is a fixed point, and the builder object is accepted as is.
    assert core.parse(out) == out
    assert core.parse(f) == out
    # Same as the accel-opt driver prints, when it is built.
    try:
        assert tools.verify(f.to_mlir()) == out
    except FileNotFoundError:
        pass


def test_parse_generic_form_round_trips() -> None:
    custom = core.parse(attention_function())
    generic = core.parse(attention_function(), generic=True)
    assert '"accel.attention"(' in generic
    assert "accel.attention causal" not in generic
    assert core.parse(generic) == custom


def test_parse_error_is_located() -> None:
    with pytest.raises(core.AccelError) as info:
        core.parse(SYNTAX_ERROR)
    diags = info.value.diagnostics
    assert "<python>:2:8: error: custom op 'foo' is unknown" in diags
    assert str(info.value) == diags.rstrip()


def test_input_that_crashes_mlir_itself_is_an_error() -> None:
    # Both forms crash MLIR 22's own parser or verifier (and would take the
    # interpreter down); accel refuses them first (docs/bad-input-catalogue.md,
    # row 1). parse and run_pipeline share the check.
    bad_list = (
        "func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<3x2xf32> {\n"
        "  %t = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%b : tensor<3x2xf32>)"
        " permutation = [1, 0\n"
        "  return %t : tensor<3x2xf32>\n}\n")
    empty_group = (
        "func.func @f(%a: tensor<6x16xf32>) -> tensor<3x2x16xf32> {\n"
        "  %o = tensor.expand_shape %a [[0, 1], []] output_shape [3, 2, 16]"
        " : tensor<6x16xf32> into tensor<3x2x16xf32>\n"
        "  return %o : tensor<3x2x16xf32>\n}\n")
    for call in (core.parse, lambda text: core.run_pipeline(text, "canonicalize")):
        with pytest.raises(core.AccelError) as info:
            call(bad_list)
        assert "<python>:3:3: error: malformed `permutation` list" in info.value.diagnostics
        with pytest.raises(core.AccelError) as info:
            call(empty_group)
        assert ("<python>:2:8: error: 'tensor.expand_shape' op reassociation group 1 "
                "is empty") in info.value.diagnostics
    # The valid forms still parse.
    core.parse(bad_list.replace("[1, 0\n", "[1, 0]\n"))
    core.parse(empty_group.replace("[[0, 1], []]", "[[0, 1], [2]]"))


def test_verifier_error_is_raised() -> None:
    with pytest.raises(core.AccelError) as info:
        core.parse(BAD_MATMUL)
    assert ("<python>:3:8: error: 'accel.matmul' op contraction dimension mismatch: "
            "A has K = 8, B has K = 7 (B is [K, N])") in info.value.diagnostics


def test_error_classes() -> None:
    # One handler catches the driver's and the extension's errors.
    assert issubclass(core.AccelError, accel.AccelError)
    assert issubclass(core.AccelError, core._core.AccelError)
    with pytest.raises(accel.AccelError) as info:
        core.run_pipeline(BAD_MATMUL, "canonicalize")
    assert info.value.returncode == 1
    assert info.value.command == ["accel.core.run_pipeline", "canonicalize"]
    # The extension's own exception carries the diagnostics too.
    with pytest.raises(core._core.AccelError) as raw:
        core._core.parse(SYNTAX_ERROR)
    assert "<python>:2:8: error:" in raw.value.diagnostics


@pytest.mark.parametrize("pipeline", ["accel-cpu-pipeline",
                                      "builtin.module(accel-cpu-pipeline)",
                                      " builtin.module ( accel-cpu-pipeline{threads=1} ) "])
def test_cpu_pipeline_reaches_llvm(pipeline: str) -> None:
    out = core.run_pipeline(MATMUL, pipeline)
    assert "llvm.func @mm(" in out
    assert "accel.matmul" not in out
    assert "func.func" not in out


def test_nested_pipelines() -> None:
    # accel-return-arguments runs on func.func, so it is nested, as in
    # accel-opt's --pass-pipeline; bare and anchored lists give the same.
    out = core.run_pipeline(MATMUL, "convert-accel-to-linalg,func.func(accel-return-arguments)")
    assert "linalg.generic" in out
    assert "accel.matmul" not in out
    assert out == core.run_pipeline(
        MATMUL, "builtin.module(convert-accel-to-linalg,func.func(accel-return-arguments))")


@pytest.mark.parametrize("pipeline,message", [
    ("no-such-pass", "'no-such-pass' does not refer to a registered pass or pass pipeline"),
    ("builtin.module(canonicalize", "encountered unbalanced parentheses"),
    ("accel-cpu-pipeline{threads=abc}", "failed to add `accel-cpu-pipeline` with options"),
    # Nesting mistakes are errors, not the fatal error they once were.
    ("accel-return-arguments", "restricted to 'func.func' on a PassManager intended to run "
     "on 'builtin.module', did you intend to nest?"),
    ("func.func(accel-tile)", "did you intend to nest?"),
])
def test_invalid_pipeline_raises(pipeline: str, message: str) -> None:
    with pytest.raises(core.AccelError) as info:
        core.run_pipeline(MATMUL, pipeline)
    assert message in info.value.diagnostics


def test_pipeline_on_invalid_input_raises() -> None:
    with pytest.raises(core.AccelError) as info:
        core.run_pipeline(SYNTAX_ERROR, "canonicalize")
    assert "<python>:2:8: error:" in info.value.diagnostics


def test_pass_failure_raises_with_the_pass_diagnostic() -> None:
    with pytest.raises(core.AccelError) as info:
        core.run_pipeline(MATMUL, "convert-accel-to-gpu{chip=sm_70}")
    assert ("error: convert-accel-to-gpu: unknown chip 'sm_70' (known: sm_80"
            in info.value.diagnostics)


def test_survives_alternating_good_and_bad_calls() -> None:
    good = core.parse(MATMUL)
    for i in range(50):
        if i % 2 == 0:
            assert core.parse(MATMUL) == good
        else:
            bad, call = [
                (SYNTAX_ERROR, lambda t: core.parse(t)),
                (BAD_MATMUL, lambda t: core.parse(t)),
                (MATMUL, lambda t: core.run_pipeline(t, "no-such-pass")),
                (MATMUL, lambda t: core.run_pipeline(t, "convert-accel-to-gpu{chip=sm_70}")),
            ][(i // 2) % 4]
            with pytest.raises(core.AccelError) as info:
                call(bad)
            assert "error:" in info.value.diagnostics
    # Nothing leaked from the failed calls into the next good one.
    assert "llvm.func @mm(" in core.run_pipeline(MATMUL, "accel-cpu-pipeline")


def outcome(call, text):
    """("ok", output) or ("error", diagnostics): what one call gives."""
    try:
        return ("ok", call(text))
    except core.AccelError as err:
        return ("error", err.diagnostics)


# Calls that succeed and calls that fail at each stage: parse, verify,
# pipeline text, a pass, the nesting limit.
CONCURRENT_CALLS = [
    (lambda t: core.parse(t), MATMUL),
    (lambda t: core.run_pipeline(t, "accel-cpu-pipeline"), MATMUL),
    (lambda t: core.parse(t), SYNTAX_ERROR),
    (lambda t: core.parse(t), BAD_MATMUL),
    (lambda t: core.run_pipeline(t, "no-such-pass"), MATMUL),
    (lambda t: core.run_pipeline(t, "convert-accel-to-gpu{chip=sm_70}"), MATMUL),
    (lambda t: core.run_pipeline(t, "convert-accel-to-linalg"), MATMUL),
    (lambda t: core.parse(t), "module {" * 600 + "}" * 600),
]


def test_concurrent_threads_give_the_serial_results() -> None:
    # The compiler runs with the GIL released, so these calls really overlap:
    # each call has its own context and diagnostics, and nothing of one may
    # show in another (a shared handler or registry would mix diagnostics).
    from concurrent.futures import ThreadPoolExecutor

    # The reference runs on a pool thread too: the nesting limit scales with
    # the stack of the thread that parses (glibc gives threads 2 MiB under
    # `ulimit -s unlimited`), so it must be a thread's.
    with ThreadPoolExecutor(max_workers=1) as one:
        serial = one.submit(lambda: [outcome(call, text)
                                     for call, text in CONCURRENT_CALLS]).result()
    assert [kind for kind, _ in serial] == ["ok", "ok", "error", "error",
                                            "error", "error", "ok", "error"]
    rounds = 400

    def worker(start: int) -> list:
        # Each thread walks the calls from its own offset, so different
        # calls run at the same time.
        got = []
        for r in range(rounds):
            i = (start + r) % len(CONCURRENT_CALLS)
            call, text = CONCURRENT_CALLS[i]
            got.append((i, outcome(call, text)))
        return got

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(worker, range(4)))
    assert sum(len(r) for r in results) == 4 * rounds
    for got in results:
        for i, result in got:
            assert result == serial[i], f"call {i} differs in a thread"


# Run in a child interpreter: before the nesting limit (F1 in
# docs/bad-input-catalogue.md), MLIR's parser overflowed the stack on such
# input and killed the interpreter, which would take this test run with it.
DEEP_NESTING = textwrap.dedent("""\
    import threading
    from accel import core

    def refused(call, where):
        try:
            call()
        except core.AccelError as err:
            print(where, err.diagnostics.strip())
        else:
            print(where, "accepted")

    deep = "module {" * 10000 + "}" * 10000
    refused(lambda: core.parse(deep), "parse:")
    refused(lambda: core.run_pipeline(deep, "canonicalize"), "run_pipeline:")
    pipeline = "builtin.module(" * 100000 + "canonicalize" + ")" * 100000
    refused(lambda: core.run_pipeline("module {}", pipeline), "pipeline:")
    # Python threads have a stack of their own: 8 MiB here, which the
    # limit of 512 is sized for (it scales down with a smaller stack).
    threading.stack_size(8 << 20)
    thread = threading.Thread(target=refused, args=(lambda: core.parse(deep), "thread:"))
    thread.start()
    thread.join()
    # The limit exactly, and the interpreter still works.
    print("512:", core.parse("module {" * 512 + "}" * 512).count("module {"))
    refused(lambda: core.parse("module {" * 513 + "}" * 513), "513:")
    print("alive:", "accel.matmul" in core.parse(MATMUL))
""")


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(Path(__file__).resolve().parents[1]), env.get("PYTHONPATH", "")])
    child = subprocess.run(
        [sys.executable, "-c", f"MATMUL = {MATMUL!r}\n" + DEEP_NESTING],
        env=env, capture_output=True, text=True, timeout=300)
    assert child.returncode == 0, child.stderr
    lines = child.stdout.splitlines()
    error = "<python>:1:4104: error: nesting deeper than 512 levels"
    assert lines == [
        f"parse: {error}",
        f"run_pipeline: {error}",
        "pipeline: <pipeline>:1:7695: error: nesting deeper than 512 levels",
        f"thread: {error}",
        "512: 512",
        f"513: {error}",
        "alive: True",
    ]
