"""``python -m datagen``: one click group; each stage's commands live in their own module."""

import click

from datagen.cli_abstractness import abstractness
from datagen.cli_bench import distractors_bench
from datagen.cli_candidates import candidates
from datagen.cli_options import options
from datagen.cli_overlap import overlap
from datagen.cli_quality import quality


@click.group()
def main() -> None:
    """Build ReCAM questions from XSum article/summary pairs (task paper, section 3)."""


main.add_command(abstractness)
main.add_command(candidates)
main.add_command(options)
main.add_command(quality)
main.add_command(distractors_bench)
main.add_command(overlap)
