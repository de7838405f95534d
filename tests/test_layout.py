"""platform/ is Django's source root, not a package: it must never hide the standard library."""

import importlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_stdlib_platform_module_is_not_shadowed():
    platform = importlib.import_module("platform")
    assert callable(platform.system)
    assert platform.system()  # e.g. "Linux"
    assert Path(platform.__file__).parent != ROOT / "platform"


def test_platform_folder_is_not_a_package():
    assert (ROOT / "platform").is_dir()
    assert not (ROOT / "platform" / "__init__.py").exists()
