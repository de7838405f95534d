"""``python -m datagen options``: candidate questions -> finished ReCAM jsonl (task paper §3.5)."""

import hashlib
import json
import time
from collections.abc import Iterator
from pathlib import Path

import click
from tqdm import tqdm

from datagen.options.build import read_candidates, read_recam_candidates
from datagen.options.finish import RANKERS, finish
from datagen.options.gate import MIN_GOLD_RANK
from datagen.options.lm_words import WINDOW
from datagen.options.retrieval import (
    READERS,
    Plan,
    by_subtask,
    run_planned_fold,
    write_plan,
)
from lexicon import resources
from lexicon.files import file_sha256


def _window(value: str | int | None) -> int | None:
    """``--lm-window``: a count of words (0 or more), or "all" (None)."""
    if value is None or str(value).strip().lower() == "all":
        return None
    try:
        count = int(value)
    except ValueError:
        raise click.BadParameter(f'{value!r} is neither a count of words nor "all"') from None
    if count < 0:
        raise click.BadParameter(f"{count} words: the window must be 0 or more")
    return count


@click.command("options")
@click.option("--candidates", "candidates_path", required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--output", required=True, type=click.Path(dir_okay=False, writable=True))
@click.option("--folds", default=4, show_default=True, type=click.IntRange(min=2))
@click.option("--readers", default=",".join(READERS), show_default=True, help="Comma-separated readers.")
@click.option(
    "--epochs", type=click.IntRange(min=1), help="Training epochs per fold (reader default if unset)."
)
@click.option("--hidden", type=click.IntRange(min=1), help="Bi-GRU hidden size (default 150).")
@click.option("--hops", type=click.IntRange(min=1), help="GA Reader hops (default 3).")
@click.option("--batch-size", type=click.IntRange(min=1), help="Batch size (default 32).")
@click.option(
    "--time-budget",
    type=click.FloatRange(min=1),
    help="Seconds per fold training (stops after the epoch that passes it).",
)
@click.option("--seed", default=13, show_default=True, type=int, help="Folds, training and gold positions.")
@click.option(
    "--vectors", type=click.Path(exists=True, dir_okay=False), help="GloVe file (default GLOVE_PATH)."
)
@click.option(
    "--work-dir", type=click.Path(file_okay=False), help="Checkpoints (default MODELS_DIR/options/KEY)."
)
@click.option("--backend", type=click.Choice(["local", "celery"]), default="local", show_default=True)
@click.option(
    "--timeout",
    type=click.FloatRange(min=1),
    help="Celery backend: seconds to wait for each fold's result (default CELERY_LONG_TASK_TIME_LIMIT).",
)
@click.option(
    "--threads",
    type=click.IntRange(min=1),
    help="Torch CPU threads (local backend; default: auto, all cores when alone and fewer under load).",
)
@click.option("--device", help='Torch device, e.g. "cpu" or "cuda" (default: CUDA when present).')
@click.option(
    "--ranker",
    type=click.Choice(RANKERS),
    default="both",
    show_default=True,
    help="Who proposes distractors: the k-fold readers, the LM, or both (the LM's top words join the pool).",
)
@click.option(
    "--gate/--no-gate",
    default=True,
    show_default=True,
    help="Adversarial gate: options-only scorers find the distractors as plausible as the gold, the article-aware LM still prefers the gold.",
)
@click.option(
    "--lm-model", help="Causal LM for the LM ranker and the gate (default LM_MODEL or SmolLM2-135M)."
)
@click.option(
    "--lm-top",
    default=10,
    show_default=True,
    type=click.IntRange(min=1),
    help="LM ranker's words in the pool.",
)
@click.option(
    "--lm-window",
    default=str(WINDOW),
    show_default=True,
    callback=lambda ctx, param, value: _window(value),
    help='Words of the summary after the blank that the LMs\' exact scores read (0: the word alone), or "all" '
    "for the whole rest of the summary (the scoring rule of gate versions 3-4 before the window).",
)
@click.option(
    "--gate-min-rank",
    default=MIN_GOLD_RANK,
    show_default=True,
    type=click.IntRange(min=1, max=5),
    help="The gold's lowest options-only LM rank the gate accepts (2: never the favourite; 1: gate version 2).",
)
@click.option(
    "--extra-train",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False),
    help="A labelled ReCAM jsonl added to every reader fold's training (repeatable; e.g. ReCAM trial, "
    "never a test file). Its questions on a candidate's article are left out; ranking stays over the candidate set.",
)
@click.option(
    "--gate-lm2",
    default="gemma",
    show_default=True,
    help="The gate's second LM (gate version 4): \"gemma\" (the set-up's Gemma 3 270M, "
    'baselines.lm_loading.gemma_model_path()), a GGUF file or model dir, or "none" (gate version 3).',
)
@click.option(
    "--gate-version",
    default=5,
    show_default=True,
    type=click.IntRange(min=4, max=6),
    help="5 (default): the rules of docs/explanation/validity.md (form, near-synonym, one-per-summary, the gold "
    "never the options-only favourite, PMI rank drawn); 6: targets with contrast words that fit the sentence, at "
    "least two as distractors, a with-article margin under the second LM (measured: fewer ambiguous questions, but "
    "answered without the article); 4: the previous gate (with --gate-lm2 none: 3).",
)
@click.option(
    "--score-shard",
    callback=lambda ctx, param, value: _shard(value),
    help='Gate version 6: "I/N" scores (and caches in the work dir) every N-th question from the I-th (0-based) and '
    "stops without writing; run the N shards in parallel, then once without it to write the set.",
)
@click.option(
    "--per-summary",
    type=click.Choice(["one", "all"]),
    default="one",
    show_default=True,
    help="One question per summary (the most open sentence; docs/explanation/validity.md) or every candidate. A set where "
    "one question's answer is in another on the same article is refused either way.",
)
@click.option(
    "--from-recam",
    is_flag=True,
    help="CANDIDATES is labelled ReCAM jsonl (e.g. a dev file): each question's article, question and gold "
    "become a candidate, its options are dropped (to rank generators on the questions ReCAM's distractors answer).",
)
@click.option(
    "--subtask",
    default="1",
    show_default=True,
    type=click.Choice(["1", "2"]),
    help="With --from-recam: the subtask the questions are written under.",
)
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    help="Questions for the first N candidates only (readers still trained on every fold; LM vocabulary of the whole file).",
)
def options(
    candidates_path,
    output,
    folds,
    readers,
    epochs,
    hidden,
    hops,
    batch_size,
    time_budget,
    seed,
    vectors,
    work_dir,
    backend,
    timeout,
    threads,
    device,
    ranker,
    gate,
    lm_model,
    lm_top,
    gate_min_rank=MIN_GOLD_RANK,  # defaults: callers of ``options.callback`` (the console's task)
    limit=None,  # may leave these out
    gate_lm2="gemma",
    extra_train=(),
    lm_window=WINDOW,
    gate_version=5,
    per_summary="one",
    from_recam=False,
    subtask="1",
    score_shard=None,
):
    """Generate 4 distractors per candidate question with three k-fold readers; write ReCAM jsonl."""
    started = (time.monotonic(), time.process_time())
    reader_names = tuple(r.strip() for r in readers.split(",") if r.strip())
    unknown = [r for r in reader_names if r not in READERS]
    if unknown or not reader_names:
        raise click.BadParameter(
            f"unknown reader(s) {unknown}: choose from {', '.join(READERS)}", param_hint="--readers"
        )
    second_lm = _second_lm(gate_lm2) if gate else None
    if gate and gate_version == 6 and second_lm is None:
        raise click.BadParameter(
            "gate version 6 needs the second LM (its with-article margin, rule U): drop --gate-lm2 none, or pass "
            "--gate-version 5",
            param_hint="--gate-lm2",
        )
    if score_shard is not None and not (gate and gate_version == 6):
        raise click.BadParameter("only gate version 6 scores in shards", param_hint="--score-shard")
    try:
        if from_recam:
            candidates = read_recam_candidates(candidates_path, subtask=subtask)
        else:
            candidates = read_candidates(candidates_path)
        for path in extra_train:
            check_labelled(path)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    settings = {
        "epochs": epochs,
        "hidden": hidden,
        "hops": hops,
        "batch_size": batch_size,
        "seed": seed,
        "time_budget_s": time_budget,
    }
    plan = Plan(
        candidates=str(Path(candidates_path).resolve()),
        candidates_sha256=file_sha256(candidates_path),
        folds=folds,
        seed=seed,
        readers=reader_names,
        reader_settings={k: v for k, v in settings.items() if v is not None},
        vectors=str(Path(vectors).resolve()) if vectors else None,
        device=device,
        extra_train=tuple(str(Path(p).resolve()) for p in extra_train),
        extra_train_sha256=tuple(file_sha256(p) for p in extra_train),
        from_recam=subtask if from_recam else None,
    )
    # absolute: the plan and the Celery tasks name it, and a worker runs in a directory of its own
    work = (Path(work_dir) if work_dir else _default_work_dir(plan)).resolve()
    write_plan(work_dir=work, plan=plan)
    click.echo(f"work dir: {work}")
    groups = by_subtask(candidates)
    jobs = [(s, r, f) for s in groups for r in reader_names for f in range(folds)] if ranker != "lm" else []
    try:
        if backend == "celery":
            _run_celery(work=work, jobs=jobs, timeout=timeout)
        else:
            _run_local(work=work, jobs=jobs, threads=threads)
        finished = finish(
            work=work,
            groups=groups,
            candidates=candidates,
            readers=reader_names,
            output=Path(output),
            ranker=ranker,
            gated=gate,
            lm_model=lm_model,
            lm_top=lm_top,
            score_many=_celery_scorer(lm_model=lm_model, timeout=timeout) if backend == "celery" else None,
            limit=limit,
            gate_min_rank=gate_min_rank,
            second_lm=second_lm,
            second_many=_celery_scorer(lm_model=second_lm, timeout=timeout)
            if backend == "celery" and second_lm
            else None,
            lm_window=lm_window,
            gate_version=gate_version,
            per_summary=per_summary,
            started=started,
            score_shard=score_shard,
        )
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    if finished is None:
        click.echo(f"scored shard {score_shard[0]}/{score_shard[1]} into {work}; nothing written")
        return
    written, dropped, report = finished
    click.echo(f"wrote {written} question(s) to {output}; dropped {dropped}")
    click.echo(f"report: {report}")
    explanation = json.loads(Path(report).with_suffix(".json").read_text()).get("explanation")
    if explanation:
        click.echo(explanation)


GATE_SHARD = 8  # questions per Celery gate task


def check_labelled(path: str) -> None:
    """An ``--extra-train`` file must be ReCAM jsonl whose every question has its label (a test file
    has none): the first problem is named with its file and line."""
    from recam.records import read_questions

    read_questions(path)  # a malformed record: its file and line
    lines = Path(path).read_text(encoding="utf-8-sig").splitlines()
    for number, line in enumerate(lines, start=1):
        if line.strip() and json.loads(line).get("label") is None:
            raise ValueError(
                f"{path}, line {number}: no label; extra training data must be labelled (never a test file)"
            )


def _shard(value: str | None) -> tuple[int, int] | None:
    """``--score-shard I/N``: 0 <= I < N."""
    if value is None:
        return None
    try:
        index, count = (int(x) for x in value.split("/"))
    except ValueError:
        raise click.BadParameter(f"{value!r} is not I/N, e.g. 0/2") from None
    if count < 1 or not 0 <= index < count:
        raise click.BadParameter(f"{value!r}: need 0 <= I < N")
    return index, count


def _second_lm(value: str) -> str | None:
    """``--gate-lm2``: "none", "gemma" (the set-up's file) or a path; a missing file is a usage error."""
    if value.strip().lower() == "none":
        return None
    if value == "gemma":
        from baselines.lm_loading import gemma_model_path

        path = gemma_model_path()
        hint = "run make setup, pass a model with --gate-lm2 PATH, or --gate-lm2 none for gate version 3"
    else:
        path, hint = Path(value), "pass a GGUF file or a model dir, or --gate-lm2 none"
    if not path.exists():
        raise click.BadParameter(f"no model at {path}: {hint}", param_hint="--gate-lm2")
    return str(path.resolve())


def _celery_scorer(*, lm_model: str | None, timeout: float | None):
    """Send the gate's LM scoring in shards by task name (``datagen.options_gate_scores``).

    The results come back shard by shard, in item order, as a generator: the caller appends each to
    the work dir's cache as it arrives, so a run stopped (or a shard failed) after hours keeps every
    shard already scored and a rerun sends only the rest. On a failure the shards not yet collected
    are revoked, so the workers do not go on with a run that has ended."""
    from datagen.cli.celery_client import client_app, options_queue, settings

    current_app = client_app()

    def score_many(items: list[dict]) -> Iterator[dict]:
        queue = options_queue()
        shards = [items[i : i + GATE_SHARD] for i in range(0, len(items), GATE_SHARD)]
        sent = [
            current_app.send_task(
                "datagen.options_gate_scores", kwargs={"items": shard, "lm_model": lm_model}, queue=queue
            )
            for shard in shards
        ]
        click.echo(f"sent {len(sent)} gate shard(s) to the Celery queue {queue!r}")
        for done, result in enumerate(tqdm(sent, desc="gate shards", unit="shard")):
            try:
                found = result.get(timeout=timeout or settings.CELERY_LONG_TASK_TIME_LIMIT)
            except Exception as exc:  # a timeout or the worker's exception: end the run with its name
                for rest in sent[done:]:
                    rest.revoke()
                raise click.ClickException(
                    f"gate shard {done + 1} of {len(sent)} failed: {type(exc).__name__}: {exc} "
                    f"(the {done} shard(s) before it are cached in the work dir; rerun to resume)"
                ) from None
            finally:
                result.forget()
            yield from found

    return score_many


def _default_work_dir(plan: Plan) -> Path:
    key = {k: v for k, v in plan.__dict__.items() if k not in ("candidates", "device")}
    if key["from_recam"] is None:  # the keys of plans written before --from-recam stay as they were
        del key["from_recam"]
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:12]
    return resources.models_dir() / "options" / digest


def _run_local(*, work: Path, jobs: list[tuple[str, str, int]], threads: int | None) -> None:
    from lexicon.threads import set_torch_threads

    set_torch_threads(threads)
    for subtask, reader, fold in tqdm(jobs, desc="folds", unit="fold"):
        tqdm.write(f"subtask {subtask}, {reader}, fold {fold}")
        run_planned_fold(work_dir=work, subtask=subtask, reader=reader, fold=fold, progress=True)


def _run_celery(*, work: Path, jobs: list[tuple[str, str, int]], timeout: float | None) -> None:
    """Send every fold, then wait for each in turn; a failed or silent fold ends the run with its name."""
    from celery.exceptions import TimeoutError as CeleryTimeoutError
    from kombu.exceptions import OperationalError

    from datagen.cli.celery_client import options_queue, options_train_fold, settings

    queue = options_queue()
    timeout = timeout or settings.CELERY_LONG_TASK_TIME_LIMIT
    sent = []
    try:
        for s, r, f in jobs:
            kwargs = {"work_dir": str(work), "subtask": s, "reader": r, "fold": f}
            sent.append(
                (f"subtask {s}, {r}, fold {f}", options_train_fold.apply_async(kwargs=kwargs, queue=queue))
            )
    except OperationalError as exc:
        raise click.ClickException(f"cannot send to the Celery broker (CELERY_BROKER_URL): {exc}") from None
    click.echo(f"sent {len(sent)} fold trainings to the Celery queue {queue!r}")
    for where, result in tqdm(sent, desc="folds", unit="fold"):
        try:
            result.get(timeout=timeout, propagate=True)
        except CeleryTimeoutError:
            raise click.ClickException(
                f"{where}: no result after {timeout:g} s: is a worker consuming the Celery queue {queue!r}? "
                f"(python -m celery -A tasks.app worker -Q {queue}). Folds already sent stay queued; "
                "a rerun reuses the finished ones."
            ) from None
        except Exception as exc:  # the worker's exception, re-raised here by Celery: any kind ends the run
            raise click.ClickException(f"{where} failed on the worker: {type(exc).__name__}: {exc}") from None
        finally:
            result.forget()  # the fold's files are in the work dir: nothing to keep in the result backend
