"""What a picture shows and how to frame it: subjects (faces, pets, the salient region),
framing boxes per aspect, a clip"s best window, near-duplicate pictures, and a photo"s
traits for the film"s arc.

``__all__`` names the modules other rooms may import; the rest are this room's own.
"""

__all__ = ["arc", "clip_window", "dedupe", "detail", "framing", "subjects", "words"]
