"""Run the CLOTH and SCDE builders on an XSum file: load what they need, validate, write, report.

What ``python -m datagen cloth`` and ``python -m datagen scde`` call. Every record is rebuilt from its
JSON by the format's own validator (:func:`recam.formats.cloth.cloth_from_json`,
:func:`recam.formats.scde.scde_from_json`, naming the output file and line) before the file is written,
and the written file is read back by the format's reader. The report (``<output>.report.json``) holds
the settings, the funnel, the sources of each passage (pair id and line, why each option was chosen),
the input's and output's sha256, the LM's name and sha256 and the package versions.
"""

import json
from collections.abc import Callable, Iterable
from pathlib import Path

from datagen.options import cloth as cloth_builder
from datagen.options import scde as scde_builder
from datagen.xsum import read_pairs
from lexicon.files import file_sha256, write_atomic
from recam.formats.cloth import cloth_from_json, read_cloth
from recam.formats.scde import read_scde, scde_from_json


def report_path(output: Path) -> Path:
    return output.with_name(output.name + ".report.json")


def _pairs(input_path: Path, limit: int | None):
    pairs, bad = read_pairs(path=input_path)
    return (pairs[:limit] if limit else pairs), [f"{input_path}:{b.line}: skipped: {b.message}" for b in bad]


def validated_text(records: Iterable, *, output: Path, parse) -> str:
    lines = []
    for line, passage in enumerate(records, start=1):
        record = passage.to_json()
        parse(record, default_id=line - 1, where=f"{output}:{line}")  # ValueError naming file and line
        lines.append(json.dumps(record, ensure_ascii=False))
    return "".join(line + "\n" for line in lines)


def versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version

    found = {}
    for package in ("torch", "transformers", "spacy", "lemminflect", "wordfreq", "numpy", "scipy"):
        try:
            found[package] = version(package)
        except PackageNotFoundError:
            continue
    return found


def _write(*, output: Path, text: str, reader, report: dict) -> dict:
    write_atomic(path=output, text=text)
    written = reader(output, require_answers=True)
    report = {**report, "written": len(written), "output": str(output), "output_sha256": file_sha256(output)}
    write_atomic(path=report_path(output), text=json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    return report


def run_cloth(
    *,
    input_path: Path,
    output: Path,
    settings: cloth_builder.ClothSettings,
    lm_model: str | None = None,
    device: str | None = None,
    threads: int | None = None,
    limit: int | None = None,
    progress: Callable[[Iterable], Iterable] = lambda items: items,
    lm=None,
    scale=None,
) -> dict:
    """Build, validate and write CLOTH passages; return the report (also written beside the output)."""
    from datagen.nlp import load_nlp
    from lexicon.resources import wordnet

    pairs, bad = _pairs(input_path, limit)
    if lm is None:
        from baselines.lm_loading import load_causal_lm

        lm = load_causal_lm(model_path=lm_model, device=device, threads=threads)
    if scale is None:
        from datagen.targets.imperceptibility import load_imperceptibility

        scorer = load_imperceptibility()
        scale, scale_name = scorer.score, scorer.name
    else:
        scale_name = getattr(scale, "__name__", "given")
    passages, sources, funnel = cloth_builder.build_cloth(
        pairs=pairs, nlp=load_nlp(), wordnet=wordnet(), scale=scale,
        score=cloth_builder.lm_blank_scorer(lm, settings=settings), settings=settings, progress=progress,
    )  # fmt: skip
    text = validated_text(passages, output=output, parse=cloth_from_json)
    report = {
        "format": "cloth", "builder": cloth_builder.VERSION, "settings": settings.to_json(),
        "input": str(input_path), "input_sha256": file_sha256(input_path), "pairs": len(pairs),
        "bad_lines": bad, "imperceptibility": scale_name, "lm": {"name": lm.name, "sha256": lm.sha256},
        "funnel": {"passages_dropped": dict(funnel.drops), "blanks_tried": dict(funnel.blanks)},
        "blanks": sum(p.blanks for p in passages), "versions": versions(), "sources": sources,
    }  # fmt: skip
    return _write(output=output, text=text, reader=read_cloth, report=report)


def run_scde(
    *,
    input_path: Path,
    output: Path,
    settings: scde_builder.ScdeSettings,
    lm_model: str | None = None,
    device: str | None = None,
    threads: int | None = None,
    limit: int | None = None,
    progress: Callable[[Iterable], Iterable] = lambda items: items,
    lm=None,
) -> dict:
    """Build, validate and write SCDE passages; return the report (also written beside the output)."""
    from datagen.nlp import load_nlp

    pairs, bad = _pairs(input_path, limit)
    if lm is None:
        from baselines.lm_loading import load_causal_lm

        lm = load_causal_lm(model_path=lm_model, device=device, threads=threads)
    passages, sources, funnel = scde_builder.build_scde(
        pairs=pairs, nlp=load_nlp(), score=scde_builder.lm_pair_scorer(lm, settings=settings),
        settings=settings, progress=progress,
    )  # fmt: skip
    text = validated_text(passages, output=output, parse=scde_from_json)
    report = {
        "format": "scde", "builder": scde_builder.VERSION, "settings": settings.to_json(),
        "input": str(input_path), "input_sha256": file_sha256(input_path), "pairs": len(pairs),
        "bad_lines": bad, "lm": {"name": lm.name, "sha256": lm.sha256},
        "funnel": {"passages_dropped": dict(funnel.drops), "draws_scored": funnel.draws_scored,
                   "draws_fitting_no_blank": funnel.draws_kept},
        "versions": versions(), "sources": sources,
    }  # fmt: skip
    return _write(output=output, text=text, reader=read_scde, report=report)
