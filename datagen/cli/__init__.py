"""``python -m datagen``: one click group; each stage's commands live in their own module of this package.

The commands are thin (parse, call one function, print); the work is in ``datagen.targets``,
``datagen.options`` and ``datagen.quality``.
"""

import click

from datagen.cli import abstractness, bench, candidates, cloze, disto, options, overlap, quality


@click.group()
def main() -> None:
    """Build ReCAM questions from XSum article/summary pairs (task paper, section 3)."""


main.add_command(abstractness.abstractness)
main.add_command(candidates.candidates)
main.add_command(options.options)
main.add_command(quality.quality)
main.add_command(bench.distractors_bench)
main.add_command(overlap.overlap)
main.add_command(disto.disto)
main.add_command(cloze.cloth)
main.add_command(cloze.scde)
