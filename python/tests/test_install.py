"""pip install of the package (python/setup.py bundles the built
accel._core), then the installed copy used from elsewhere: the extension
in process, and accel-compile + the CPU loader through PATH."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PYTHON_DIR = Path(__file__).resolve().parents[1]
BUILD = Path(os.environ.get("ACCEL_BUILD_DIR", PYTHON_DIR.parent / "build"))

SCRIPT = """
import numpy as np
import accel
from accel import aot, core, ir
assert accel.__file__.startswith(TARGET), accel.__file__
assert core._load().__file__.startswith(TARGET), 'extension not the installed one'
print(core.version())
f = ir.Function("mm")
a = f.arg((4, 8), "f32")
b = f.arg((8, 2), "f32")
f.ret(f.matmul(a, b))
core.parse(f)
lib = aot.load(aot.compile(f, out_dir=OUT, name="inst"))
x = np.arange(32, dtype=np.float32).reshape(4, 8)
y = np.ones((8, 2), np.float32)
assert (lib["mm"](x, y) == x @ y).all()
print("installed package works")
"""


def test_pip_install_bundles_the_extension(tmp_path):
    if not list((BUILD / "python" / "accel").glob("_core*.so")):
        pytest.skip("accel._core is not built")
    pytest.importorskip("setuptools")
    pytest.importorskip("wheel")
    # From a copy of the sources, so that the build leaves nothing in them.
    src = tmp_path / "src"
    shutil.copytree(PYTHON_DIR, src, ignore=shutil.ignore_patterns(
        "build", "*.egg-info", "__pycache__", "tests"))
    target = tmp_path / "site"
    env = dict(os.environ, ACCEL_BUILD_DIR=str(BUILD))
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                    "--no-build-isolation", "--no-warn-script-location",
                    "--disable-pip-version-check", "--target", str(target), str(src)],
                   check=True, env=env, capture_output=True, text=True)
    assert list((target / "accel").glob("_core*.so")), "the extension was not bundled"
    run_env = {k: v for k, v in os.environ.items()
               if k not in ("PYTHONPATH", "ACCEL_BUILD_DIR", "ACCEL_OPT", "ACCEL_COMPILE")}
    run_env["PYTHONPATH"] = str(target)
    run_env["PATH"] = f"{BUILD / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"
    script = f"TARGET = {str(target)!r}\nOUT = {str(tmp_path / 'out')!r}\n" + SCRIPT
    proc = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=run_env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "installed package works" in proc.stdout
