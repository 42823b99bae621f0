"""The wheel: `pip wheel ./python` (scikit-build-core, reusing the build
tree so that it takes seconds, not the compiler's build) gives a wheel that
holds the extension, the XLA FFI handler and the drivers; installed into a
fresh virtual environment it works from elsewhere with no PATH, PYTHONPATH
or ACCEL_* variables (drivers found inside the package), reports the one
version, and passes the package's own tests."""

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

PYTHON_DIR = Path(__file__).resolve().parents[1]
REPO = PYTHON_DIR.parent
BUILD = Path(os.environ.get("ACCEL_BUILD_DIR", REPO / "build"))

SCRIPT = """
import os, shutil
import numpy as np
import accel
from accel import aot, core, ir, tools
assert accel.__file__.startswith(PREFIX), accel.__file__
assert core._load().__file__.startswith(PREFIX), "extension not the installed one"
for tool in ("accel-opt", "accel-compile", "accel-run", "accel-sim", "accel-launch"):
    assert shutil.which(tool) is None, tool + " is on PATH"
    assert tools.find_tool(tool, "UNSET").startswith(PREFIX), tool
print("version", accel.__version__, core.version())
f = ir.Function("mm")
a = f.arg((4, 8), "f32")
b = f.arg((8, 2), "f32")
f.ret(f.matmul(a, b))
lib = aot.load(aot.compile(f, out_dir=OUT, name="inst"))
x = np.arange(32, dtype=np.float32).reshape(4, 8)
y = np.ones((8, 2), np.float32)
assert (lib["mm"](x, y) == x @ y).all()
try:
    import jax
except ImportError:
    print("no jax")
else:
    import accel.jax as ajax
    assert str(ajax.handler_library()).startswith(PREFIX)
    assert (np.asarray(jax.jit(ajax.kernel(lib["mm"]))(x, y)) == x @ y).all()
    print("jax kernel works")
print("installed package works")
"""


def project_version() -> str:
    text = (REPO / "CMakeLists.txt").read_text()
    return re.search(r"project\(accel VERSION ([0-9.]+)", text).group(1)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    if not list((BUILD / "python" / "accel").glob("_core*.so")):
        pytest.skip("accel._core is not built")
    pytest.importorskip("scikit_build_core", reason="scikit-build-core is not installed "
                        "(python/requirements.txt)")
    pytest.importorskip("nanobind")
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
         "--disable-pip-version-check", "-C", f"build-dir={BUILD}", "-w", str(out),
         str(PYTHON_DIR)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    wheels = list(out.glob("accel-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_the_wheel_holds_the_package(wheel):
    assert wheel.name.startswith(f"accel-{project_version()}-")
    names = set(zipfile.ZipFile(wheel).namelist())
    for tool in ("accel-opt", "accel-compile", "accel-run", "accel-sim", "accel-launch"):
        assert f"accel/bin/{tool}" in names
    assert any(re.fullmatch(r"accel/_core\..*\.so", n) for n in names), names
    assert "accel/_version.py" in names and "accel/aot.py" in names
    jax_built = (BUILD / "python" / "accel" / "libaccel_jax_ffi.so").is_file()
    assert ("accel/libaccel_jax_ffi.so" in names) == jax_built
    assert not [n for n in names if "__pycache__" in n or n.startswith("tests/")]


def test_installed_in_a_fresh_environment(wheel, tmp_path):
    venv = tmp_path / "venv"
    # The environment sees the system's numpy, ml_dtypes and jax (no
    # download here); accel comes only from the wheel.
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                   check=True)
    python = venv / "bin" / "python"
    proc = subprocess.run([str(python), "-m", "pip", "install", "--no-deps",
                           "--disable-pip-version-check", "--quiet", str(wheel)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "ACCEL_BUILD_DIR", "ACCEL_OPT", "ACCEL_COMPILE",
                        "ACCEL_SIM", "ACCEL_RUN")}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if not (Path(p) / "accel-opt").exists())
    prefix = subprocess.run([str(python), "-c", "import sys; print(sys.prefix)"],
                            capture_output=True, text=True, env=env, check=True).stdout.strip()
    script = f"PREFIX = {prefix!r}\nOUT = {str(tmp_path / 'out')!r}\n" + SCRIPT
    proc = subprocess.run([str(python), "-c", script], cwd=tmp_path, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "installed package works" in proc.stdout
    version = project_version()
    assert f"version {version} accel {version}+" in proc.stdout, proc.stdout
    # The package's own tests, on the installed copy (conftest.py leaves the
    # source tree off sys.path when ACCEL_TEST_INSTALLED is set), but for
    # the two that spend half the time in numerics the source-tree run
    # already checked (the bf16 Llama block, 2^31-element offsets).
    proc = subprocess.run(
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", str(PYTHON_DIR / "tests"),
         f"--ignore={PYTHON_DIR / 'tests' / 'test_install.py'}",
         "-k", "not test_llama_block_in_bf16 and not test_offsets_past_2_31_elements"],
        cwd=tmp_path, env=dict(env, ACCEL_TEST_INSTALLED="1"), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-5000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout and " failed" not in proc.stdout
