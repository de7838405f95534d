"""The fidelity command's markdown tables: per-loss rows per variant, and kept % side by side."""

from datagen.targets.pipeline import FATES

OUTCOMES = ("not-one-token", *FATES)


def markdown(rows_by_subtask: dict[int, list[dict]]) -> str:
    """The per-loss table (one row per subtask, file and --wsd choice)."""
    head = (
        "| subtask | file | variant | questions | " + " | ".join(OUTCOMES) + " | kept % | POS rule (kept) |"
    )
    lines = [head, "|" + "---|" * (len(OUTCOMES) + 6)]
    for subtask, rows in rows_by_subtask.items():
        for row in rows:
            cells = " | ".join(str(row["outcomes"][o]) for o in OUTCOMES)
            lines.append(
                f"| {subtask} | {row['file']} | {row['variant']} | {row['questions']} | {cells} "
                f"| {row['kept_fraction']:.1%} | {row['pos_rescued']} ({row['pos_rescued_kept']}) |"
            )
    return "\n".join(lines)


def side_by_side(rows_by_subtask: dict[int, list[dict]]) -> str:
    """Kept % per file (rows) and variant (columns: --wsd choices, "before"); the MRC ceiling."""
    choices = list(dict.fromkeys(row["variant"] for rows in rows_by_subtask.values() for row in rows))
    lines = ["| subtask | file | " + " | ".join(choices) + " |", "|" + "---|" * (len(choices) + 2)]
    for subtask, rows in rows_by_subtask.items():
        for file in dict.fromkeys(row["file"] for row in rows):
            kept = {row["variant"]: f"{row['kept_fraction']:.1%}" for row in rows if row["file"] == file}
            lines.append(f"| {subtask} | {file} | " + " | ".join(kept.get(c, "") for c in choices) + " |")
    for rows in rows_by_subtask.values():
        for row in rows:
            if "rating_ceiling" in row and row["variant"] == choices[0]:
                c = row["rating_ceiling"]
                lines.append(
                    f"\nSubtask 1 {row['file']}: {c['rated']} gold answers rated by MRC, "
                    f"{c['rated_below']} ({c['fraction']:.1%}) below the threshold (the ceiling of true ratings)"
                )
    return "\n".join(lines)
