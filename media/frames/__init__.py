"""Pixels: every frame of the film composed from the timeline (sources prepared per shot,
compose, grade, parallax, the chorus's light (leak), clip framing), piped to one encoder per
aspect, segments joined, and what each frame looked like recorded for verify (signal).

``__all__`` names the modules other rooms may import; the rest are this room's own.
"""

__all__ = ["compose", "encode", "grade", "leak", "parallax", "render", "segments", "signal",
           "sources"]
