"""Run the quality report on a ReCAM file: LM scores (cached, resumable), report JSON and markdown.

This is what ``python -m datagen quality`` and the Celery task ``datagen.quality_report`` call. The LM
is :mod:`baselines.lm_scorer` (SmolLM2-135M-Instruct by default; ``--model``/``LM_MODEL`` for another
causal LM): the log-likelihood of the question with ``@placeholder`` filled by each option, after
the article's first ``article_tokens`` tokens (with article) or alone (options-only).
"""

import hashlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from datagen.quality.report import LM, ScoreFn, build_report, cached_scores, generation_row
from lexicon import resources
from lexicon.files import file_sha256
from recam.records import Question, read_questions


def lm_scorer(
    *,
    model_path: str | None = None,
    device: str | None = None,
    article_tokens: int = 400,
    batch_size: int = 8,
    threads: int | None = None,
) -> tuple[ScoreFn, dict]:
    """A batch score function over the shared LM scorer, and its identity (model and scorer code hashes).

    The identity keys the score cache: another model file or another version of the scorer code
    never reads cached scores of the old one.
    """
    from baselines import lm_scorer as scorer_module
    from baselines.lm_reader import is_lm_reader, load_lm_reader

    adapter = None
    if model_path and is_lm_reader(Path(model_path)):
        # a saved LM reader (``python -m baselines train --reader lm``): fine-tuned adapters merged, and its
        # own article window; the cache key then carries the reader directory's hash
        lm, reader_settings = load_lm_reader(Path(model_path), device=device)
        article_tokens = reader_settings.article_tokens
        adapter = scorer_module.model_sha256(Path(model_path))
    else:
        lm = scorer_module.load_causal_lm(model_path=model_path, device=device, threads=threads)

    def score(questions: Sequence[Question], with_article: bool) -> np.ndarray:
        return scorer_module.option_logprobs(
            lm,
            articles=[q.article for q in questions],
            questions=[q.question for q in questions],
            options=[list(q.options) for q in questions],
            article_tokens=article_tokens,
            reduction="sum",
            with_article=with_article,
            batch_size=batch_size,
        )

    identity = {
        "model": lm.name,
        "model_sha256": lm.sha256,
        "scorer_sha256": file_sha256(Path(scorer_module.__file__)),
        "article_tokens": article_tokens,
        "reduction": "sum",
        **({"reader_dir": str(model_path), "reader_sha256": adapter} if adapter else {}),
    }
    return score, identity


def quality_with_lm(
    *,
    input_path: str | Path,
    output_path: str | Path,
    model_path: str | None = None,
    device: str | None = None,
    article_tokens: int = 400,
    batch_size: int = 8,
    threads: int | None = None,
    cache_dir: str | Path | None = None,
    progress: Callable[[int, int], None] | None = None,
    disto_model: str | Path | None = None,
) -> dict:
    """The report scored by the causal LM (or a saved LM reader directory): the CLI's and the task's path."""
    _require_questions(input_path)  # before the model loads: an empty or bad file fails at once
    score_fn, identity = lm_scorer(
        model_path=model_path,
        device=device,
        article_tokens=article_tokens,
        batch_size=batch_size,
        threads=threads,
    )
    return run_quality(
        input_path=input_path, output_path=output_path, score_fn=score_fn, identity=identity,
        cache_dir=cache_dir, batch_size=4 * batch_size, progress=progress,
        disto=disto_scorer(model_dir=disto_model, device=device) if disto_model else None,
    )  # fmt: skip


def _require_questions(input_path: str | Path) -> list[Question]:
    """The labelled questions of ``input_path``; a file with none is an error that says so."""
    questions = read_questions(input_path, require_labels=True)
    if not questions:
        raise ValueError(f"{input_path}: no questions to report on (the file has no records)")
    return questions


def disto_scorer(*, model_dir: str | Path, device: str | None = None) -> Callable[[Sequence[Question]], dict]:
    """The DISTO model of ``model_dir`` with its encoder (``ENCODER_MODEL``), as a report's ``disto`` input."""
    from datagen.quality.disto import SentenceEncoder, load_model
    from datagen.quality.disto_eval import score_options

    encoder = SentenceEncoder.load(device=device)
    model = load_model(model_dir, encoder=encoder)
    identity = {"dir": str(model_dir), "encoder_sha256": encoder.sha256, "version": model.manifest["version"]}
    identity["training"] = model.manifest["training"]

    def score(questions: Sequence[Question]) -> dict:
        return {"scores": score_options(model=model, encoder=encoder, questions=questions), "model": identity}

    return score


def run_quality(
    *,
    input_path: str | Path,
    output_path: str | Path,
    score_fn: ScoreFn | None = None,
    identity: dict | None = None,
    cache_dir: str | Path | None = None,
    batch_size: int = 16,
    progress: Callable[[int, int], None] | None = None,
    disto: Callable[[Sequence[Question]], dict] | None = None,
) -> dict:
    """Score ``input_path`` (labelled ReCAM jsonl), write ``output_path`` (.json) and a .md beside it.

    ``disto`` (optional, e.g. ``disto_scorer``) adds each option's DISTO score and their mean.

    ``progress(done, total)`` is called after each batch (questions scored twice: with and without
    the article). Bad input raises ValueError naming the file and line.
    """
    input_path, output_path = Path(input_path), Path(output_path)
    questions = _require_questions(input_path)
    if score_fn is None:
        score_fn, identity = lm_scorer()
    identity = identity or {"model": "custom"}
    scorer_id = json.dumps(identity, sort_keys=True)
    cache = Path(cache_dir) if cache_dir else resources.models_dir() / "quality"
    cache_path = cache / f"{hashlib.sha256(scorer_id.encode()).hexdigest()[:12]}.scores.jsonl"
    done = [0]
    total = 2 * len(questions)

    def tick(n: int) -> None:
        done[0] += n
        if progress is not None:
            progress(done[0], total)

    matrices = {}
    for with_article in (True, False):
        matrices[with_article] = cached_scores(
            questions=questions,
            score_fn=score_fn,
            scorer=scorer_id,
            with_article=with_article,
            cache_path=cache_path,
            batch_size=batch_size,
            progress=tick,
        )
    report = build_report(
        questions=questions,
        lm_with=matrices[True],
        lm_without=matrices[False],
        provenance={
            "scorers": {
                LM: {**identity, "score": "log-likelihood of the filled question"},
                "wordfreq": {"score": "log word frequency of the option (wordfreq, English)"},
            },
            "versions": _versions(),
            "input": {
                "path": str(input_path),
                "sha256": file_sha256(input_path),
                "questions": len(questions),
            },
        },
        disto=disto(questions) if disto is not None else None,
    )
    generation = generation_row(input_path.with_name(f"{input_path.stem}.report.json"))
    if generation is not None:
        report["generation"] = generation
    output_path.parent.mkdir(parents=True, exist_ok=True)
    output_path.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    output_path.with_suffix(".md").write_text(markdown(report), encoding="utf-8")
    return report


def _versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version

    found = {}
    for package in ("torch", "transformers", "numpy", "scipy"):
        try:
            found[package] = version(package)
        except PackageNotFoundError:
            continue
    return found


def _generation_lines(generation: dict | None) -> list[str]:
    if not generation:
        return []
    cost = generation.get("cost") or {}
    per = cost.get("cpu_seconds_this_process_per_question")
    return [
        f"| yield of the generating run | {generation['written']} of {generation['candidates']} candidates |",
        *([f"| CPU seconds per written question (that run's process) | {per} |"] if per is not None else []),
    ]


def markdown(report: dict) -> str:
    """A short human-readable page: dataset figures and the flagged questions."""
    oo, eff = report["options_only_accuracy"], report["effective_options"]
    lines = [
        f"# Quality report: {report['input'].get('path', '')}",
        "",
        "| measure | value |",
        "|---|---|",
        f"| questions | {report['n_questions']} |",
        f"| with-article accuracy (LM) | {100 * report['with_article_accuracy']:.1f}% |",
        f"| PMI rule accuracy (LM: with-article minus options-only log-likelihood) | {100 * report['pmi_accuracy']:.1f}% |",
        *(f"| options-only accuracy ({n}) | {100 * v:.1f}% |" for n, v in oo.items()),
        *(f"| effective options ({n}) | {v:.2f} of 5 |" for n, v in eff.items()),
        f"| contextual MI (LM, nats) | {report['contextual_mi']:.3f} |",
        f"| flagged ({report['flagged']['rule']}) | {report['flagged']['count']} |",
        *_disto_rows(report),
        f"| sibling leaks | {report['siblings']['leaks']} |",
        *_generation_lines(report.get("generation")),
        "",
        *[f"- sibling leak: {pair}" for pair in report["siblings"]["pairs"]],
        *(
            [f"Why this yield: {report['generation']['explanation']}", ""]
            if report.get("generation", {}).get("explanation")
            else []
        ),
        "## Flagged questions (first 50)",
        "",
    ]
    for row in [r for r in report["questions"] if r["flagged"]][:50]:
        options = ", ".join(f"**{o}**" if i == row["label"] else o for i, o in enumerate(row["options"]))
        lines.append(f"- {row['id']} ({', '.join(row['flagged_by'])}): {options}")
    return "\n".join(lines) + "\n"


def _disto_rows(report: dict) -> list[str]:
    if "disto" not in report or report["disto"]["mean_distractor_score"] is None:
        return []
    return [f"| mean DISTO score of the distractors | {report['disto']['mean_distractor_score']:.3f} |"]
