"""Customer media in: photos verified by their bytes and decoded in a sandbox, turned upright
and sRGB, judged showable (``usable``: not blank, black, a sliver or a thumbnail), measured and
restored; clips probed, normalized to a mezzanine and scored; the brand logo decoded safely. A
clip's limits are checked in ``clip_checks``.

``__all__`` names the modules other rooms may import; the rest are this room's own.
"""

__all__ = ["clip_analysis", "clip_checks", "clips", "logo", "restore", "sandbox"]
