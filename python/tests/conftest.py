"""Makes `import accel` work under plain pytest (the source tree first on
sys.path, unless ACCEL_TEST_INSTALLED is set: then the tests run on the
installed package, as test_install.py does) and provides the driver and
extension fixtures."""

import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

PYTHON_DIR = Path(__file__).resolve().parents[1]
if not os.environ.get("ACCEL_TEST_INSTALLED") and str(PYTHON_DIR) not in sys.path:
    sys.path.insert(0, str(PYTHON_DIR))

from accel import aot, tools  # noqa: E402


@pytest.fixture(scope="session")
def accel_opt() -> str:
    """The accel-opt path; skips the test when the driver is not built."""
    try:
        return tools.find_accel_opt()
    except FileNotFoundError as err:
        pytest.skip(str(err))


@pytest.fixture(scope="session")
def accel_core() -> ModuleType:
    """`accel.core`; skips the test when the accel._core extension is not built
    (one that is there but fails to load is an error, not a skip)."""
    try:
        from accel import core
    except ModuleNotFoundError as err:
        if err.name != "accel._core":
            raise
        pytest.skip(f"needs the accel._core extension: {err}")
    return core


@pytest.fixture(scope="session")
def accel_compile() -> str:
    """The accel-compile path; skips the test when the driver is not built."""
    try:
        return aot.find_accel_compile()
    except FileNotFoundError as err:
        pytest.skip(str(err))
