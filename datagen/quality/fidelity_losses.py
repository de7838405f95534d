"""Where the gold answers are lost, question by question: N lost gold words per loss bucket.

    python -m datagen.quality.fidelity_losses --data-dir ../shared/data/recam --subtask 2 --per-bucket 20

For each ReCAM dev/trial file of the subtask, each lost gold word is printed with spaCy's lemma and
POS, what the scoring stage saw (Subtask 2: the chosen sense and its max depth, and WordNet's first
sense; Subtask 1: the imperceptibility score) and its question. The counts are those of
``python -m datagen.quality.fidelity`` with the same settings; this command only explains them.
"""

from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path

import click

from datagen.quality.fidelity import SOURCES, rebuilt_pair
from datagen.targets.config import CALIBRATIONS, DEFAULT_CALIBRATION, DEFAULT_WSD, WSD_CHOICES, WSD_CONTEXTS
from datagen.targets.pipeline import (
    Settings,
    analyse_pairs,
    finish_states,
    load_resources,
    select_pairs,
    tokens_in_span,
)
from recam.records import Question, read_questions


def _seen(state, index: int, settings: Settings, res) -> str:
    """What the scoring stage saw for the gold token (for the listing only)."""
    token = state.summary.tokens[index]
    if settings.subtask == 1:
        value = res.imperceptibility.score([token.lemma.lower()])[0]
        return "no score" if value is None else f"imperceptibility {value:.3f}"
    if token.pos not in ("NOUN", "VERB"):
        return "-"
    sense = res.senses.score(summary=state.summary, passage=state.passage, indices=[index])[index]
    first = res.senses.lesk.senses(res.senses.wordnet_lemma(token), token.pos)
    if sense is None:
        return "no sense"
    first_depth = res.wordnet.synset(first[0]).max_depth()
    return f"{sense.synset} depth {sense.depth} (first {first[0]} depth {first_depth})"


def _kind(token, settings: Settings, res) -> str:
    """The gold token's POS (after the POS rule), and for Subtask 1 whether MRC rates its lemma."""
    if settings.subtask == 2:
        return token.pos
    rated = token.lemma.lower() in getattr(res.imperceptibility, "ratings", {})
    return f"{token.pos} {'MRC-rated' if rated else 'unrated'}"


def lost_gold(
    *, questions: Sequence[Question], source: str, settings: Settings, res, per_bucket: int
) -> tuple[dict[str, list[str]], dict[str, Counter]]:
    """Up to ``per_bucket`` lines per loss bucket (the gold word's fate other than "kept"), and per
    outcome (kept included) how many gold tokens of each kind (``_kind``) end there."""
    found: dict[str, list[str]] = defaultdict(list)
    kinds: dict[str, Counter] = defaultdict(Counter)
    for start in range(0, len(questions), 25):
        rebuilt = [rebuilt_pair(question=q, source=source) for q in questions[start : start + 25]]
        pairs = [pair for pair, _ in rebuilt]
        spans = {pair.id: span for pair, span in rebuilt}
        states = select_pairs(
            pairs=pairs,
            settings=settings,
            res=res,
            only=spans,
            analyses=analyse_pairs(pairs=pairs, nlp=res.nlp),
        )
        finish_states(states=states, settings=settings, res=res)
        for state in states:
            indices = tokens_in_span(state.summary, spans[state.pair.id])
            fates = [state.fates[i] for i in indices]
            fate = fates[0] if len(fates) == 1 else "not-one-token"
            token = state.summary.tokens[indices[0]]
            kinds[fate][_kind(token, settings, res)] += 1
            if fate == "kept" or len(found[fate]) >= per_bucket:
                continue
            question = (
                state.pair.summary[: token.start] + "[" + token.text + "]" + state.pair.summary[token.end :]
            )
            seen = _seen(state, indices[0], settings, res) if fate != "not-one-token" else "-"
            found[fate].append(f"{token.text} ({token.lemma}/{token.pos}; {seen}): {question}")
    return dict(found), dict(kinds)


@click.command()
@click.option("--data-dir", required=True, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--subtask", type=click.Choice(["1", "2"]), required=True)
@click.option("--per-bucket", type=click.IntRange(min=1), default=20, show_default=True)
@click.option("--limit", type=click.IntRange(min=1), default=None, help="First N questions per file.")
@click.option("--wsd", type=click.Choice(WSD_CHOICES), default=DEFAULT_WSD, show_default=True)
@click.option("--wsd-context", type=click.Choice(WSD_CONTEXTS), default="text", show_default=True)
@click.option(
    "--calibration", type=click.Choice(CALIBRATIONS), default=DEFAULT_CALIBRATION, show_default=True
)
def main(
    data_dir: Path,
    subtask: str,
    per_bucket: int,
    limit: int | None,
    wsd: str,
    wsd_context: str,
    calibration: str,
) -> None:
    """Print lost gold words per bucket (default settings but the options), without the encoder."""
    settings = Settings(
        subtask=int(subtask), use_encoder=False, wsd=wsd, wsd_context=wsd_context, calibration=calibration
    )
    res = load_resources(settings=settings)
    for relative in SOURCES[settings.subtask]:
        questions = read_questions(Path(data_dir) / relative, require_labels=True)[:limit]
        lost, kinds = lost_gold(
            questions=questions, source=relative, settings=settings, res=res, per_bucket=per_bucket
        )
        click.echo(f"\n## {relative}: every gold answer by outcome and kind")
        for fate, counts in sorted(kinds.items()):
            click.echo(f"- {fate}: " + ", ".join(f"{k} {n}" for k, n in counts.most_common()))
        for fate, lines in sorted(lost.items()):
            click.echo(f"\n## {relative}: {fate} (first {len(lines)})")
            for line in lines:
                click.echo(f"- {line}")


if __name__ == "__main__":
    main()
