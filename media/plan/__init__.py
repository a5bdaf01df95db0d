"""The film as data: what the planner is given (inputs), the shot order and its arc, cuts
snapped to the song"s beats, camera moves per shot, layouts that show two photos at once, the
signature chorus montage (montage), and the frame-exact timeline.

``__all__`` names the modules other rooms may import; the rest are this room's own.
"""

__all__ = ["inputs", "layout_kinds", "layouts", "montage", "moves", "timeline", "transitions"]
