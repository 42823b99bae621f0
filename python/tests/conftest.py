"""Makes `import accel` work under plain pytest and provides the driver fixture."""

import sys
from pathlib import Path

import pytest

PYTHON_DIR = Path(__file__).resolve().parents[1]
if str(PYTHON_DIR) not in sys.path:
    sys.path.insert(0, str(PYTHON_DIR))

from accel import tools  # noqa: E402


@pytest.fixture(scope="session")
def accel_opt() -> str:
    """The accel-opt path; skips the test when the driver is not built."""
    try:
        return tools.find_accel_opt()
    except FileNotFoundError as err:
        pytest.skip(str(err))
