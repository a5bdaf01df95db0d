"""The design, as data: the looks (one TOML file each in ``looks/``, their faces in ``fonts/``,
validated by the model in ``looks``: typography, type sizes, colours, type motion, pacing,
transitions, montage, layouts, grade), the type animations a look names (``entrances``, one
registered function each), how long words stay on screen to be read (``reading``), and the plain
values a look is written in (``values``: colours, styles, typeface keys). The engines (cards,
plan, frames) render any look; this room imports none of them.

``__all__`` names the modules other rooms may import; the rest are this room's own.
"""

__all__ = ["entrances", "looks", "reading", "values"]
