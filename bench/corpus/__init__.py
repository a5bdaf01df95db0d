"""The order corpus (issue 42): hundreds of orders made the way customers send them, from the
licence-clear photos of the repository, with the ground truth the generator knows, and the
plan-level promises every one of them must keep.

Making it (``python -m bench.corpus.generate``, slow, cached): ``sources`` (the photos and
their face labels), ``transforms`` (what phones and scanners do to a photo, its face boxes
moved along), ``texts`` (what customers write), ``orders`` (the photo pool and the order
folders from a seed), ``analysis`` (intake and picture analysis per photo) and ``specs`` (each
order through the gate and the render stage's film spec), written by ``generate`` into the
fixture ``tests/fixtures/corpus/orders.jsonl.gz``.

Checking it (no photo decoded): ``fixture`` (reads it), ``framing`` (each shot's camera
rectangles per frame, as the renderer plans them), ``invariants`` (the promises) and
``report`` (pass rates and the worst orders; ``python -m bench.corpus.report``);
``tests/test_corpus.py`` runs them in ``make test``.
"""
