"""pip install ./python: the pure-Python package plus, when the C++ tree has
been built (scripts/setup.sh), its `accel._core` extension, copied from
`$ACCEL_BUILD_DIR/python/accel/` (default: `<repo>/build/python/accel/`)
into the package. The extension links the system's libMLIR.so/libLLVM.so
(llvm-22), so the wheel is for this machine's Python and LLVM; without a
build the package installs without it (accel.core then looks for it in the
build tree, and raises ModuleNotFoundError when there is none). The
metadata is in pyproject.toml.
"""
import importlib.machinery
import os
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


class BuildPyWithCore(build_py):
    def run(self):
        super().run()
        build = Path(os.environ.get("ACCEL_BUILD_DIR", HERE.parent / "build"))
        target = Path(self.build_lib) / "accel"
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            built = build / "python" / "accel" / ("_core" + suffix)
            if built.is_file():
                target.mkdir(parents=True, exist_ok=True)
                shutil.copy2(built, target / built.name)
                self.announce(f"accel: bundling {built}", level=2)
                break


setup(cmdclass={"build_py": BuildPyWithCore})
