"""Type: the title and closing cards as specs, what they say (wording) and how long it must be
read (reading), their layout and text in any script (fonts, bidi, shaping), colours (and WCAG
contrast, which the gift page uses too), how they are drawn (backdrop, sprites, draw), how they
move (entrances: the registered type animations; motion; planes: the I420 compositing), and
the logo overlay.

``__all__`` names the modules other rooms may import; the rest are this room's own.
"""

__all__ = ["colour", "design", "draw", "entrances", "fonts", "motion", "overlay", "reading", "spec",
           "text", "wording"]
