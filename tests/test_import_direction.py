"""The house has one staircase: no module imports a module of a higher layer (docs/reference/architecture.md).

Every direct import between the project's own packages, found by grimp (module-level and function-local
imports alike), must point down or sideways within one package. The layers, bottom to top:

    recam < lexicon < baselines, client < datagen < platform domain apps (accounts < competitions < teams
    < submissions < leaderboards < validation < api < onboarding < console) < platform web modules (views, urls, admin, forms, templatetags,
    management commands; in the apps' order) < tasks < config (the composition root) < bench

Known exceptions are listed in EXCEPTIONS with the reason; a new back arrow fails this test.

Inside datagen the same rule holds between its sub-packages, which follow the paper's pipeline, bottom
to top: the ground floor (``datagen`` itself, ``nlp``, ``xsum``, ``overlap``, ``moved``) < ``targets``
(§3.2-3.4) < ``options`` (§3.5) < ``quality`` (reports, fidelity, benchmarks) < ``cli`` < ``__main__``;
and no module of datagen is in an import circle.
"""

import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ["recam", "lexicon", "baselines", "client", "datagen", "tasks", "bench"]
APPS = ["accounts", "competitions", "teams", "submissions", "leaderboards", "validation", "api"]
APPS += ["onboarding", "console", "config"]
RANK = {"recam": 0, "lexicon": 1, "baselines": 2, "client": 2, "datagen": 3}
RANK |= {app: 10 + i for i, app in enumerate(APPS[:-1])}  # the domain modules of the platform apps
WEB, TASKS, CONFIG, BENCH = 30, 40, 50, 60
RANK |= {"tasks": TASKS, "config": CONFIG, "bench": BENCH}
WEB_MODULES = ("views", "urls", "admin", "forms", "templatetags", "management")


def is_web_module(name: str) -> bool:
    return name in WEB_MODULES or name.endswith(("_views", "_forms")) or name.startswith(("views_", "forms_"))


# (importer, imported): why it stays for now. Each is a back arrow left to a later step.
EXCEPTIONS: dict[tuple[str, str], str] = {}


def rank(module: str) -> int:
    package, *rest = module.split(".")
    if package in APPS[:-1] and rest and is_web_module(rest[0]):
        return WEB + APPS.index(package)  # the web modules, in the apps' order among themselves
    return RANK[package]


def build_graph() -> grimp.ImportGraph:
    sys.path[:0] = [str(ROOT), str(ROOT / "platform")]
    try:
        return grimp.build_graph(*PACKAGES, *APPS, cache_dir=None)
    finally:
        del sys.path[:2]


def back_arrows() -> list[str]:
    graph = build_graph()
    found = []
    for imp in graph.find_matching_direct_imports(import_expression="** -> **"):
        importer, imported = imp["importer"], imp["imported"]
        same_package = importer.split(".")[0] == imported.split(".")[0]
        if same_package and rank(importer) >= rank(imported):
            continue  # inside one package (a web module may use its app's domain modules, not the reverse)
        if rank(importer) > rank(imported) or (importer, imported) in EXCEPTIONS:
            continue
        if rank(importer) == rank(imported) and not same_package:
            found.append(f"{importer} -> {imported} (two packages of one layer must not import each other)")
            continue
        lines = [d["line_number"] for d in graph.get_import_details(importer=importer, imported=imported)]
        found.append(f"{importer} (line {', '.join(map(str, lines))}) -> {imported}")
    return sorted(found)


def test_no_module_imports_a_higher_layer():
    assert back_arrows() == []


def test_every_listed_exception_still_exists():
    """An exception that was fixed is removed from the list, so the list stays the truth."""
    graph = build_graph()
    for importer, imported in EXCEPTIONS:
        assert graph.direct_import_exists(importer=importer, imported=imported), (importer, imported)


def test_a_back_arrow_is_caught():
    """The check itself can fail: a lower layer importing a higher one ranks below it."""
    assert (
        rank("recam.submission")
        < rank("lexicon.files")
        < rank("datagen.targets.pipeline")
        < rank("tasks.app")
    )
    assert rank("competitions.services") < rank("submissions.services") < rank("leaderboards.services")
    assert rank("leaderboards.services") < rank("competitions.admin") < rank("tasks.scoring")


DATAGEN_LAYERS = ["targets", "options", "quality", "cli", "__main__"]  # above the ground floor (rank 0)


def datagen_rank(module: str) -> int:
    """0 for datagen's ground floor, then one rank per sub-package in the pipeline's order."""
    parts = module.split(".")
    return DATAGEN_LAYERS.index(parts[1]) + 1 if len(parts) > 1 and parts[1] in DATAGEN_LAYERS else 0


def datagen_imports(graph: grimp.ImportGraph) -> list[tuple[str, str]]:
    found = graph.find_matching_direct_imports(import_expression="datagen.** -> datagen.**")
    found += graph.find_matching_direct_imports(import_expression="datagen -> datagen.**")
    return sorted({(imp["importer"], imp["imported"]) for imp in found})


def test_datagen_sub_packages_import_downwards():
    graph = build_graph()
    arrows = datagen_imports(graph)
    assert len(arrows) > 50  # the pattern matched datagen's own imports
    back = [f"{a} -> {b}" for a, b in arrows if datagen_rank(a) < datagen_rank(b)]
    assert back == []


def test_datagen_has_no_import_circle():
    graph = build_graph()
    circles = [
        f"{a} -> {b} -> ... -> {a}"
        for a, b in datagen_imports(graph)
        if graph.chain_exists(importer=b, imported=a)
    ]
    assert circles == []


def test_datagen_layers_are_ordered():
    """The check can fail: a ground-floor module ranks below targets, which ranks below the commands."""
    assert datagen_rank("datagen.nlp") == datagen_rank("datagen.xsum") == datagen_rank("datagen") == 0
    assert (
        datagen_rank("datagen.nlp")
        < datagen_rank("datagen.targets.pipeline")
        < datagen_rank("datagen.options.gate")
    )
    assert (
        datagen_rank("datagen.options.gate")
        < datagen_rank("datagen.quality.report")
        < datagen_rank("datagen.cli.options")
    )
