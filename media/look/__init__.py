"""What a picture shows and how to frame it: faces (found as a phone finds them, with their
eyes-to-mouth cores), subjects (faces, pets, the salient region),
framing boxes per aspect, how much closer a repeat may look (scales), a clip"s best window,
near-duplicate pictures, the same animal in another photo (likeness), and a photo"s traits for
the film"s arc.

``__all__`` names the modules other rooms may import; the rest are this room's own.
"""

__all__ = ["arc", "clip_window", "dedupe", "detail", "framing", "likeness", "scales",
           "subjects", "words"]
