"""The original song: planned from the brief, arranged, played on sampled instruments,
mixed and mastered to the delivery loudness, scored when there are candidates; a provider"s
song imported; audio decode and loudness; the film"s soundtrack mixed with the clips" sound.

``__all__`` names the modules other rooms may import; the rest are this room's own.
"""

__all__ = ["audio", "compose", "imported", "lyrics", "score", "soundtrack"]
