"""The flat module paths of earlier releases (``datagen.pipeline``, ``python -m datagen.fidelity``) keep working.

Each old name is an alias of the module's new home in a sub-package: ``import datagen.pipeline`` gives
the very module object ``datagen.targets.pipeline`` (one module, one state, one place to patch), and
``python -m datagen.fidelity`` runs ``datagen/quality/fidelity.py``. ``datagen.options`` and
``datagen.quality`` were modules and are now packages that re-export those modules' names. The
command-line modules (``datagen.cli_*``) are not aliased: ``python -m datagen`` is their interface.
"""

import importlib
import importlib.abc
import importlib.util
import sys

MOVED = {
    "datagen.abstractness": "datagen.targets.abstractness",
    "datagen.abstractness_model": "datagen.targets.abstractness_model",
    "datagen.bench_readers": "datagen.quality.bench_readers",
    "datagen.calibration": "datagen.quality.calibration",
    "datagen.contextual": "datagen.targets.contextual",
    "datagen.distractor_bench": "datagen.quality.distractor_bench",
    "datagen.encoder": "datagen.targets.encoder",
    "datagen.fidelity": "datagen.quality.fidelity",
    "datagen.fidelity_losses": "datagen.quality.fidelity_losses",
    "datagen.fidelity_tables": "datagen.quality.fidelity_tables",
    "datagen.filters": "datagen.targets.filters",
    "datagen.gate": "datagen.options.gate",
    "datagen.imperceptibility": "datagen.targets.imperceptibility",
    "datagen.inflection": "datagen.options.inflection",
    "datagen.lesk": "datagen.targets.lesk",
    "datagen.lm_words": "datagen.options.lm_words",
    "datagen.nonspecificity": "datagen.targets.nonspecificity",
    "datagen.options_finish": "datagen.options.finish",
    "datagen.options_gate": "datagen.options.gated",
    "datagen.pipeline": "datagen.targets.pipeline",
    "datagen.pipeline_config": "datagen.targets.config",
    "datagen.prior": "datagen.options.prior",
    "datagen.quality_run": "datagen.quality.run",
    "datagen.retrieval": "datagen.options.retrieval",
    "datagen.retrieval_metrics": "datagen.options.retrieval_metrics",
    "datagen.shards": "datagen.targets.shards",
    "datagen.signature_lesk": "datagen.targets.signature_lesk",
    "datagen.stats": "datagen.options.stats",
    "datagen.wsd": "datagen.targets.wsd",
}


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old name (only when no real module has it) and loads it as the new module itself."""

    def __init__(self) -> None:
        self._specs: dict[str, object] = {}

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in MOVED:
            return None
        origin = importlib.util.find_spec(MOVED[fullname]).origin
        return importlib.util.spec_from_loader(fullname, self, origin=origin)

    def create_module(self, spec):
        module = importlib.import_module(MOVED[spec.name])
        self._specs[spec.name] = module.__spec__  # the import system overwrites it; exec_module restores it
        return module

    def exec_module(self, module) -> None:
        module.__spec__ = self._specs.pop(module.__spec__.name)

    def get_code(self, fullname):
        """For ``python -m OLD_NAME`` (runpy asks the loader for the code to run as ``__main__``)."""
        new = MOVED[fullname]
        return importlib.util.find_spec(new).loader.get_code(new)


def install() -> None:
    """Add the alias finder once, after the real finders (a real module always wins)."""
    if not any(isinstance(finder, _Alias) for finder in sys.meta_path):
        sys.meta_path.append(_Alias())
