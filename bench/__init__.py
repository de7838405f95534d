"""The benchmarks, run by ``python -m bench`` (``make bench``); results go to bench/results/.

(a) floor: parse + score one 2,025-line file in process (recam.submission + recam.metrics)
(b) upload to score visible through HTTP with a real worker (hook: bench/upload.py)
(c) leaderboard requests per second from gunicorn, 200 teams x 10 submissions (bench/serve.py)
(d) database queries per leaderboard page as teams grow (bench/queries.py)
"""
