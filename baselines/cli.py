"""``python -m baselines``: train a baseline, predict a submission file, score predictions, bundle a zip."""

import json
import os
from pathlib import Path

import click

from recam.records import Question, dedupe_against, read_questions

READER_CHOICES = ("ga", "att", "att-gloss", "encoder", "encoder-mlm", "lm")


def _read(paths: tuple[Path, ...], *, labels: bool) -> list[Question]:
    questions: list[Question] = []
    for path in paths:
        try:
            questions += read_questions(path, require_labels=labels)
        except ValueError as exc:
            raise click.ClickException(str(exc)) from None
    return questions


def _threads(count: int) -> None:
    import torch

    torch.set_num_threads(max(1, count))


def adaptation_texts(paths: tuple[Path, ...], *, exclude: set[str]) -> list[str]:
    """Distinct texts of jsonl files (``document`` or ``article``), minus ``exclude``, in file order."""
    texts: list[str] = []
    seen = set(exclude)
    for path in paths:
        with path.open(encoding="utf-8") as lines:
            for number, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise click.ClickException(f"{path}:{number}: not JSON ({exc.msg})") from None
                text = record.get("document") or record.get("article") if isinstance(record, dict) else None
                if not isinstance(text, str) or not text.strip():
                    raise click.ClickException(f"{path}:{number}: no 'document' or 'article' text")
                if text not in seen:
                    seen.add(text)
                    texts.append(text)
    return texts


@click.group()
def main() -> None:
    """ReCAM baselines: the paper's readers (ga, att, att-gloss) and a pretrained-encoder baseline."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")


@main.command()
@click.option("--reader", type=click.Choice(READER_CHOICES), required=True)
@click.option(
    "--train",
    "train_files",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    multiple=True,
    help="labelled ReCAM jsonl (repeat the option for several files); not with --zero-shot",
)
@click.option(
    "--dev",
    "dev_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="labelled jsonl, reported per epoch (never used for selection)",
)
@click.option(
    "--exclude",
    "exclude_files",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    multiple=True,
    help="drop training questions that occur in these files (e.g. the test sets)",
)
@click.option("--output", type=click.Path(file_okay=False, path_type=Path), required=True)
@click.option("--epochs", type=float, default=None, help="default: 8 for readers, 1 for the encoder")
@click.option("--seed", type=int, default=13)
@click.option("--hidden", type=int, default=150)
@click.option("--batch-size", type=int, default=None)
@click.option("--lr", type=float, default=None, help="default: 1e-3 for readers, 1e-4 for the encoder")
@click.option(
    "--max-length", type=int, default=None, help="passage tokens (readers, 400) / word pieces (encoder, 96)"
)
@click.option(
    "--time-budget",
    "time_budget_s",
    type=float,
    default=None,
    help="seconds of training at most (default: none for readers, 1500 for the encoder)",
)
@click.option(
    "--center-query/--no-center-query",
    default=True,
    show_default=True,
    help="readers: remove the context-independent part of the scoring query (a learnt answer-word prior)",
)
@click.option(
    "--vectors",
    "vectors_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="GloVe text or .npy (default GLOVE_PATH / packaged 6B 50d)",
)
@click.option("--encoder-model", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None)
@click.option("--device", default=None, help="default: cuda when available, else cpu")
@click.option("--threads", type=int, default=1, help="CPU threads for torch (more is slower on a shared CPU)")
@click.option("--zero-shot", is_flag=True, help="lm: write a zero-shot model dir (nothing trained)")
@click.option(
    "--lm-model", default=None, help="lm: a GGUF file or HF causal-LM dir (default $LM_MODEL / SmolLM2)"
)
@click.option(
    "--article-tokens", type=int, default=None, help="lm: article window (400 zero-shot, 128 fine-tuning)"
)
@click.option("--reduction", type=click.Choice(["sum", "mean"]), default="sum", show_default=True)
@click.option("--no-article", is_flag=True, help="lm: score the filled question without the article")
@click.option("--quiet", is_flag=True)
def train(
    reader,
    train_files,
    dev_file,
    exclude_files,
    output,
    epochs,
    seed,
    hidden,
    batch_size,
    lr,
    max_length,
    time_budget_s,
    center_query,
    vectors_path,
    encoder_model,
    device,
    threads,
    zero_shot,
    lm_model,
    article_tokens,
    reduction,
    no_article,
    quiet,
):
    """Train one baseline on --train files; save it to --output."""
    _threads(threads)
    if reader == "lm":
        from baselines.lm_cli import train_lm

        train_lm(
            zero_shot=zero_shot, train_files=train_files, dev_file=dev_file, exclude_files=exclude_files,
            output=output, lm_model=lm_model, article_tokens=article_tokens, reduction=reduction,
            with_article=not no_article, epochs=epochs, batch_size=batch_size, lr=lr,
            time_budget_s=time_budget_s, seed=seed, device=device, quiet=quiet,
        )  # fmt: skip
        return
    if not train_files:
        raise click.ClickException("give --train FILE (at least one)")
    questions = _read(train_files, labels=True)
    if exclude_files:
        before = len(questions)
        questions = dedupe_against(questions, exclude=_read(exclude_files, labels=False))
        click.echo(f"training on {len(questions)} of {before} questions after de-duplication", err=True)
    dev = _read((dev_file,), labels=True) if dev_file else None
    if reader == "encoder-mlm":
        from baselines.encoder_mlm import train_encoder_mlm

        try:
            metrics = train_encoder_mlm(
                train=questions, dev=dev, output_dir=output, model_dir=encoder_model,
                epochs=epochs if epochs is not None else 3.0, max_length=max_length or 256,
                batch_size=batch_size or 8, lr=lr or 3e-5,
                time_budget_s=time_budget_s if time_budget_s is not None else 900.0, seed=seed,
                device=device, progress=not quiet,
            )  # fmt: skip
        except ValueError as exc:
            raise click.ClickException(str(exc)) from None
        click.echo(json.dumps({k: v for k, v in metrics.items() if k != "losses"}, indent=1))
        return
    if reader == "encoder":
        from baselines.encoder import train_encoder

        # CPU defaults measured to complete on a shared 2-core machine (docs/encoder-baseline.md)
        try:
            metrics = train_encoder(
                train=questions, dev=dev, output_dir=output, model_dir=encoder_model,
                epochs=epochs if epochs is not None else 1.0, max_length=max_length or 96,
                batch_size=batch_size or 8, lr=lr or 1e-4,
                time_budget_s=time_budget_s if time_budget_s is not None else 1500.0, seed=seed,
                device=device, progress=not quiet,
            )  # fmt: skip
        except ValueError as exc:
            raise click.ClickException(str(exc)) from None
        click.echo(json.dumps(metrics, indent=1))
        return
    from baselines.data import from_question
    from baselines.training import ReaderConfig, train_reader
    from datagen.vectors import load_vectors

    try:
        config = ReaderConfig(
            reader=reader, hidden=hidden, epochs=int(epochs or 8), batch_size=batch_size or 32, lr=lr or 1e-3,
            max_passage_tokens=max_length or 400, time_budget_s=time_budget_s, seed=seed,
            center_query=center_query,
        )  # fmt: skip
        trained = train_reader(
            config=config, train=[from_question(q) for q in questions], vectors=load_vectors(vectors_path),
            dev=[from_question(q) for q in dev] if dev else None, device=device,
            checkpoint_dir=output / "checkpoints", progress=not quiet, vectors_path=vectors_path,
        )  # fmt: skip
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    trained.info["train_files"] = [str(p) for p in train_files]
    trained.save(output)
    click.echo(json.dumps({k: trained.info[k] for k in ("best_epoch", "history", "train_seconds")}, indent=1))


@main.command()
@click.option(
    "--text",
    "text_files",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    multiple=True,
    required=True,
    help="unlabelled jsonl: XSum 'document' or ReCAM 'article' per line (repeat for several files)",
)
@click.option(
    "--exclude",
    "exclude_files",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    multiple=True,
    help="ReCAM files whose articles must not be used (the dev and test sets)",
)
@click.option("--output", type=click.Path(file_okay=False, path_type=Path), required=True)
@click.option("--seconds", type=float, default=1500.0, show_default=True, help="length of the MLM stage")
@click.option("--lr", type=float, default=1e-4, show_default=True)
@click.option("--seed", type=int, default=13)
@click.option("--encoder-model", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None)
@click.option("--device", default=None)
@click.option("--threads", type=int, default=1)
@click.option("--quiet", is_flag=True)
def adapt(text_files, exclude_files, output, seconds, lr, seed, encoder_model, device, threads, quiet):
    """Masked-language-model adaptation of the encoder (stage 1 of --reader encoder-mlm)."""
    _threads(threads)
    from baselines.encoder_mlm import adapt_encoder

    texts = adaptation_texts(text_files, exclude={q.article for q in _read(exclude_files, labels=False)})
    click.echo(f"adapting on {len(texts)} distinct texts from {len(text_files)} file(s)", err=True)
    try:
        metrics = adapt_encoder(
            texts=texts, output_dir=output, seconds=seconds, model_dir=encoder_model, lr=lr, seed=seed,
            device=device, progress=not quiet,
        )  # fmt: skip
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(json.dumps({k: v for k, v in metrics.items() if k != "losses"}, indent=1))


@main.command()
@click.option("--model", type=click.Path(exists=True, file_okay=False, path_type=Path), required=True)
@click.option(
    "--train",
    "train_files",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    multiple=True,
    required=True,
    help="the model's training files (the mean query is taken over them)",
)
@click.option(
    "--exclude", "exclude_files", type=click.Path(exists=True, dir_okay=False, path_type=Path), multiple=True
)
@click.option(
    "--input", "input_file", type=click.Path(exists=True, dir_okay=False, path_type=Path), required=True
)
@click.option("--threads", type=int, default=1)
def prior(model, train_files, exclude_files, input_file, threads):
    """Diagnose a reader's learnt answer-word prior (the mean scoring query); see docs/baselines.md."""
    _threads(threads)
    from baselines.data import from_question
    from baselines.training import TrainedReader, query_prior

    questions = _read(train_files, labels=True)
    if exclude_files:
        questions = dedupe_against(questions, exclude=_read(exclude_files, labels=False))
    try:
        reader = TrainedReader.load(model)
        result = query_prior(
            reader=reader,
            fit_on=[from_question(q) for q in questions],
            evaluate_on=[from_question(q) for q in _read((input_file,), labels=True)],
        )
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(json.dumps({"model": str(model), "center_query": reader.config.center_query, **result}))


def option_probabilities(
    *, model: Path, questions: list[Question], device: str | None = None, last_epoch: bool = False
):
    """Softmax over each question's five options from a saved baseline. Shape: (num_questions, 5)."""
    from baselines.encoder_mlm import encoder_mlm_probabilities, is_encoder_mlm
    from baselines.lm_reader import is_lm_reader, lm_probabilities

    if is_lm_reader(model):
        return lm_probabilities(model_dir=model, questions=questions, device=device)
    if is_encoder_mlm(model):
        return encoder_mlm_probabilities(model_dir=model, questions=questions, device=device)
    if (model / "meta.json").is_file():
        from baselines.data import from_question
        from baselines.training import TrainedReader

        reader = TrainedReader.load(model, device=device, last_epoch=last_epoch)
        return reader.probabilities(examples=[from_question(q) for q in questions])
    from baselines.encoder import encoder_probabilities

    return encoder_probabilities(model_dir=model, questions=questions, device=device)


def ensemble_predictions(
    *,
    models: tuple[Path, ...],
    questions: list[Question],
    device: str | None = None,
    last_epoch: bool = False,
) -> list[int]:
    """The option with the highest mean probability over ``models`` (one model: its own arg-max)."""
    total = None
    for model in models:
        probabilities = option_probabilities(
            model=model, questions=questions, device=device, last_epoch=last_epoch
        )
        total = probabilities if total is None else total + probabilities
    return total.argmax(dim=-1).tolist()


@main.command()
@click.option(
    "--model",
    "models",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    required=True,
    multiple=True,
    help="a saved baseline; repeat it for an ensemble (mean of the option probabilities)",
)
@click.option(
    "--input", "input_file", type=click.Path(exists=True, dir_okay=False, path_type=Path), required=True
)
@click.option(
    "--output", type=click.Path(dir_okay=False, path_type=Path), required=True, help="e.g. subtask1.csv"
)
@click.option("--device", default=None)
@click.option("--threads", type=int, default=1)
@click.option("--last-epoch", is_flag=True, help="readers: the final epoch's weights, not the selected epoch")
def predict(models, input_file, output, device, threads, last_epoch):
    """Write the official ``id,label`` file (no header) for every question of --input."""
    _threads(threads)
    from recam.submission import write_predictions

    questions = _read((input_file,), labels=False)
    try:
        labels = ensemble_predictions(
            models=models, questions=questions, device=device, last_epoch=last_epoch
        )
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    output.parent.mkdir(parents=True, exist_ok=True)
    write_predictions(output, {q.id: label for q, label in zip(questions, labels, strict=True)})
    click.echo(f"wrote {len(questions)} predictions to {output}", err=True)


@main.command()
@click.option("--predictions", type=click.Path(exists=True, dir_okay=False, path_type=Path), required=True)
@click.option("--gold", type=click.Path(exists=True, dir_okay=False, path_type=Path), required=True)
def score(predictions, gold):
    """Accuracy of an ``id,label`` file against a labelled jsonl, with the one scorer (recam.metrics)."""
    from recam.metrics import SCORER_VERSION, score_predictions
    from recam.submission import SubmissionError, parse_submission

    questions = _read((gold,), labels=True)
    data = predictions.read_bytes()
    name = "subtask1.csv"  # the parser only needs a valid name; the subtask number is irrelevant here
    try:
        parsed = parse_submission(data=data, filename=name, expected_ids={1: {q.id for q in questions}})
    except SubmissionError as exc:
        raise click.ClickException(f"{predictions}:\n{exc}") from None
    result = score_predictions(
        predictions=parsed.files[0].predictions, gold={q.id: q.label for q in questions}
    )
    click.echo(
        json.dumps(
            {
                "accuracy": result.accuracy,
                "correct": result.correct,
                "total": result.total,
                "scorer": SCORER_VERSION,
            }
        )
    )


@main.command()
@click.option("--subtask1", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None)
@click.option("--subtask2", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None)
@click.option("--output", type=click.Path(dir_okay=False, path_type=Path), required=True)
def bundle(subtask1, subtask2, output):
    """Zip prediction files into an official submission (subtask1.csv / subtask2.csv at the root)."""
    from recam.submission import make_zip

    files = {
        name: path.read_bytes()
        for name, path in (("subtask1.csv", subtask1), ("subtask2.csv", subtask2))
        if path
    }
    if not files:
        raise click.ClickException("give --subtask1 and/or --subtask2")
    output.write_bytes(make_zip(files))
    click.echo(f"wrote {output}", err=True)


NAMES = {
    "ga": "GA Reader",
    "att": "Attentive Reader",
    "att-gloss": "Attentive Reader + gloss",
    "encoder": "MiniLM encoder (multiple choice)",
    "encoder-mlm": "MiniLM encoder (masked word, MLM-adapted)",
    "lm-zs": "SmolLM2-135M-Instruct LM, zero-shot",
    "lm": "SmolLM2-135M-Instruct LM, LoRA fine-tuned",
}


@main.command()
@click.option(
    "--predictions-dir",
    "predictions_dirs",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    required=True,
    multiple=True,
    help="holds <reader>-st<N>/subtask<M>.csv; repeat it (one directory per seed) for mean and spread",
)
@click.option("--dev1", type=click.Path(exists=True, dir_okay=False, path_type=Path), required=True)
@click.option("--dev2", type=click.Path(exists=True, dir_okay=False, path_type=Path), required=True)
@click.option("--output", type=click.Path(dir_okay=False, path_type=Path), required=True)
def report(predictions_dirs, dev1, dev2, output):
    """Dev accuracy table: Subtask 1, Subtask 2 and the cross (Subtask 3) results, with the one scorer.

    With several ``--predictions-dir`` (runs that differ only in their seed) each cell is the mean,
    the sample standard deviation and the range over the runs that have that prediction file.
    """
    from recam.metrics import SCORER_VERSION, score_predictions
    from recam.submission import parse_submission

    gold = {m: {q.id: q.label for q in _read((path,), labels=True)} for m, path in ((1, dev1), (2, dev2))}

    def accuracy(path: Path, subtask: int) -> float:
        parsed = parse_submission(
            data=path.read_bytes(), filename=path.name, expected_ids={subtask: set(gold[subtask])}
        )
        return 100 * score_predictions(predictions=parsed.files[0].predictions, gold=gold[subtask]).accuracy

    def cell(run: str, subtask: int) -> str:
        paths = [d / run / f"subtask{subtask}.csv" for d in predictions_dirs]
        values = [accuracy(path, subtask) for path in paths if path.is_file()]
        return format_cell(values)

    lines = [
        "| baseline | Subtask 1 dev (trained on ST1) | Subtask 2 dev (trained on ST2) | ST1-trained on ST2 dev | ST2-trained on ST1 dev |",
        "|---|---|---|---|---|",
    ]
    for reader, name in NAMES.items():
        cells = [
            cell(f"{reader}-st1", 1),
            cell(f"{reader}-st2", 2),
            cell(f"{reader}-st1", 2),
            cell(f"{reader}-st2", 1),
        ]
        if set(cells) != {"-"}:
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines.append("| paper's GA Reader (trained on the full train sets) | 25.1 | 24.3 | | |")
    runs = (
        ""
        if len(predictions_dirs) == 1
        else (
            f" Each cell: mean ± sample standard deviation [min-max] over {len(predictions_dirs)} runs "
            "that differ only in the seed."
        )
    )
    text = (
        "# Baselines: dev accuracy (%)\n\n"
        + "\n".join(lines)
        + f"\n\nScorer: `{SCORER_VERSION}`; chance is 20.0.{runs}\n"
    )
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text, encoding="utf-8")
    click.echo(text)


def format_cell(values: list[float]) -> str:
    """One accuracy, or mean ± sample sd [min-max] of several; "-" for none.

    >>> format_cell([])
    '-'
    >>> format_cell([25.06])
    '25.1'
    >>> format_cell([22.0, 24.0, 26.0])
    '24.0 ± 2.0 [22.0-26.0]'
    """
    if not values:
        return "-"
    if len(values) == 1:
        return f"{values[0]:.1f}"
    mean = sum(values) / len(values)
    sd = (sum((v - mean) ** 2 for v in values) / (len(values) - 1)) ** 0.5
    return f"{mean:.1f} ± {sd:.1f} [{min(values):.1f}-{max(values):.1f}]"
