"""Looks as data: one declarative TOML file per look (``looks/*.toml``) holds the design of a
film (its typography pair, type sizes as shares of the frame, colours, how the type comes in,
the transition set, the signature chorus montage, the pacing, the layouts that show two photos
at once and the grade); the engine (:mod:`media.cards.text`, :mod:`media.cards.draw`,
:mod:`media.cards.motion`, :mod:`media.plan.planner`, :mod:`media.plan.layouts`,
:mod:`media.plan.montage`) renders any look. Adding a look is adding one file.

A file is the look's ``gift`` design with ``[variants.brand]`` and ``[variants.social]`` tables
that override any part of it (merged key by key): :func:`look` resolves a name and a style to
one validated :class:`Look`. ``families`` name the occasion families it dresses
(:data:`media.cards.wording.FAMILY_BY_SLUG`); :func:`look_name_for` picks the look of a family.

The type animations a look names (:class:`Entrance`: ``settle``, ``rise``, ``fade``, ``land``
for the words, ``draw_line`` or ``fade`` for the accent rule) are registered functions of
:mod:`media.design.entrances`, where a new one is added; a name nobody registered is refused
when the look is read. Every entrance is over within the window the reading rules leave it
(:data:`media.design.reading.TITLE_IN_S`, :data:`media.design.reading.WORDS_IN_S`).
"""

from __future__ import annotations

import functools
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from media.design.entrances import RULE_ENTRANCES, TEXT_ENTRANCES
from media.design.reading import TITLE_IN_S, WORDS_IN_S
from media.design.values import RGB, STYLES, parse_hex, typeface

LOOK_DIR = Path(__file__).resolve().parent / "looks"
LOOK_FONT_DIR = Path(__file__).resolve().parent / "fonts"  # their faces
DEFAULT_LOOK = "celebration"  # a card that names no look and is not gentle
GENTLE_LOOK = "memorial"  # a gentle card that names no look
# How much wider a settling line may start than at rest: a line filling the text measure (the
# frame less 8 % margins each side, media.cards.text) still starts inside the frame.
SETTLE_GROWTH_MAX = 1.19


class _Data(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Face(_Data):
    """One face of the pair: a font ``file`` under ``fonts`` and the ``weight`` of
    the Noto fallback that draws what it cannot (other scripts, emoji)."""

    file: str
    fallback: Literal["bold", "regular"] = "bold"

    @field_validator("file")
    @classmethod
    def _exists(cls, file: str) -> str:
        if not (LOOK_FONT_DIR / file).is_file():
            raise ValueError(f"no font file {file!r} in {LOOK_FONT_DIR}")
        return file

    @property
    def key(self) -> str:
        """The typeface key the text engine draws with (:func:`media.cards.spec.typeface`)."""
        return typeface(LOOK_FONT_DIR / self.file, self.fallback)


class Typography(_Data):
    """The pair: a ``display`` face (names, greetings) and a ``text`` face (the rest)."""

    display: Face
    text: Face


class Size(_Data):
    """A type size as a share of the frame's height, per aspect."""

    landscape: float = Field(gt=0.0, lt=0.5)
    portrait: float = Field(gt=0.0, lt=0.5)


class Role(_Data):
    """How one kind of line is set: its ``face``, largest ``size``, at most ``max_lines``,
    letter ``tracking`` (em), all ``caps``, its palette ``colour``, line ``pitch`` (em), and
    with ``keep_phrase`` the words before its first comma stay on one line ("Happy birthday,"
    / "Marta", never "Happy" / "Birthday, Marta")."""

    face: Literal["display", "text"]
    size: Size
    max_lines: int = Field(ge=1, le=4)
    tracking: float = 0.0
    caps: bool = False
    colour: Literal["text", "secondary", "heading", "accent"] = "text"
    pitch: float = Field(default=1.2, ge=0.9, le=2.0)
    keep_phrase: bool = False


class Roles(_Data):
    """The lines of the cards: the opening's ``occasion`` and ``name``; the closing's
    ``greeting`` (with the name), the customer's ``message`` and the ``sign`` (who from); an
    interlude's one line (``interlude``; a look without one sets it as its ``message``)."""

    occasion: Role
    name: Role
    greeting: Role
    message: Role
    sign: Role
    interlude: Role | None = None

    @property
    def interlude_line(self) -> Role:
        """How an interlude's line is set: the look's ``interlude`` role, else its message."""
        return self.interlude or self.message


class Colours(_Data):
    """The card's colours (``#RRGGBB``): backdrop gradient ``top`` to ``bottom`` with a
    ``glow`` (its strength 0-1) and ``vignette``, the type (``text``, ``secondary``,
    ``heading``), the ``accent`` (the rule), the soft shadow's strength ``shadow``; a brand
    colour makes the backdrop at most ``brand_saturation`` saturated."""

    top: str
    bottom: str
    glow: str
    glow_strength: float = Field(ge=0.0, le=1.0)
    vignette: float = Field(ge=0.0, le=1.0)
    text: str
    secondary: str
    heading: str
    accent: str
    shadow: float = Field(ge=0.0, le=1.0)
    brand_saturation: float = Field(default=0.32, ge=0.0, le=1.0)

    @field_validator("top", "bottom", "glow", "text", "secondary", "heading", "accent")
    @classmethod
    def _hex(cls, value: str) -> str:
        parse_hex(value)
        return value

    def rgb(self, name: str) -> RGB:
        """The colour ``name`` as an RGB tuple."""
        return parse_hex(getattr(self, name))


class Entrance(_Data):
    """How a card's words come in (``text``: an animation of
    :data:`media.design.entrances.TEXT_ENTRANCES`): each word over
    ``seconds``, the next ``stagger_s`` later; ``rise`` (share of the frame's short side) they
    travel up; ``settle`` starts at ``scale_from`` and with the letters ``tracking_from`` (share
    of their distance from the line's centre) further apart; ``land`` starts at ``scale_from``,
    ``rise`` above its place, and overshoots its rest a little before it settles; the accent
    ``rule``'s entrance (:data:`media.design.entrances.RULE_ENTRANCES`)."""

    text: str
    seconds: float = Field(gt=0.0, le=WORDS_IN_S)
    stagger_s: float = Field(default=0.0, ge=0.0, le=0.5)
    rise: float = Field(default=0.0, ge=0.0, le=0.1)
    scale_from: float = Field(default=1.0, ge=0.8, le=1.3)
    tracking_from: float = Field(default=0.0, ge=0.0, le=0.4)
    rule: str = "fade"

    @field_validator("text")
    @classmethod
    def _registered_text(cls, name: str) -> str:
        if name not in TEXT_ENTRANCES:
            raise ValueError(f"no type animation {name!r}: one of {sorted(TEXT_ENTRANCES)}")
        return name

    @field_validator("rule")
    @classmethod
    def _registered_rule(cls, name: str) -> str:
        if name not in RULE_ENTRANCES:
            raise ValueError(f"no rule animation {name!r}: one of {sorted(RULE_ENTRANCES)}")
        return name

    @model_validator(mode="after")
    def _settles_inside_the_frame(self) -> Entrance:
        if self.scale_from * (1.0 + self.tracking_from) > SETTLE_GROWTH_MAX:
            raise ValueError(f"scale_from x (1 + tracking_from) must be at most "
                             f"{SETTLE_GROWTH_MAX}: a full-width line would leave the frame")
        return self


class Motion(_Data):
    """The cards' type animation: the ``opening``'s, the ``closing``'s and an
    ``interlude``'s entrance (the closing's when the look names none), and ``drift``: how much
    of the engine's slow hold motion (push-in, growth, float) they make."""

    opening: Entrance
    closing: Entrance
    interlude: Entrance | None = None
    drift: float = Field(default=1.0, ge=0.0, le=1.5)

    def entrance(self, kind: str) -> Entrance:
        """The entrance of a card of ``kind`` (:data:`media.cards.spec.KINDS`)."""
        if kind == "opening":
            return self.opening
        return self.interlude if kind == "interlude" and self.interlude else self.closing

    @model_validator(mode="after")
    def _within_reading_windows(self) -> Motion:
        if self.opening.seconds > TITLE_IN_S:
            raise ValueError(f"the opening's entrance must be over by {TITLE_IN_S} s")
        return self


class Rule(_Data):
    """The accent rule: ``length`` and ``thickness`` as shares of the frame's short side, set
    ``after`` the card's first block of lines (between its first two) or under the lines set
    in the display face (the name, the greeting)."""

    length: float = Field(ge=0.0, le=0.5)
    thickness: float = Field(gt=0.0, le=0.02)
    after: Literal["first", "display"] = "first"


class Pacing(_Data):
    """Shot lengths and transitions in seconds (see :class:`media.plan.pacing.Pacing`)."""

    shot_s: float = Field(gt=0.5)
    min_shot_s: float = Field(gt=0.5)
    clip_s: float = Field(gt=0.5)
    transition: str  # a transition registered in media.plan.transitions
    transition_s: float = Field(ge=0.0, le=2.0)
    fade_s: float = Field(ge=0.0, le=2.0)
    hold_s: float = Field(default=6.0, ge=2.0, le=7.0)
    """The longest a photo holds before any photo is shown a second time: 6 s, 7 s for a
    gentle look, shorter for a social cut."""


class Transitions(_Data):
    """The transition set by section of the song (see
    :class:`media.plan.moves.TransitionStyle`)."""

    chorus: str = "cut"  # a transition registered in media.plan.transitions
    dissolve_s: float = Field(default=0.6, ge=0.0, le=2.0)
    bridge_s: float = Field(default=0.9, ge=0.0, le=2.0)
    gentle_change_s: float = Field(default=1.6, ge=0.0, le=3.0)


class Montage(_Data):
    """What a signature film does with the song's chorus in this look (see
    :mod:`media.plan.montage`): cuts every ``beats`` beats (0: no montage), entered on its
    downbeat through a dissolve of ``light_s`` seconds under a warm light (0: none) of
    ``light_colour`` (``#RRGGBB``) whose core goes ``light_strength`` of the way to that
    colour's full brightness at the cut."""

    beats: int = Field(default=0, ge=0, le=8)
    light_s: float = Field(default=0.0, ge=0.0, le=2.0)
    light_colour: str = "#FFB36B"
    light_strength: float = Field(default=0.0, ge=0.0, le=1.0)

    @field_validator("light_colour")
    @classmethod
    def _hex(cls, value: str) -> str:
        parse_hex(value)
        return value


class Interlude(_Data):
    """The customer's words through a long film (see :mod:`media.plan.interludes`).

    A film gets one interlude for each of ``from_s`` it reaches (seconds; none below the
    first), each holding one line whose words need at most ``hold_max_s`` to read; every card
    (opening, interlude, closing) has at least ``pictures_between_s`` of pictures between it and
    the next, the interludes together take at most ``share_max`` of the film between the
    opening and the closing, and the photo behind one is not shown in a picture shot within
    ``photo_apart_s`` of it. Its words sit ``text_y`` down the text's safe area (low: the
    faces, usually high in a photo, stay clear); its photo is softened by ``blur`` (share of
    the short side; sharper than the closing's backdrop: the picture still reads), dimmed to
    at most ``brightness`` (mean luma, 0-255) and shaded more where the words sit."""

    from_s: tuple[float, ...] = (60.0, 120.0)
    hold_max_s: float = Field(default=10.0, gt=0.0, le=15.0)
    pictures_between_s: float = Field(default=12.0, ge=2.0)
    share_max: float = Field(default=0.25, ge=0.0, le=0.5)
    photo_apart_s: float = Field(default=10.0, ge=0.0)
    blur: float = Field(default=0.004, ge=0.0, le=0.05)
    brightness: float = Field(default=78.0, ge=20.0, le=160.0)
    text_y: float = Field(default=0.72, ge=0.0, le=1.0)
    short_words: int = Field(default=4, ge=0, le=12)
    """A line of at most this many words (the feeling words, a short song line) is set
    ``short_scale`` times larger: thin small type over a busy photo read back too little."""
    short_scale: float = Field(default=1.5, ge=1.0, le=2.5)


class OverPhoto(_Data):
    """How a card's words sit over its photo, shown sharp and moving (the title, the closing
    and the interludes; see :mod:`media.cards.scrim`, :mod:`media.frames.sources`).

    The block of words is centred ``opening_y`` / ``closing_y`` down the text's safe area (an
    interlude: its ``text_y``), then moved off the photo's subject
    (:func:`media.analysis.words.clear_of_subject`). Under the words a scrim keeps them readable
    without blurring the photo: a soft ``band`` across the frame centred on the words (how
    much of the light it takes at its middle, 0-1), reaching ``band_reach`` of the frame's
    height past the words' edges and fading out as far again, a ``pool`` of shade hugging the
    words (0-1), and a ``vignette`` (0-1, at the corners). The words' soft shadow is
    ``shadow`` strong (0-1; over a busy picture stronger than on a card's calm backdrop) and
    ``shadow_spread`` times the look's ``shadow_blur`` wide: a halo the eye and a phone's
    small screen find the letters' edges by."""

    opening_y: float = Field(default=0.62, ge=0.0, le=1.0)
    closing_y: float = Field(default=0.6, ge=0.0, le=1.0)
    band: float = Field(default=0.4, ge=0.0, le=0.85)
    band_reach: float = Field(default=0.08, ge=0.0, le=0.4)
    pool: float = Field(default=0.3, ge=0.0, le=0.85)
    vignette: float = Field(default=0.25, ge=0.0, le=0.7)
    words_light: float = Field(default=64.0, ge=20.0, le=255.0)
    """The light (luma 0-255 of the brightest twentieth) the scrim leaves behind the words: over
    a brighter picture its band and pool deepen (:class:`media.cards.scrim.Scrim`)."""
    shadow: float = Field(default=0.9, ge=0.0, le=1.0)
    shadow_spread: float = Field(default=1.5, ge=0.5, le=4.0)
    drift: float = Field(default=0.0, ge=0.0, le=1.5)
    """How much of the engine's slow hold motion the words make over a photo (the look's
    ``motion.drift`` on a card's still backdrop): none by default, the photo's camera move is
    the motion and the words hold still where they are read."""


class TitleSequence(_Data):
    """The signature tier's title: a short sequence cut on the song's beats before the
    lockup over the subject photo. The occasion alone over one photo (set ``occasion_scale``
    times its lockup size, coming in with ``occasion``), then the name alone over another
    (``name_scale``, ``name``), each held ``lead_beats`` beats and at least ``lead_min_s``
    seconds, hard cuts between them; then the whole title over the subject photo, held as
    reading needs (:data:`media.design.reading.TITLE_HOLD_S`). The occasion alone is tracked
    ``occasion_tracking``."""

    lead_beats: int = Field(default=2, ge=1, le=8)
    occasion_tracking: float = Field(default=0.08, ge=0.0, le=0.4)
    """The occasion's letter spacing (em) when it stands alone, large: tracked as wide as
    in the lockup's small caps, its letters fall apart into single letters."""
    lead_min_s: float = Field(default=1.0, ge=0.5, le=3.0)
    occasion_scale: float = Field(default=1.8, ge=1.0, le=3.0)
    name_scale: float = Field(default=1.1, ge=0.8, le=1.6)
    occasion: Entrance = Entrance(text="rise", seconds=0.45, stagger_s=0.08, rise=0.04)
    name: Entrance = Entrance(text="land", seconds=0.5, scale_from=1.15, rise=0.03)


class Layouts(_Data):
    """How the look shows two or three photos at once (see :mod:`media.plan.layouts`): the
    share of repeat showings that share the frame though they could show something new alone
    (``split_share``), the layouts a repeat may become, most wanted first (``kinds``: a
    repeat takes the least used that fits), whether tall photos pair in 16:9
    (``portrait_pairs``), the ``gutter`` between cells (its width as a share of the frame's
    short side) in the palette colour ``gutter_colour``, an inset print's share of the frame's
    area (``inset_area``) and its frame (``inset_border``, a share of the short side, in the
    gutter's colour), the longest a photo shot may hold on average when the film leaves out
    repeats that would show the same picture again (``hold_max_s``, seconds), and how much
    longer a shot holds for each photo beside its own (``hold_per_photo``: a split 1.3x a
    single shot's nominal length, a triptych 1.6x)."""

    split_share: float = Field(default=0.5, ge=0.0, le=1.0)
    kinds: tuple[str, ...] = ("triptych", "split", "inset")  # in media.plan.layout_kinds
    portrait_pairs: bool = True
    gutter: float = Field(default=0.008, ge=0.0, le=0.03)
    gutter_colour: Literal["top", "bottom", "glow", "text", "secondary", "heading",
                           "accent"] = "top"
    inset_area: float = Field(default=0.24, ge=0.15, le=0.45)
    inset_border: float = Field(default=0.012, ge=0.004, le=0.03)
    hold_max_s: float = Field(default=10.0, ge=4.0, le=12.0)
    hold_per_photo: float = Field(default=0.3, ge=0.0, le=1.0)


class Look(_Data):
    """One look in one style (``gift``, ``brand`` or ``social``), validated."""

    name: str
    style: str
    families: tuple[str, ...]
    typography: Typography
    roles: Roles
    colours: Colours
    motion: Motion
    rule: Rule
    shadow_blur: float = Field(default=0.008, gt=0.0, le=0.05)  # share of the short side
    social_safe: bool = False  # text keeps out of a feed's top and bottom bands (9:16 UI)
    pacing: Pacing
    transitions: Transitions = Transitions()
    montage: Montage = Montage()
    layouts: Layouts = Layouts()
    grade: Literal["natural", "gentle"] = "natural"
    interlude: Interlude = Interlude()
    over_photo: OverPhoto = OverPhoto()
    title_sequence: TitleSequence = TitleSequence()

    def face(self, role: Role) -> str:
        """The typeface key of ``role``'s face."""
        return getattr(self.typography, role.face).key

    def entrance(self, kind: str, part: str = "") -> Entrance:
        """How the words of a card of ``kind`` come in; a title sequence's lead ``part``
        (:data:`media.cards.spec.PARTS`) comes in as its :class:`TitleSequence` says."""
        if part:
            return getattr(self.title_sequence, part)
        return self.motion.entrance(kind)


def _merged(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``over``'s keys laid on it, table by table."""
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merged(out[key], value)
        else:
            out[key] = value
    return out


def read_look(path: Path, style: str) -> Look:
    """The look in ``path`` (a TOML file) resolved for ``style``: its gift design with the
    style's variant table laid over it; ValueError (pydantic's) when it does not validate."""
    if style not in STYLES:
        raise ValueError(f"style must be one of {STYLES}, not {style!r}")
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    variants = data.pop("variants", {})
    unknown = set(variants) - set(STYLES)
    if unknown:
        raise ValueError(f"{path.name}: unknown variants {sorted(unknown)}")
    return Look.model_validate({**_merged(data, variants.get(style, {})), "name": path.stem,
                                "style": style})


def look_names(directory: Path = LOOK_DIR) -> tuple[str, ...]:
    """Every look in ``directory``: one per ``*.toml`` file, by file name."""
    return tuple(sorted(p.stem for p in directory.glob("*.toml")))


@functools.lru_cache(maxsize=64)
def look(name: str, style: str = "gift", directory: Path = LOOK_DIR) -> Look:
    """The look called ``name`` in ``style`` (cached); ValueError when there is none."""
    path = directory / f"{name}.toml"
    if not path.is_file():
        raise ValueError(f"no look {name!r} in {directory}")
    return read_look(path, style)


def look_name_for(family: str, directory: Path = LOOK_DIR) -> str:
    """The look that dresses the occasion ``family`` (the first by name that lists it), else
    :data:`DEFAULT_LOOK`."""
    for name in look_names(directory):
        if family in look(name, "gift", directory).families:
            return name
    return DEFAULT_LOOK
