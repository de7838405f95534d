"""The flat module paths of earlier releases still import (and run) the modules in their new homes."""

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from datagen import moved

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("old", "new"), sorted(moved.MOVED.items()))
def test_an_old_path_is_the_new_module_itself(old, new):
    assert importlib.import_module(old) is importlib.import_module(new)
    assert importlib.import_module(new).__spec__.name == new  # the alias does not rename the module


def test_every_alias_points_to_a_real_module_and_hides_none():
    for old, new in moved.MOVED.items():
        assert importlib.util.find_spec(new) is not None, new
        assert not (ROOT / (old.replace(".", "/") + ".py")).exists(), old  # a real file would win


def test_old_from_imports_keep_working():
    from datagen.options import check_question
    from datagen.pipeline import Settings
    from datagen.quality import summary_line
    from datagen.shards import run_candidates

    assert check_question.__module__ == "datagen.options.build"
    assert summary_line.__module__ == "datagen.quality.report"
    assert Settings.__module__ == "datagen.targets.config"
    assert run_candidates.__module__ == "datagen.targets.shards"


def test_an_unknown_old_name_still_fails():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("datagen.no_such_module")


def test_python_dash_m_runs_an_old_path():
    out = subprocess.run(
        [sys.executable, "-m", "datagen.fidelity", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "--data-dir" in out.stdout
