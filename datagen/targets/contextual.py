"""Calibrating the contextual filter's threshold (§3.4) for the configured encoder.

The paper drops a target when a passage token's contextual vector (BERT-large) has cosine > 0.85 with
it; that number belongs to BERT-large's geometry, not to our MiniLM. The stated rule here: on XSum
pairs (never ReCAM dev/trial), for each summary content word take its best cosine with a passage
token of the *same* lemma and its best cosine with a passage token of a *different* lemma; the
threshold is the equal-error point of the two distributions (the share of same-word maxima below it
equals the share of different-word maxima above it), the usual single cut between two score
distributions. It separates "the passage says this same word" from "the passage has other words".

    python -m datagen.targets.contextual --input ../shared/data/xsum/xsum_test_1k.jsonl --pairs 200
"""

import json
from collections.abc import Sequence
from pathlib import Path

import click
import numpy as np

from datagen.nlp import CONTENT_POS, Analysis


def _unit(array: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(array, axis=-1, keepdims=True)
    return np.divide(array, norms, out=np.zeros_like(array), where=norms > 0)


def pair_maxima(*, summary: Analysis, passage: Analysis, encoder) -> tuple[list[float], list[float]]:
    """Best same-lemma and best different-lemma passage cosine of each summary content word."""
    sentences = [[t.text for t in sent] for sent in passage.sentences()]
    vectors = encoder.embed(sentences=[[t.text for t in summary.tokens], *sentences])
    if not sentences:
        return [], []
    passage_vectors = _unit(np.concatenate(vectors[1:], axis=0))  # Shape: (passage_tokens, hidden)
    lemmas = np.array([t.lemma.lower() for sent in passage.sentences() for t in sent])
    same, different = [], []
    for i, token in enumerate(summary.tokens):
        if token.pos not in CONTENT_POS:
            continue
        cosines = passage_vectors @ _unit(vectors[0][i])  # Shape: (passage_tokens,)
        match = lemmas == token.lemma.lower()
        if match.any():
            same.append(float(cosines[match].max()))
        if (~match).any():
            different.append(float(cosines[~match].max()))
    return same, different


def equal_error_threshold(*, same: Sequence[float], different: Sequence[float]) -> float:
    """The cut t where P(same < t) == P(different > t) (nearest grid point, 0.001 steps)."""
    same_sorted, diff_sorted = np.sort(same), np.sort(different)
    grid = np.round(np.arange(0.0, 1.0005, 0.001), 3)
    miss = np.searchsorted(same_sorted, grid, side="left") / len(same_sorted)  # same below t
    false = 1 - np.searchsorted(diff_sorted, grid, side="right") / len(diff_sorted)  # different above t
    return float(grid[int(np.argmin(np.abs(miss - false)))])


def calibrate(*, pairs: Sequence, nlp, encoder) -> dict:
    """Both distributions' quantiles and the equal-error threshold over ``pairs``."""
    from datagen.nlp import analyse

    summaries = analyse(nlp=nlp, texts=[p.summary for p in pairs])
    passages = analyse(nlp=nlp, texts=[p.document for p in pairs])
    same: list[float] = []
    different: list[float] = []
    for summary, passage in zip(summaries, passages, strict=True):
        s, d = pair_maxima(summary=summary, passage=passage, encoder=encoder)
        same += s
        different += d
    threshold = equal_error_threshold(same=same, different=different)
    quantiles = (0.05, 0.25, 0.5, 0.75, 0.95, 0.99)
    return {
        "encoder": encoder.name,
        "pairs": len(pairs),
        "threshold": threshold,
        "same_word": {"n": len(same), **{f"q{q}": round(float(np.quantile(same, q)), 4) for q in quantiles}},
        "different_word": {
            "n": len(different),
            **{f"q{q}": round(float(np.quantile(different, q)), 4) for q in quantiles},
        },
        "different_above_threshold": round(float(np.mean(np.array(different) > threshold)), 4),
        "same_below_threshold": round(float(np.mean(np.array(same) < threshold)), 4),
        "different_above_0.85": round(float(np.mean(np.array(different) > 0.85)), 4),
    }


@click.command()
@click.option("--input", "input_path", required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--pairs", "n_pairs", type=click.IntRange(min=1), default=200, show_default=True)
@click.option("--output", type=click.Path(dir_okay=False, path_type=Path), default=None)
def main(input_path: Path, n_pairs: int, output: Path | None) -> None:
    """Print (and optionally write) the calibration of the contextual threshold on XSum pairs."""
    import torch

    from datagen.nlp import load_nlp
    from datagen.targets.encoder import load_encoder
    from datagen.xsum import read_pairs

    torch.set_num_threads(min(2, torch.get_num_threads()))
    pairs, _ = read_pairs(path=input_path)
    report = calibrate(pairs=pairs[:n_pairs], nlp=load_nlp(), encoder=load_encoder())
    report["input"] = str(input_path)
    text = json.dumps(report, indent=1)
    if output is not None:
        output.write_text(text + "\n", encoding="utf-8")
    click.echo(text)


if __name__ == "__main__":
    main()
