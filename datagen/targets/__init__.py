"""Candidate targets (task paper §3.2-3.4): which summary words become the blank of a question.

* ``abstractness``, ``abstractness_model``, ``imperceptibility``: Subtask 1's scale (§3.2);
* ``lesk``, ``signature_lesk``, ``wsd``, ``nonspecificity``: Subtask 2's word senses and depth (§3.3);
* ``filters``, ``encoder``, ``contextual``: the filters of §3.4 and the contextual threshold;
* ``config``, ``resources``, ``pipeline``, ``shards``: a candidates run, its stages and its shards.
"""
