"""Pixels: every frame of the film composed from the timeline (sources prepared per shot,
compose, grade, parallax, clip framing), piped to one encoder per aspect, segments joined,
and what each frame looked like recorded for verify (signal).

``__all__`` names the modules other rooms may import; the rest are this room's own.
"""

__all__ = ["compose", "encode", "grade", "parallax", "render", "segments", "signal", "sources"]
