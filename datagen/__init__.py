"""ReCAM question generation from XSum article/summary pairs (task paper, section 3). Django-free.

Run ``python -m datagen --help``.
"""
