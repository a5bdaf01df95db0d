"""Picture analysis: what a picture shows and how to frame it: subjects (faces, pets, the
salient region), framing boxes per aspect, the camera move as data and how it reads (camera),
how much closer a repeat may look (scales), the crops that keep a close-up's faces whole when
nothing else frames it anew (safe_crops), a clip's best window, near-duplicate pictures, a
photo cut from another (crops), the same animal in another photo (likeness), and a photo's
traits for the film's arc.

``__all__`` names the modules other rooms may import; the rest are this room's own.
"""

__all__ = ["arc", "camera", "clip_window", "crops", "dedupe", "detail", "framing", "likeness",
           "safe_crops", "scales", "subjects", "words"]
