"""``python -m datagen distractors-bench``: rankers' distractors against ReCAM's real ones (thin CLI)."""

import json
from pathlib import Path

import click
from tqdm import tqdm

from datagen.distractor_bench import evaluate, fused, remembered, vocabulary, wordfreq_ranker
from recam.records import read_questions


@click.command("distractors-bench")
@click.option("--input", "input_path", required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--rankers", default="wordfreq,lm,both", show_default=True, help="Comma-separated rows.")
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    help="Only the first N questions (the vocabulary stays the file's).",
)
@click.option("--lm-model", help="Causal LM for the LM ranker (default LM_MODEL or SmolLM2-135M).")
@click.option(
    "--threads", type=click.IntRange(min=1), help="Torch CPU threads for the LM (default: the machine's)."
)
@click.option("--output", type=click.Path(dir_okay=False), help="Write the rows as JSON here too.")
def distractors_bench(input_path, rankers, limit, lm_model, output, threads=None):
    """P@1, F1@3, MRR, NDCG@10 of each ranker's distractors against the file's four real distractors."""
    try:
        questions = read_questions(input_path, require_labels=True)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    vocab = vocabulary(questions)
    questions = questions[:limit] if limit else questions
    names = [r.strip() for r in rankers.split(",") if r.strip()]
    table = {}
    lm_ranker = None
    if {"lm", "both"} & set(names):
        from baselines.lm_scorer import load_causal_lm
        from datagen.lm_words import question_ranker

        lm_ranker = remembered(question_ranker(load_causal_lm(model_path=lm_model, threads=threads)))
    choices = {
        "wordfreq": wordfreq_ranker,
        "lm": lm_ranker,
        "both": fused(wordfreq_ranker, lm_ranker) if lm_ranker else None,
    }
    for name in names:
        if name not in choices:
            raise click.BadParameter(f"unknown ranker {name!r}: wordfreq, lm, both", param_hint="--rankers")
        with tqdm(total=len(questions), desc=name) as bar:
            table[name] = evaluate(
                questions=questions, ranker=choices[name], vocab=vocab, progress=bar.update
            )
        click.echo(f"{name}: " + ", ".join(f"{k} {v:.2f}" for k, v in table[name].items()))
    if output:
        data = {"input": str(Path(input_path).resolve()), "vocabulary": len(vocab), "rows": table}
        Path(output).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
