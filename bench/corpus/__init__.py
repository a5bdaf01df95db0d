"""The order corpus (issue 42): hundreds of orders made the way customers send them, from the
licence-clear photos of the repository, with the ground truth the generator knows, and the
plan-level invariants every one of them must keep.

``sources`` (the photos and their face labels), ``transforms`` (what phones and scanners do to
a photo, its face boxes moved along), ``generate`` (the photo pool and the order folders, from a
seed, into a cache directory), ``analysis`` (intake and picture analysis per photo, cached by
content), ``planning`` (the one adapter to the planner), ``framing`` (each shot's camera
rectangles per frame, as the renderer plans them, without pixels), ``invariants`` (the checks)
and ``report`` (pass rates and the worst orders; ``python -m bench.corpus.report``).
"""
