"""Plain-text rendering of the API's JSON for a terminal."""

from collections.abc import Sequence


def table(rows: Sequence[dict], columns: Sequence[str] | None = None) -> str:
    """A fixed-width table of ``rows`` (dicts), one column per key.

    >>> print(table([{"rank": 1, "team": "a"}, {"rank": 2, "team": "bb"}]))
    rank  team
    ----  ----
    1     a
    2     bb
    """
    if not rows:
        return "(none)"
    columns = list(columns or rows[0].keys())
    cells = [[_cell(row.get(c)) for c in columns] for row in rows]
    widths = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(columns)]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip(),
        "  ".join("-" * w for w in widths),
    ]
    lines += ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip() for r in cells]
    return "\n".join(lines)


def _cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4f}"
    if isinstance(value, bool):
        return "yes" if value else ""
    return str(value)


def submission(sub: dict) -> str:
    """Status, validity and scores of one submission."""
    lines = [
        f"submission {sub.get('id')} ({sub.get('phase')}, team {sub.get('team')}): {sub.get('status')}",
    ]
    if sub.get("system_name"):
        lines.append(f"system: {sub['system_name']}")
    if sub.get("sha256"):
        lines.append(f"sha256: {sub['sha256']}")
    if sub.get("failure_reason"):
        lines.append(f"reason: {sub['failure_reason']}")
    for file in sub.get("files") or []:
        lines.append(
            f"file {file.get('name')}: subtask {file.get('subtask')}, trained on subtask "
            f"{file.get('trained_on')}, {file.get('num_predictions')} predictions"
        )
    queue = sub.get("queue") or {}
    if queue.get("position"):
        eta = queue.get("eta_seconds")
        lines.append(
            f"queue: place {queue['position']} ({queue.get('ahead')} ahead)"
            + (f", estimated {eta:.0f} s until scored" if eta is not None else ", no estimate yet")
        )
    if sub.get("validity"):
        lines.append(sub["validity"])
    if sub.get("counted"):
        lines.append(sub["counted"])
    if sub.get("results_hidden"):
        lines.append("scores are hidden until the organizers publish the results")
    scores = sub.get("scores") or []
    if scores:
        lines.append(table(scores, ["test_subtask", "trained_on_subtask", "correct", "total", "accuracy"]))
    return "\n".join(lines)


def leaderboard(board: dict) -> str:
    lines = [f"leaderboard: {board.get('competition')} / {board.get('phase')}"]
    if board.get("results_hidden"):
        lines.append("results are hidden until the organizers publish them")
    for section in board.get("tables") or []:
        lines += [
            "",
            section.get("title") or f"Subtask {section.get('subtask')}",
            table(section.get("rows") or []),
        ]
    return "\n".join(lines)
