"""``python -m client``: submit predictions, follow their status, read leaderboards from a terminal."""

import json
import os
import time
from pathlib import Path, PurePosixPath, PureWindowsPath

import click
from tqdm import tqdm

from client import render
from client.api import DEFAULT_URL, FINAL_STATUSES, ApiError, RecamApi
from client.render import printable


def _parse_trained_on(values: tuple[str, ...]) -> dict[int, int]:
    """``N`` (every file) or ``X:N`` (the subtask-X file) -> {test subtask: trained-on subtask}."""
    mapping: dict[int, int] = {}
    for value in values:
        test, _, trained = value.rpartition(":")
        if not trained.isdigit() or (test and not test.isdigit()):
            raise click.BadParameter(f"{value!r}: use N (every file) or X:N (the subtask-X file)")
        for subtask in [int(test)] if test else [1, 2]:
            mapping[subtask] = int(trained)
    return mapping


def wait_for_result(
    api: RecamApi, *, submission_id: int, timeout: float, interval: float = 1.0, first_interval: float = 0.1
) -> dict:
    """Poll until the submission is scored or failed, showing its status; ApiError on timeout.

    Scoring takes well under a second, so the first poll comes after ``first_interval`` and the wait
    doubles up to ``interval``.
    """
    wait = first_interval
    deadline = time.monotonic() + timeout
    with tqdm(total=None, bar_format="{desc} [{elapsed}]", desc=f"submission {submission_id}: ...") as bar:
        while True:
            sub = api.status(submission_id=submission_id)
            queue = sub.get("queue") or {}
            place = f", place {queue['position']}" if queue.get("position") else ""
            eta = f", ~{queue['eta_seconds']:.0f} s" if queue.get("eta_seconds") is not None else ""
            bar.set_description_str(f"submission {submission_id}: {sub.get('status')}{place}{eta}")
            bar.update()
            if sub.get("status") in FINAL_STATUSES:
                return sub
            if time.monotonic() >= deadline:
                raise ApiError(f"submission {submission_id} still {sub.get('status')} after {timeout:.0f} s")
            time.sleep(wait)
            wait = min(2 * wait, interval)


@click.group()
@click.option("--url", envvar="RECAM_URL", default=DEFAULT_URL, show_default=True, help="Server (RECAM_URL).")
@click.option(
    "--competition",
    envvar="RECAM_COMPETITION",
    default=None,
    help="Competition slug (default: the server's).",
)
@click.pass_context
def main(ctx: click.Context, url: str, competition: str | None) -> None:
    """ReCAM platform client. The API token is read from RECAM_TOKEN."""
    ctx.obj = RecamApi(base_url=url, token=os.environ.get("RECAM_TOKEN") or None, competition=competition)


def _run(action):
    try:
        return action()
    except ApiError as exc:
        raise click.ClickException(str(exc)) from None


@main.command()
@click.option("--phase", required=True, help="practice, evaluation or post-evaluation.")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--trained-on", multiple=True, help="Trained-on subtask: N for every file, X:N for the subtask-X file."
)
@click.option("--system", "system_name", default="", help="System name.")
@click.option("--description", default="", help="Short method description.")
@click.option("--wait", is_flag=True, help="Wait until the score (or the validity confirmation) is back.")
@click.option("--timeout", default=600.0, show_default=True, help="Seconds to wait with --wait.")
@click.pass_obj
def submit(
    api: RecamApi,
    phase: str,
    file: Path,
    trained_on: tuple[str, ...],
    system_name: str,
    description: str,
    wait: bool,
    timeout: float,
) -> None:
    """Upload FILE (a zip with subtask1.csv and/or subtask2.csv, or one of those CSVs) to PHASE."""
    mapping = _parse_trained_on(trained_on)
    sub = _run(
        lambda: api.submit(
            phase=phase, path=file, trained_on=mapping, system_name=system_name, description=description
        )
    )
    click.echo(f"accepted: submission {sub['id']} ({sub.get('status')})")
    if wait:
        sub = _run(lambda: wait_for_result(api, submission_id=sub["id"], timeout=timeout))
        click.echo(render.submission(sub))
        if sub.get("status") == "failed":
            raise click.ClickException(f"submission {sub['id']} failed: {sub.get('failure_reason')}")


@main.command()
@click.argument("submission_id", type=int)
@click.option("--json", "as_json", is_flag=True, help="Print the raw JSON.")
@click.pass_obj
def status(api: RecamApi, submission_id: int, as_json: bool) -> None:
    """Show the status and scores of one of your team's submissions."""
    sub = _run(lambda: api.status(submission_id=submission_id))
    click.echo(json.dumps(sub, indent=2) if as_json else render.submission(sub))


@main.command("list")
@click.option("--phase", default=None, help="Only this phase.")
@click.option("--json", "as_json", is_flag=True, help="Print the raw JSON.")
@click.pass_obj
def list_(api: RecamApi, phase: str | None, as_json: bool) -> None:
    """List your team's submissions, newest first."""
    subs = _run(lambda: api.list_submissions(phase=phase))
    if as_json:
        click.echo(json.dumps(subs, indent=2))
        return
    columns = ["id", "phase", "status", "system_name", "received_at", "best_accuracy"]
    click.echo(render.table(subs, columns))


@main.command()
@click.option("--phase", required=True, help="practice, evaluation or post-evaluation.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
@click.pass_obj
def leaderboard(api: RecamApi, phase: str, fmt: str) -> None:
    """Print a phase's public leaderboard."""
    board = _run(lambda: api.leaderboard(phase=phase))
    click.echo(json.dumps(board, indent=2) if fmt == "json" else render.leaderboard(board))


@main.command()
@click.option("--phase", required=True, help="practice, evaluation or post-evaluation.")
@click.option(
    "--out", type=click.Path(file_okay=False, path_type=Path), default=Path("recam-data"), show_default=True
)
@click.pass_obj
def data(api: RecamApi, phase: str, out: Path) -> None:
    """Download a phase's public files: the questions (no labels), an example upload, the starting kit."""
    files = _run(lambda: api.data_files(phase=phase))
    unsafe = [name for name in files if not is_plain_file_name(name)]
    if unsafe:
        shown = ", ".join(printable(repr(name)) for name in unsafe)
        raise click.ClickException(
            f"the server sent file names that are not plain file names ({shown}): nothing was written"
        )
    out.mkdir(parents=True, exist_ok=True)
    for name, url in files.items():
        size = _run(lambda url=url, name=name: api.download(url=url, target=out / name))
        click.echo(f"{out / name}  {size:,} bytes")


def is_plain_file_name(name: object) -> bool:
    """A name that stays inside the folder it is joined to: no folders, no drive, no control characters.

    >>> [is_plain_file_name(n) for n in ("subtask1.jsonl", "../../x", "/etc/passwd", "C:x", "a\\b", "..", "")]
    [True, False, False, False, False, False, False]
    """
    return (
        isinstance(name, str)
        and name not in ("", ".", "..")
        and PurePosixPath(name).name == name
        and PureWindowsPath(name).name == name
        and name.isprintable()
    )
