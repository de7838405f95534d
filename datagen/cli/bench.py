"""``python -m datagen distractors-bench``: rankers' distractors against ReCAM's real ones (thin CLI)."""

import json
from pathlib import Path

import click
from tqdm import tqdm

from datagen.quality.distractor_bench import (
    POOL_TOP,
    cached,
    evaluate,
    pooled,
    remembered,
    vocabulary,
    wordfreq_ranker,
)
from lexicon import resources
from lexicon.files import file_sha256
from recam.records import read_questions

READER_ROWS = ("ga", "att", "att-gloss")
ROWS = ("wordfreq", *READER_ROWS, "readers", "lm", "both")


@click.command("distractors-bench")
@click.option("--input", "input_path", required=True, type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--rankers",
    help=f"Comma-separated rows of {', '.join(ROWS)} (default: wordfreq,lm, and every reader row with "
    "--reader-train).",
)
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    help="Only the first N questions (the vocabulary stays the file's).",
)
@click.option(
    "--reader-train",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False),
    help="Labelled ReCAM file the readers train on (repeatable; never the input nor a test file).",
)
@click.option("--epochs", type=click.IntRange(min=1), help="Reader training epochs (default 8, the paper's).")
@click.option("--hidden", type=click.IntRange(min=1), help="Reader Bi-GRU hidden size (default 150).")
@click.option("--hops", type=click.IntRange(min=1), help="GA Reader hops (default 3).")
@click.option("--batch-size", type=click.IntRange(min=1), help="Reader batch size (default 32).")
@click.option("--lm-model", help="Causal LM for the LM ranker (default LM_MODEL or SmolLM2-135M).")
@click.option("--threads", type=click.IntRange(min=1), help="Torch CPU threads (default: the machine's).")
@click.option("--device", help="Torch device (default: CUDA when present, else cpu).")
@click.option(
    "--work-dir",
    type=click.Path(file_okay=False),
    help="Trained readers and the LM's rankings, reused on a rerun (default MODELS_DIR/distractor-bench).",
)
@click.option("--output", type=click.Path(dir_okay=False), help="Write the rows as JSON here too.")
def distractors_bench(
    input_path, rankers, limit, reader_train, epochs, hidden, hops, batch_size, lm_model, threads, device,
    work_dir, output,
):  # fmt: skip
    """P@1, F1@3, MRR, NDCG@10 of each ranker's distractors against the file's four real distractors."""
    try:
        questions = read_questions(input_path, require_labels=True)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    vocab = vocabulary(questions)
    articles = [q.article for q in questions]
    questions = questions[:limit] if limit else questions
    default = list(ROWS) if reader_train else ["wordfreq", "lm"]
    names = [r.strip() for r in rankers.split(",") if r.strip()] if rankers else default
    unknown = [n for n in names if n not in ROWS]
    if unknown:
        raise click.BadParameter(f"unknown ranker {unknown[0]!r}: {', '.join(ROWS)}", param_hint="--rankers")
    needs_readers = {"readers", "both", *READER_ROWS} & set(names)
    if needs_readers and not reader_train:
        raise click.UsageError(f"the rows {', '.join(sorted(needs_readers))} need --reader-train FILE")
    if threads:
        import torch

        torch.set_num_threads(threads)
    work = Path(work_dir) if work_dir else resources.models_dir() / "distractor-bench"
    choices = {"wordfreq": wordfreq_ranker}
    info: dict = {}
    if needs_readers:
        settings = {"epochs": epochs, "hidden": hidden, "hops": hops, "batch_size": batch_size}
        choices |= _reader_rankers(
            settings={k: v for k, v in settings.items() if v is not None},
            paths=reader_train,
            questions=questions,
            articles=articles,
            vocab=vocab,
            work=work,
            device=device,
            info=info,
        )
    if {"lm", "both"} & set(names):
        choices["lm"] = _lm_ranker(lm_model=lm_model, threads=threads, device=device, work=work, info=info)
    if "both" in names:
        choices["both"] = pooled(*(choices[r] for r in READER_ROWS), choices["lm"])
    table = {}
    for name in names:
        with tqdm(total=len(questions), desc=name) as bar:
            table[name] = evaluate(
                questions=questions, ranker=choices[name], vocab=vocab, progress=bar.update
            )
        click.echo(f"{name}: " + ", ".join(f"{k} {v:.2f}" for k, v in table[name].items()))
    if output:
        data = {
            "input": str(Path(input_path).resolve()),
            "input_sha256": file_sha256(input_path),
            "questions": len(questions),
            "vocabulary": len(vocab),
            "pool_top": POOL_TOP,
            **info,
            "rows": table,
        }
        Path(output).parent.mkdir(parents=True, exist_ok=True)
        Path(output).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def _reader_rankers(*, settings, paths, questions, articles, vocab, work: Path, device, info: dict) -> dict:
    """The three readers' rows and their pool; ``articles``: every article of the input file, which the
    readers never train on."""
    from datagen.quality.bench_readers import precomputed, reader_rankings, trained_reader, training_examples

    try:
        train, counts = training_examples(paths=paths, against=articles)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    if not train:
        raise click.ClickException("no --reader-train question is left after the overlap filter")
    info["reader_train"] = {**counts, "sha256": {str(p): file_sha256(p) for p in paths}, "settings": settings}
    found = {}
    for reader in READER_ROWS:
        try:
            model = trained_reader(
                reader=reader,
                train=train,
                vocab=vocab,
                work_dir=work / "readers",
                settings=settings,
                device=device,
            )
        except ValueError as exc:
            raise click.ClickException(str(exc)) from None
        found[reader] = precomputed(reader_rankings(reader=model, questions=questions, vocab=vocab))
    found["readers"] = pooled(*(found[r] for r in READER_ROWS))
    return found


def _lm_ranker(*, lm_model, threads, device, work: Path, info: dict):
    from baselines import lm_scorer
    from baselines.lm_scorer import load_causal_lm
    from datagen.options import lm_words
    from datagen.options.lm_words import question_ranker

    lm = load_causal_lm(model_path=lm_model, threads=threads, device=device)
    identity = {
        "ranker": "lm", "model": lm.name, "model_sha256": lm.sha256, "scoring": lm_words.VERSION,
        "lm_words_sha256": file_sha256(lm_words.__file__), "lm_scorer_sha256": file_sha256(lm_scorer.__file__),
        "article_tokens": 400, "top": 30, "device": str(lm.device),
    }  # fmt: skip
    info["lm"] = identity
    path = work / "lm-rankings" / f"{lm.sha256[:12]}.jsonl"
    return remembered(cached(question_ranker(lm), path=path, identity=identity))
