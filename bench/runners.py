"""One entry per benchmark: name -> (result file stem, title, runner). Add a benchmark here to run it.

Each runner takes the CLI options and returns a JSON-ready dict; ``rows`` (optional) becomes a table.
The runners that start Django run in a fresh process each (see __main__), so each gets its own database.
"""

from collections.abc import Callable
from dataclasses import asdict


def bench_a(options: dict) -> dict:
    from bench.floor import run_floor

    return asdict(run_floor(data_dir=options["data_dir"], repeats=options["repeats"]))


def bench_b(options: dict) -> dict:
    from bench.upload import run_upload

    return run_upload(data_dir=options["data_dir"])


def bench_bs(options: dict) -> dict:
    from bench.django_env import BENCH_DIR
    from bench.upload import run_upload

    return run_upload(data_dir=options["data_dir"], database_url=f"sqlite:///{BENCH_DIR / 'upload.sqlite3'}")


def bench_c(options: dict) -> dict:
    from bench.serve import run_serve

    return run_serve(data_dir=options["data_dir"], seconds=options["seconds"])


def bench_d(options: dict) -> dict:
    from bench.queries import run_queries

    return run_queries(data_dir=options["data_dir"])


def bench_e(options: dict) -> dict:
    from bench.analytics import run_analytics

    return run_analytics()


def bench_f(options: dict) -> dict:
    from bench.lm_scoring import run_lm_scoring

    return run_lm_scoring(data_dir=options["data_dir"], questions=options.get("lm_questions", 12))


def bench_g(options: dict) -> dict:
    from bench.gate_words import run_gate_words

    return run_gate_words(data_dir=options["data_dir"], questions=options.get("gate_questions", 6))


def bench_h(options: dict) -> dict:
    from bench.lm_window import run_lm_window

    return run_lm_window(data_dir=options["data_dir"], questions=options.get("window_questions", 8))


def bench_i(options: dict) -> dict:
    from bench.upload_bomb import run_upload_bomb

    return run_upload_bomb(data_dir=options["data_dir"])


def bench_j(options: dict) -> dict:
    from bench.statistics_cpu import run_statistics_cpu

    return run_statistics_cpu()


def bench_k(options: dict) -> dict:
    from bench.reader_threads import run_reader_threads

    return run_reader_threads(steps=options.get("thread_steps", 2), repeats=options.get("thread_repeats", 2))


def bench_l(options: dict) -> dict:
    from bench.upload_cpu import run_upload_cpu

    return run_upload_cpu(data_dir=options["data_dir"])


BENCHMARKS: dict[str, tuple[str, str, Callable[[dict], dict]]] = {
    "a": ("a_floor", "(a) Floor: parse + score one 2,025-line file in process", bench_a),
    "b": ("b_upload", "(b) Upload to score visible through HTTP with a real worker", bench_b),
    "bs": ("b_upload_sqlite", "(b) Upload to score visible, the same on the SQLite default", bench_bs),
    "c": ("c_leaderboard_rps", "(c) Leaderboard requests/s from gunicorn, 200 teams x 10", bench_c),
    "d": ("d_leaderboard_queries", "(d) Database queries per leaderboard page as teams grow", bench_d),
    "e": ("e_statistics", "(e) Analytics 60 teams x 2,025 questions; tied ranks of 200 teams", bench_e),
    "f": ("f_lm_scoring", "(f) LM option scoring: naive vs shared-prefix batched, questions/s", bench_f),
    "g": (
        "g_gate_words",
        "(g) Gate word scores: one row per word vs packed rows, CPU-s per question",
        bench_g,
    ),
    "h": (
        "h_lm_window",
        "(h) The gate's scoring window: CPU-s per question with exact scores cut after K words",
        bench_h,
    ),
    "i": (
        "i_upload_bomb",
        "(i) A 46 KB zip of 45 MiB of lines through the upload form: request time and peak memory",
        bench_i,
    ),
    "j": (
        "j_statistics_cpu",
        "(j) Statistics CPU per score change at 10/100/500 teams: before, incremental, once per burst",
        bench_j,
    ),
    "k": (
        "k_reader_threads",
        "(k) torch threads beside a busy process: one GA Reader training step, default vs auto vs 1 thread",
        bench_k,
    ),
    "l": (
        "l_upload_cpu",
        "(l) CPU per upload by component, in process: the upload request, a status poll, the scoring service",
        bench_l,
    ),
}


def run_isolated(name: str, options: dict) -> dict:
    """Run one benchmark in a fresh (spawned) process: Django settings are per process."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(BENCHMARKS[name][2], options).result()
