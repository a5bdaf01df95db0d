"""Pixels: every frame of the film composed from the timeline (each shot's sources prepared
ahead: photos, layouts, cards, clips; photo drawing, blending through the transitions, grade,
parallax with its matte and fill, the roll push, the chorus's light (leak), clip framing),
piped to one encoder per aspect, segments joined, and what each frame looked like recorded for
verify (signal).

``__all__`` names the modules other rooms may import; the rest are this room's own.
"""

__all__ = ["blend", "card_shots", "compose", "encode", "fill", "grade", "leak", "matte",
           "parallax", "photo_shots", "preparer", "render", "roll", "segments", "signal",
           "sources", "stall"]
