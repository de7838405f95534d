"""ReCAM question generation from XSum article/summary pairs (task paper, section 3). Django-free.

Run ``python -m datagen --help``. The sub-packages follow the paper's pipeline: ``targets`` (§3.2-3.4),
``options`` (§3.5), ``quality`` (reports and benchmarks), ``cli`` (the commands); ``nlp``, ``xsum`` and
``overlap`` are the ground floor that all of them may use.
"""

from datagen import moved

moved.install()
