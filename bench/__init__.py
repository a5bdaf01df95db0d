"""Benchmarks of the film render pipeline (scripts that print figures; never timed tests).

Run from the repository root, e.g. ``.venv/bin/python -m bench.pipeline_bench --quick``.
"""
