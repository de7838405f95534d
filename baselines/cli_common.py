"""What the ``python -m baselines`` command modules share: path types, clean user errors, threads."""

from contextlib import contextmanager
from pathlib import Path

import click

from baselines.commands import read_files

FILE = click.Path(exists=True, dir_okay=False, path_type=Path)  # an existing file
DIR = click.Path(exists=True, file_okay=False, path_type=Path)  # an existing directory
NEW_FILE = click.Path(dir_okay=False, path_type=Path)
NEW_DIR = click.Path(file_okay=False, path_type=Path)


@contextmanager
def user_errors():
    """Bad input (ValueError, a missing file) becomes a clean error message, not a traceback."""
    try:
        yield
    except (ValueError, FileNotFoundError) as exc:
        raise click.ClickException(str(exc)) from None


def read_questions(paths, *, labels: bool):
    with user_errors():
        return read_files(paths, labels=labels)


THREADS_HELP = (
    "CPU threads for torch (default: auto, all cores when alone and fewer under load; see docs/operations.md)"
)


def set_threads(count: int | None) -> int:
    """torch's CPU threads: ``count`` if given, else $RECAM_TORCH_THREADS, else auto (lexicon.threads)."""
    from lexicon.threads import set_torch_threads

    with user_errors():
        return set_torch_threads(count)
