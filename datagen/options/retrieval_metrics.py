"""Retrieval metrics of the option readers (task paper Tables 3 and 4): MRR, Recall@k, the table, the pools."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

TABLE_NAMES = {"ga": "GAReader", "att": "AttReader", "att-gloss": "+gloss"}
RECALL_AT = (1, 5, 10)


@dataclass(frozen=True)
class Ranked:
    """One reader's answer for one held-out question."""

    id: int | str
    gold_rank: int | None  # 1-based rank of the gold word in the full candidate ranking
    top: tuple[str, ...]  # the reader's best TOP_K words, best first


def retrieval_metrics(*, gold_ranks: Sequence[int | None], ks: Sequence[int] = RECALL_AT) -> dict[str, float]:
    """MRR and Recall@k of the gold word's rank (None: not ranked, counts as a miss).

    >>> retrieval_metrics(gold_ranks=[1, 2, None, 10], ks=(1, 5))
    {'MRR': 0.4, 'R@1': 0.25, 'R@5': 0.5}
    """
    if not gold_ranks:
        raise ValueError("no rankings to score")
    if any(r is not None and r < 1 for r in gold_ranks):
        raise ValueError(f"ranks are 1-based, got {min(r for r in gold_ranks if r is not None)}")
    n = len(gold_ranks)
    metrics = {"MRR": sum(1.0 / r for r in gold_ranks if r is not None) / n}
    for k in ks:
        metrics[f"R@{k}"] = sum(1 for r in gold_ranks if r is not None and r <= k) / n
    return metrics


def metrics_table(*, rows: Mapping[str, Mapping[str, float]], caption: str = "") -> str:
    """A markdown table in the layout of the paper's Tables 3 and 4 (one row per reader).

    >>> print(metrics_table(rows={"ga": {"MRR": 0.245, "R@1": 0.175, "R@5": 0.314, "R@10": 0.378}}))
    | | MRR | R@1 | R@5 | R@10 |
    |---|---|---|---|---|
    | GAReader | 0.245 | 0.175 | 0.314 | 0.378 |
    """
    columns = ["MRR", *(f"R@{k}" for k in RECALL_AT)]
    head = f"| {caption} |" if caption else "| |"
    lines = [f"{head} " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
    for reader, metrics in rows.items():
        cells = " | ".join(f"{metrics[c]:.3f}" for c in columns)
        lines.append(f"| {TABLE_NAMES.get(reader, reader)} | {cells} |")
    return "\n".join(lines)


def reader_metrics(rankings: Mapping[str, Mapping[int | str, Ranked]]) -> dict[str, dict[str, float]]:
    """Tables 3/4 rows: reader -> MRR, R@1, R@5, R@10 over all held-out questions."""
    return {
        reader: retrieval_metrics(gold_ranks=[r.gold_rank for r in ranked.values()])
        for reader, ranked in rankings.items()
    }


def reader_pools(
    *, rankings: Mapping[str, Mapping[str, Mapping[int | str, Ranked]]], readers: Sequence[str]
) -> dict[int | str, list[tuple[str, ...]]]:
    """question id -> one top-10 list per reader: the pool of 3 x 10 tokens (subtask -> reader -> id)."""
    pools: dict[int | str, list[tuple[str, ...]]] = {}
    for by_reader in rankings.values():
        for reader in readers:
            for qid, ranked in by_reader.get(reader, {}).items():
                pools.setdefault(qid, []).append(ranked.top)
    return pools
