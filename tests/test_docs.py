"""The documentation holds together: links resolve, pages stay short, no tracker jargon.

The README and every page under docs/ are checked; so are the docs paths that code, templates and
scripts cite (a moved page must take its citations with it).
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 400
# Markdown links and images: [text](target) or ![alt](target "title").
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
# Names of work periods and tracker numbers: a reader without the tracker cannot follow them.
TRACKER = re.compile(r"session[- ]?[0-9]+|#[0-9]{1,3}\b|issue [0-9]+", re.IGNORECASE)
# A docs path cited from code, templates or scripts (docs/... .md or an image).
CITED = re.compile(r"\bdocs/[A-Za-z0-9_./-]+\.(?:md|png)")
CODE_SUFFIXES = {".py", ".html", ".sh", ".txt"}
CODE_DIRS = ("platform", "tasks", "recam", "lexicon", "datagen", "baselines", "bench", "client", "scripts")


def doc_pages(root: Path = ROOT) -> list[Path]:
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def broken_links(page: Path) -> list[str]:
    """Relative link targets in `page` that do not exist, as 'line N: target'."""
    problems = []
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1):
        for target in LINK.findall(line):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                continue  # http:, mailto:, or an anchor on the same page
            path = target.split("#", 1)[0]
            if not (page.parent / path).exists():
                problems.append(f"line {number}: {target}")
    return problems


def tracker_names(page: Path) -> list[str]:
    """Lines of `page` that name a work period or a tracker number, as 'line N: match'."""
    return [
        f"line {number}: {match.group(0)}"
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1)
        for match in TRACKER.finditer(line)
    ]


TOP_FILES = ("pyproject.toml", "Makefile", ".env.example", "requirements.txt")


def cited_docs(root: Path = ROOT) -> list[tuple[Path, str]]:
    cited = []
    for name in TOP_FILES:
        if (root / name).is_file():
            cited += [(root / name, m) for m in CITED.findall((root / name).read_text(encoding="utf-8"))]
    for folder in CODE_DIRS:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix in CODE_SUFFIXES and path.is_file():
                cited += [(path, m) for m in CITED.findall(path.read_text(encoding="utf-8"))]
    return cited


PAGES = doc_pages()


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_point_at_existing_files(page):
    assert broken_links(page) == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_page_is_at_most_400_lines(page):
    lines = len(page.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{page.relative_to(ROOT)} has {lines} lines"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_page_names_no_work_period_or_tracker_number(page):
    assert tracker_names(page) == []


def test_docs_cited_from_code_exist():
    missing = [
        f"{path.relative_to(ROOT)}: {cited}" for path, cited in cited_docs() if not (ROOT / cited).exists()
    ]
    assert missing == []


def test_readme_links_the_map_of_the_docs():
    assert "docs/index.md" in LINK.findall((ROOT / "README.md").read_text(encoding="utf-8"))


def test_checks_catch_what_they_look_for(tmp_path):
    # The names the check refuses are made here, so that this file does not carry them itself.
    period, ticket, issue = " ".join(("session", "12")), "#" + "16", " ".join(("issue", "28"))
    (tmp_path / "docs").mkdir()
    page = tmp_path / "docs" / "page.md"
    page.write_text(
        "See [ok](page.md), [gone](missing.md#part), [web](https://example.org), [here](#top).\n"
        f"Measured in {period} for {ticket}; {issue} asks for more.\n",
        encoding="utf-8",
    )
    assert broken_links(page) == ["line 1: missing.md#part"]
    assert tracker_names(page) == [f"line 2: {period}", f"line 2: {ticket}", f"line 2: {issue}"]
