"""The task's baselines: the paper's readers (Appendices B-D) and a pretrained-encoder baseline. Django-free.

Run ``python -m baselines --help``.
"""
