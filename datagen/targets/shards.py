"""Shards, resume and output of a candidates run (``python -m datagen candidates``).

``run_candidates`` splits the input into shards, runs them through a runner (``pipeline.local_runner``
here; Celery in ``tasks.datagen``), keeps each finished shard in ``<output>.work/`` and concatenates
them in order, so an interrupted run resumes from its last finished shard and every runner writes the
same bytes.
"""

import json
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from datagen.targets.pipeline import FATES, PIPELINE_VERSION, Runner, Settings, local_runner
from datagen.xsum import BadLine, read_pairs
from lexicon.files import file_sha256, write_atomic


def _dumps(record: dict) -> str:
    return json.dumps(record, ensure_ascii=False)


def _prepare_work_dir(work: Path, manifest: dict) -> None:
    work.mkdir(parents=True, exist_ok=True)
    path = work / "manifest.json"
    if path.exists():
        old = json.loads(path.read_text(encoding="utf-8"))
        if old != manifest:
            raise ValueError(
                f"{work}: holds shards of a different run (input, settings or shard size changed); delete it to start over"
            )
    else:
        write_atomic(path=path, text=json.dumps(manifest, indent=1, sort_keys=True))


def _total_funnel(funnels: Iterable[dict], bad: list[BadLine]) -> dict:
    total: Counter = Counter()
    for funnel in funnels:
        total.update(funnel)
    considered = sum(total[f] for f in FATES[1:])
    return {
        "pairs_in": total["pairs_in"] + len(bad),
        "bad_lines": len(bad),
        "pairs_processed": total["pairs_in"],
        "summary_tokens": total["summary_tokens"],
        "tokens_considered": considered,
        "no_score": total["no-score"],
        "above_threshold": total["above-threshold"],
        "removed_by_lemma": total["lemma"],
        "removed_by_synonym_antonym": total["synonym-antonym"],
        "removed_by_glove": total["glove"],
        "removed_by_contextual": total["contextual"],
        "kept": total["kept"],
        "pos_rescued": total["pos_rescued"],
        "pairs_with_target": total["pairs_with_target"],
    }


def run_candidates(
    *,
    input_path: Path,
    output_path: Path,
    settings: Settings,
    shard_size: int = 50,
    runner: Runner = local_runner,
    progress: bool = True,
) -> dict:
    """Run the pipeline over a pairs file; write records to ``output_path`` and return the report
    (also written to ``<output>.funnel.json``). Finished shards in ``<output>.work/`` are reused."""
    from tqdm import tqdm

    if shard_size < 1:
        raise ValueError(f"shard size must be at least 1, got {shard_size}")
    input_path, output_path = Path(input_path), Path(output_path)
    pairs, bad = read_pairs(path=input_path)
    work = output_path.with_name(output_path.name + ".work")
    manifest = {
        "pipeline_version": PIPELINE_VERSION,
        "input_sha256": file_sha256(input_path),
        "settings": settings.to_json(),
        "shard_size": shard_size,
    }
    _prepare_work_dir(work, manifest)
    shards = [(n, pairs[s : s + shard_size]) for n, s in enumerate(range(0, len(pairs), shard_size))]
    done = {n for n, _ in shards if (work / f"shard-{n:05d}.funnel.json").exists()}
    todo = [shard for shard in shards if shard[0] not in done]
    with tqdm(
        total=len(pairs),
        initial=sum(len(p) for n, p in shards if n in done),
        unit="pair",
        disable=not progress,
    ) as bar:
        for number, result in runner(todo, settings):
            lines = "".join(_dumps(r) + "\n" for r in result["records"])
            write_atomic(path=work / f"shard-{number:05d}.jsonl", text=lines)
            write_atomic(
                path=work / f"shard-{number:05d}.funnel.json",
                text=json.dumps(result["funnel"], sort_keys=True),
            )
            bar.update(len(shards[number][1]))
    funnels = []
    tmp = output_path.with_name(output_path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as out:
        for number, _ in shards:
            out.write((work / f"shard-{number:05d}.jsonl").read_text(encoding="utf-8"))
            funnels.append(json.loads((work / f"shard-{number:05d}.funnel.json").read_text(encoding="utf-8")))
    tmp.replace(output_path)
    report = {
        "input": str(input_path),
        "input_sha256": manifest["input_sha256"],
        "output_sha256": file_sha256(output_path),
        "pipeline_version": PIPELINE_VERSION,
        "settings": settings.to_json(),
        "funnel": _total_funnel(funnels, bad),
        "bad_lines": [{"line": b.line, "message": b.message} for b in bad],
    }
    write_atomic(
        path=output_path.with_name(output_path.name + ".funnel.json"), text=json.dumps(report, indent=1)
    )
    return report
