"""The film as data: the film spec (what the planner is given: spec, inputs), the planner
(planner: a spec in, a timeline out; film reads the spec once), its steps (pacing from the look,
the title sequence, the middle's slots and cuts, the shots' transitions and moves), the shot
order and its arc, cuts snapped to the song's beats, camera moves per shot, layouts that show
two photos at once, the interludes, the signature chorus montage (montage), the motion
provider's clips (motion_clips: which photos, how long, which shots), and the frame-exact
timeline.

``__all__`` names the modules other rooms may import; the rest are this room's own.
"""

__all__ = ["beat_snap", "inputs", "layout_kinds", "layouts", "montage", "motion_clips", "moves",
           "pacing", "planner", "spec", "timeline", "transitions"]
