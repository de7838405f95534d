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
    cells = [[_cell(row.get(c), c) for c in columns] for row in rows]
    widths = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(columns)]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip(),
        "  ".join("-" * w for w in widths),
    ]
    lines += ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip() for r in cells]
    return "\n".join(lines)


def percent(value: float | None) -> str:
    """Accuracy as the site prints it: 0.87814 -> '87.81' (points, two decimals); None -> '-'."""
    return "-" if value is None else f"{100 * value:.2f}"


def printable(text: object) -> str:
    r"""Text from the server as a terminal can show it safely: control and invisible characters (escape
    sequences, bidirectional overrides, zero-width spaces) written as ``\xNN`` or ``\uNNNN``.

    >>> print(printable("\x1b]0;pwned\x07Owls\u200b"), printable("Équipe 7"))
    \x1b]0;pwned\x07Owls\u200b Équipe 7
    """
    return "".join(char if char.isprintable() else _escaped(char) for char in str(text))


def _escaped(char: str) -> str:
    return f"\\x{ord(char):02x}" if ord(char) < 256 else f"\\u{ord(char):04x}"


def _cell(value: object, column: str = "") -> str:
    if value is None:
        return "-"
    if column.endswith("accuracy") and isinstance(value, (int, float)) and not isinstance(value, bool):
        return percent(value)
    if isinstance(value, float):
        return f"{value:.4f}"
    if isinstance(value, bool):
        return "yes" if value else ""
    return printable(value)


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
        lines += table(scores, ["test_subtask", "trained_on_subtask", "correct", "total", "accuracy"]).split(
            "\n"
        )
    return "\n".join(printable(line) for line in lines)  # names and reasons come from the server


def _compact(row: dict) -> dict:
    team = row.get("team", "") + (" (baseline)" if row.get("is_baseline") else "")
    cross = percent(row.get("cross_accuracy"))
    if row.get("drop") is not None:
        cross += f" (↓{100 * row['drop']:.2f})" if row["drop"] >= 0 else f" (↑{-100 * row['drop']:.2f})"
    return {"rank": row.get("rank"), "team": team, "acc": percent(row.get("accuracy")), "acc. cross": cross}


def leaderboard(board: dict) -> str:
    """The site's board in four columns: Rank, Team, Acc, Acc. Cross (with the drop), in points.

    >>> rows = [{"rank": 1, "team": "a", "accuracy": 0.87814, "cross_accuracy": 0.8, "drop": 0.07814}]
    >>> print(leaderboard({"competition": "c", "phase": "p", "tables": [{"title": "ST1", "rows": rows}]}))
    leaderboard: c / p
    <BLANKLINE>
    ST1
    rank  team  acc    acc. cross
    ----  ----  -----  -------------
    1     a     87.81  80.00 (↓7.81)
    """
    lines = [printable(f"leaderboard: {board.get('competition')} / {board.get('phase')}")]
    if board.get("results_hidden"):
        lines.append("results are hidden until the organizers publish them")
    for section in board.get("tables") or []:
        rows = [_compact(row) for row in section.get("rows") or []]
        lines += ["", printable(section.get("title") or f"Subtask {section.get('subtask')}"), table(rows)]
    return "\n".join(lines)
