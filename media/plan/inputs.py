"""What the planner is given: the prepared photos and clips with the facts it orders and
frames them by (pure data; no pixels are read here, and no file is named: the render finds a
source's file by its id)."""

from __future__ import annotations

from dataclasses import dataclass

CLOSE_FACE_FRACTION = 0.22  # a face this tall (fraction of the photo's height) is a close shot
PARALLAX_MATTE_MIN = 0.5
"""A photo whose subject's matte scores less (:func:`media.frames.parallax.matte_quality`) is
doubtful: it never gets a parallax shot. The one threshold the planner and the render share."""


@dataclass(frozen=True)
class PhotoSource:
    """A prepared photo: an upright sRGB JPEG working copy (long edge <= 4096 pixels)."""

    id: str
    width: int
    height: int
    low_res: bool
    face_fraction: float = 0.0
    """Height of the largest face over the photo's height (0: none); see
    :mod:`media.analysis.arc`."""
    brightness: float = 0.5
    warmth: float = 0.0
    saturation: float = 0.0
    focus_x: float = 0.5
    """Centre of the photo's subject (faces, else the salient region), 0..1 of its width."""
    focus_y: float = 0.5
    """Centre of the photo's subject, 0..1 of its height."""
    hold_w: float = 0.0
    """Share of the photo's width every crop must hold: its faces with their margin (see
    :func:`media.analysis.framing.face_guard`); 0 without faces."""
    hold_h: float = 0.0
    """Share of the photo's height every crop must hold (as :attr:`hold_w`)."""
    possible_face: bool = False
    """Has a possible face (:attr:`media.analysis.subjects.Subject.possible`: the detector not
    sure of it), or is too small for the detector to have seen every face the film shows big
    (:func:`media.analysis.subjects.may_hide_faces`): never a person, but no dissolve lays it over
    a face
    (:func:`media.plan.shots.faces_apart`)."""
    matte: float = 0.0
    """How cleanly its subject comes off the background for parallax (0..1, the usable score of
    :func:`media.frames.parallax.matte_score`; 0 when unmeasured or doubtful)."""
    with_subject: bool = False
    """Shows the film's subject though it is not the subject photo: the same animal, found by
    feature match (:mod:`media.analysis.likeness`); faces count through :attr:`face_fraction`."""
    subject_box: tuple[float, float, float, float] | None = None
    """Where the subject is in it when :attr:`with_subject` (x0, y0, x1, y1, 0..1 of its width
    and height: :func:`media.analysis.likeness.where_subject`): a closer showing looks there."""

    @property
    def close(self) -> bool:
        """A close shot: a face at least :data:`CLOSE_FACE_FRACTION` of the photo's height."""
        return self.face_fraction >= CLOSE_FACE_FRACTION

    @property
    def orientation(self) -> str:
        """``portrait``, ``landscape`` or ``square`` (within 8%)."""
        if self.height > 1.08 * self.width:
            return "portrait"
        return "landscape" if self.width > 1.08 * self.height else "square"

    @property
    def glow(self) -> float:
        """How warm and bright the photo reads: the film ends on the photo with the most."""
        return self.brightness + self.warmth + 0.6 * self.saturation


@dataclass(frozen=True)
class ClipSource:
    """A prepared mezzanine clip: H.264 BT.709 30 fps CFR, long edge <= 1920 pixels.

    ``scores``: quality of the clip every ``score_step_s`` seconds (see
    :func:`media.intake.clip_analysis.frame_scores`); without them clip shots start mid-clip.
    """

    id: str
    duration_s: float
    width: int
    height: int
    has_audio: bool
    scores: tuple[float, ...] = ()
    score_step_s: float = 0.0


@dataclass(frozen=True)
class MotionClipSource:
    """A photo brought to motion by the motion provider (:mod:`media.plan.motion_clips`): a
    mezzanine clip of ``duration_s`` seconds, read by the photo's id ``photo_id``."""

    photo_id: str
    duration_s: float
