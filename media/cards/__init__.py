"""Type: the title and closing cards as specs, what they say (wording), their layout and text
in any script (fonts, bidi, shaping), colours (and WCAG contrast, which the gift page uses too),
how they are drawn (backdrop, sprites, draw), how they move (motion, playing the design room's
registered entrances; planes: the I420 compositing), and the logo overlay. What they look like
(the looks, the type animations, how long words are read) is the design room's.

``__all__`` names the modules other rooms may import; the rest are this room's own.
"""

__all__ = ["colour", "draw", "fonts", "motion", "overlay", "spec", "text", "wording"]
