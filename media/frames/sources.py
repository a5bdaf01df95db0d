"""Sources of a render: each shot's frames in every aspect, prepared ahead of the frame loop.

A photo is decoded once (:func:`load_photo`), its subject found and its moves planned, its
pre-scaled copies shared by the shots and aspects that show it, and freed after its last shot;
every picture gets the film's colour grade (:mod:`media.frames.grade`) once, as it is decoded (in
RGB), and is converted once to the film's I420 planes (:mod:`media.base.yuv`): every shot's frames
are I420, as the encoders take them;
a split shot shows two photos, each in its half (:mod:`media.frames.split`); a card is drawn
over its photo; a clip shot gets its decoder
(:class:`media.frames.encode.ClipReader`)
and is framed like a photo (:mod:`media.frames.clip_framing`, planned from one sample frame).
:class:`SourcePreparer` builds these :class:`Prepared` shots on a helper thread.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

from media.base import heap, spec, yuv
from media.base.runner import Limits, ToolError
from media.cards import design
from media.cards.draw import CardImage, render_card_image, render_words_over, words_wanted
from media.cards.motion import card_frame, words_over_frame
from media.cards.spec import CardSpec
from media.frames.clip_framing import ClipFraming, cover_framing, frame_clip, plan_clip_framing
from media.frames.compose import (
    PhotoLayer,
    PrescaledI420,
    prescale_factor,
    prescale_i420,
)
from media.frames.encode import ClipReader, probe_size, sample_frame
from media.frames.grade import Grade, apply_grade, grade_named
from media.frames.parallax import (
    ParallaxLayer,
    ParallaxLayers,
    RollPushLayer,
    ScaledLayers,
    Separation,
    cut_subject,
    layers_from_cut,
    scale_layers,
)
from media.frames.split import (
    Box as CellBox,
)
from media.frames.split import (
    SplitLayer,
    between,
    clear_of,
    colour_yuv,
    focus_on_frame,
    gutter_width,
    half_aspect,
    half_move,
    partner_move,
    ring,
    split_boxes,
    stagger_frames,
    still_crop,
    triptych_boxes,
)
from media.look.camera import STEADY_SHARE, Motion, steady_share
from media.look.detail import ShowingFrame, showing_frame, texture_map, whole_motion
from media.look.framing import KEEP_MIN, MoveRequest, plan_ken_burns
from media.look.subjects import Box, Subject, find_subject, keep_whole, union
from media.look.words import clear_of_subject, words_keep_off
from media.plan.layouts import INSET, TRIPTYCH, inset_ratio, splits_in
from media.plan.moves import FRAMING_MOVE
from media.plan.timeline import (
    FULL_MOTIONS,
    PARALLAX,
    ROLL,
    Shot,
    Timeline,
    transition_frames,
)

ShotLayer = PhotoLayer | ParallaxLayer | RollPushLayer | SplitLayer  # a photo shot, one aspect
SOCIAL_PORTRAIT_KEEP_MIN = 0.3  # social 9:16 crops down to 30% of a photo (fuller frames)


def load_photo(path: Path) -> np.ndarray:
    """A photo working copy as uint8 RGB (H, W, 3)."""
    with Image.open(path) as image:
        return np.asarray(image.convert("RGB"))


class Prepared:
    """A shot's frames in every aspect (see :meth:`frame`)."""

    def frame(self, aspect: spec.Aspect, index: int) -> np.ndarray:
        """Frame ``index`` (0-based within the shot) for ``aspect``, I420 (see
        :mod:`media.base.yuv`); callers must not write to it (a held frame is returned again)."""
        raise NotImplementedError

    def close(self) -> None:
        """Release processes and memory."""


class PreparedCard(Prepared):
    """A card in motion over its ``frames`` on screen (see :mod:`media.cards.motion`): its words
    come in from frame ``delay`` (frames into the shot), or are all there from the first frame
    when ``delay`` is None (the opening card); with ``exit_frame`` they are gone by that frame
    (where the picture under them starts to change)."""

    def __init__(self, images: dict[str, CardImage], delay: int | None, frames: int,
                 exit_frame: int | None = None) -> None:
        self.images = images
        self.delay = delay
        self.frames = frames
        self.exit_frame = exit_frame

    def frame(self, aspect: spec.Aspect, index: int) -> np.ndarray:
        entrance = None if self.delay is None else self.delay / spec.FPS
        exit_at = None if self.exit_frame is None else self.exit_frame / spec.FPS
        return card_frame(self.images[aspect.name], index / spec.FPS, self.frames / spec.FPS,
                          entrance, exit_at)


class PreparedWordsOver(PreparedCard):
    """A card whose words lie over its photo, shown sharp and moving (see
    :func:`media.cards.draw.render_words_over`): per aspect the photo's layer (an ordinary
    photo shot's, with its camera move) and the words (their scrim, placement and motion)."""

    def __init__(self, layers: dict[str, ShotLayer], images: dict[str, CardImage],
                 delay: int | None, frames: int, exit_frame: int | None = None) -> None:
        super().__init__(images, delay, frames, exit_frame)
        self.layers = layers

    def frame(self, aspect: spec.Aspect, index: int) -> np.ndarray:
        entrance = None if self.delay is None else self.delay / spec.FPS
        exit_at = None if self.exit_frame is None else self.exit_frame / spec.FPS
        layer = self.layers[aspect.name]
        if isinstance(layer, PhotoLayer):  # the photo drawn straight into the card's frame
            picture = np.empty(yuv.frame_shape(aspect.width, aspect.height), np.uint8)
            layer.draw(index, yuv.planes(picture))
            own = True
        else:
            picture, own = layer.frame(index), False
        return words_over_frame(self.images[aspect.name], picture, index / spec.FPS,
                                self.frames / spec.FPS, entrance, exit_at, own=own)


class PreparedPhoto(Prepared):
    """A photo shot: one :class:`PhotoLayer` (or a premium :class:`ParallaxLayer` or
    :class:`RollPushLayer`) per aspect."""

    def __init__(self, layers: dict[str, ShotLayer]) -> None:
        self.layers = layers

    def frame(self, aspect: spec.Aspect, index: int) -> np.ndarray:
        return self.layers[aspect.name].frame(index)


class PreparedSplit(PreparedPhoto):
    """A split shot (:mod:`media.plan.layouts`): a :class:`media.frames.split.SplitLayer` (two
    photos, each in its own half) in each aspect the layout splits, the shot's own photo alone
    in the others."""


class PreparedClip(Prepared):
    """A clip shot: one decoder shared by the aspects; its last frame holds if it runs short.
    The decoder gives I420 frames, or RGB ones when the film has a colour grade (graded in RGB,
    then converted)."""

    def __init__(self, reader: ClipReader, deadline: float,
                 framings: dict[str, ClipFraming] | None = None,
                 grade: Grade | None = None) -> None:
        self.reader = reader
        self.deadline = deadline
        self.framings = framings or {}
        self.grade = grade or Grade()
        self._index = -1
        self._decoded: np.ndarray | None = None
        self._covered: dict[str, np.ndarray] = {}

    def frame(self, aspect: spec.Aspect, index: int) -> np.ndarray:
        while self._index < index:
            decoded = self.reader.next(self.deadline)
            self._index += 1
            if decoded is not None:
                if decoded.ndim == 3:  # RGB: the grade, then the film's planes
                    decoded = yuv.rgb_to_i420(apply_grade(decoded, self.grade))
                self._decoded, self._covered = decoded, {}
            elif self._decoded is None:
                raise ToolError("clip decoder produced no frames", None, "")
            else:
                self._index = index  # held: the clip ran out
        assert self._decoded is not None
        if aspect.name not in self._covered:
            framing = self.framings.get(aspect.name)
            self._covered[aspect.name] = frame_clip(
                self._decoded, framing if framing is not None
                else cover_framing(yuv.frame_size(self._decoded), aspect))
        return self._covered[aspect.name]

    def close(self) -> None:
        self.reader.close()


@dataclass
class _Photo:
    """A decoded photo kept while shots still need it, with its pre-scaled copies."""

    image: np.ndarray
    subject: Subject
    uses: int
    scaled: dict[float, PrescaledI420] = field(default_factory=dict)
    layers: ParallaxLayers | None = None
    separated: str | None = None  # None: not tried yet; "" ok; else why parallax fell back
    scaled_layers: dict[float, ScaledLayers] = field(default_factory=dict)
    cut: np.ndarray | None = None  # the subject's cut (parallax.cut_subject), until layered
    verdict: Separation | None = None

    def prescaled(self, factor: float) -> PrescaledI420:
        """The photo pre-scaled by ``factor`` as I420 planes (computed once, then shared)."""
        if factor not in self.scaled:
            self.scaled[factor] = prescale_i420(self.image, factor)
        return self.scaled[factor]

    def parallax(self, factor: float) -> ScaledLayers | None:
        """The photo's parallax layers pre-scaled by ``factor`` (built once per photo from the
        subject's cut, :attr:`cut`, on the graded picture), or None when the separation was
        poor (see :attr:`separated`)."""
        if self.layers is None and self.cut is not None and self.verdict is not None:
            self.layers = layers_from_cut(self.image, self.cut, self.verdict)
            self.cut = None
        if self.layers is None:
            return None
        if factor not in self.scaled_layers:
            self.scaled_layers[factor] = scale_layers(self.layers, factor)
        return self.scaled_layers[factor]


_Separated = tuple[ParallaxLayers | None, str | None, np.ndarray | None, Separation | None]
"""A photo's parallax kept between its shots: its layers, why it has none ("" when it has
them), and its subject's cut and verdict until the layers are built from them."""


def _on_frame(box: Box | None, photo_shape: tuple[int, ...], layer: ShotLayer) -> Box | None:
    """Where ``box`` (normalized, of the photo) passes on the frame over ``layer``'s move:
    the union of where it sits at the move's start, middle and end (normalized, of the frame,
    clipped to it); None without a box, or when it never shows."""
    motion = getattr(layer, "motion", None)
    if box is None or motion is None:
        return box
    height, width = photo_shape[:2]
    x0, y0, x1, y1 = box.to_pixels(width, height)
    seen = []
    for frame in (0, motion.frames // 2, motion.frames - 1):
        rect = motion.rect_at(frame)
        seen.append(Box(max(0.0, (x0 - rect.x) / rect.w), max(0.0, (y0 - rect.y) / rect.h),
                        min(1.0, (x1 - rect.x) / rect.w), min(1.0, (y1 - rect.y) / rect.h)))
    seen = [b for b in seen if b.x1 > b.x0 and b.y1 > b.y0]
    return union(tuple(seen)) if seen else None


def card_photo(timeline: Timeline, index: int) -> str | None:
    """The photo behind card ``index``: the one it names (an interlude's); the first photo
    shot for the opening card; for the closing card the subject's photo (the recipient, the
    pet), else the last photo shot."""
    if timeline.shots[index].source_id is not None:
        return timeline.shots[index].source_id
    ids = [s.source_id for s in timeline.shots if s.kind == "photo"]
    if index != 0 and timeline.subject_photo_id is not None:
        return timeline.subject_photo_id
    if not ids:
        return None
    return ids[0] if index == 0 else ids[-1]


def shot_photo(timeline: Timeline, index: int) -> str | None:
    """The photo shot ``index`` shows (its own, or the one behind a card), if any."""
    shot = timeline.shots[index]
    if shot.kind == "photo":
        return shot.source_id
    return card_photo(timeline, index) if shot.kind == "card" else None


def shots_in(timeline: Timeline, frames: tuple[int, int]) -> range:
    """Indices of the shots visible in the frames ``[start, stop)`` (shots are in film order)."""
    start, stop = frames
    visible = [i for i, s in enumerate(timeline.shots)
               if s.visible_in < stop and s.visible_out > start]
    return range(visible[0], visible[-1] + 1) if visible else range(0)


def shot_photos(timeline: Timeline, index: int) -> tuple[str, ...]:
    """Every photo shot ``index`` shows: :func:`shot_photo`, and a layout's partners."""
    shot = timeline.shots[index]
    photos = (shot_photo(timeline, index), shot.partner_id, shot.second_partner_id)
    return tuple(p for p in photos if p is not None)


def sources_for(timeline: Timeline,
                frames: tuple[int, int] | None = None) -> tuple[set[str], set[str]]:
    """Ids of the photos and the clips that rendering ``frames`` (default: the whole film)
    reads: what a worker rendering one segment must fetch."""
    shots = shots_in(timeline, frames or (0, timeline.total_frames))
    photos = {p for i in shots for p in shot_photos(timeline, i)}
    clips = {timeline.shots[i].source_id or "" for i in shots
             if timeline.shots[i].kind == "clip"}
    return photos, clips


class SourcePreparer:
    """Builds :class:`Prepared` shots (on a helper thread) and keeps photos while needed."""

    def __init__(self, timeline: Timeline, aspects: tuple[spec.Aspect, ...],
                 photo_paths: dict[str, Path], clip_paths: dict[str, Path], deadline: float,
                 subjects: Mapping[str, Subject] | None = None,
                 logo: np.ndarray | None = None, shots: range | None = None) -> None:
        self.timeline = timeline
        self.shots = shots if shots is not None else range(len(timeline.shots))
        self.subjects = dict(subjects or {})
        self.logo = logo
        self.aspects = aspects
        self.photo_paths = photo_paths
        self.clip_paths = clip_paths
        self.deadline = deadline
        self._photos: dict[str, _Photo] = {}
        self._separations: dict[str, _Separated] = {}
        self._layered = {s.source_id for i in self.shots
                         if (s := timeline.shots[i]).motion == PARALLAX and s.source_id}
        self.notes: list[str] = []  # what a reader of the render should know (fallbacks)
        self._uses = self._count_uses()
        self._lock = threading.Lock()
        self._clip_sizes: dict[str, tuple[int, int]] = {}
        self.grade = grade_named(timeline.grade)

    def _card_photo(self, index: int) -> str | None:
        return card_photo(self.timeline, index)

    def _count_uses(self) -> dict[str, int]:
        """Uses of each photo by the shots rendered (a photo is freed after its last one)."""
        uses: dict[str, int] = {}
        for i in self.shots:
            for photo in shot_photos(self.timeline, i):
                uses[photo] = uses.get(photo, 0) + 1
        return uses

    def _limits(self) -> Limits:
        return Limits(timeout_s=max(1.0, self.deadline - time.monotonic()))

    def _acquire(self, photo_id: str) -> _Photo:
        with self._lock:
            photo = self._photos.get(photo_id)
            if photo is None:
                image = load_photo(self.photo_paths[photo_id])
                subject = self.subjects.get(photo_id) or find_subject(image)
                layers, separated, cut, verdict = self._separations.get(
                    photo_id, (None, None, None, None))
                if separated is None and photo_id in self._layered:
                    # cut from the ungraded photo, as the planner measured it (matte_score)
                    cut, verdict = cut_subject(image, subject)
                    separated = verdict.reason if cut is None else ""
                image = apply_grade(image, self.grade)
                photo = _Photo(image, subject, self._uses.get(photo_id, 1), layers=layers,
                               separated=separated, cut=cut, verdict=verdict)
                self._photos[photo_id] = photo
            return photo

    def _release(self, photo_id: str) -> None:
        """After a shot of the photo is prepared: the decoded photo and its pre-scaled copies
        are freed (a photo shown again later is decoded again: holding every reused photo of a
        film until its next shot held ~0.5 GB); only a parallax separation, costly to redo,
        is kept until the photo's last shot."""
        with self._lock:
            photo = self._photos.pop(photo_id, None)
            if photo is not None:
                self._uses[photo_id] = photo.uses - 1
                if photo.uses > 1 and photo.separated is not None:
                    self._separations[photo_id] = (photo.layers, photo.separated, photo.cut,
                                                   photo.verdict)
                else:
                    self._separations.pop(photo_id, None)

    def prepare(self, index: int) -> Prepared:
        """Everything shot ``index`` needs to produce its frames."""
        shot = self.timeline.shots[index]
        try:
            if shot.kind == "photo" and shot.partner_id:
                return self._prepare_split(shot, self._showing(index), self._in_cells(index),
                                           self._steady(index))
            if shot.kind == "photo":
                return self._prepare_photo(shot, self._showing(index), self._steady(index))
            if shot.kind == "clip":
                return self._prepare_clip(shot)
            return self._prepare_card(shot, index)
        finally:
            heap.trim()

    def _steady(self, index: int) -> float:
        """The share of shot ``index``'s move seen clear of its transitions
        (:func:`media.look.framing.steady_share`)."""
        shot = self.timeline.shots[index]
        return steady_share(shot.frames, *transition_frames(self.timeline, index))

    def _showing(self, index: int) -> dict[str, int]:
        """Which showing alone of its photo shot ``index`` is in each aspect (0: the first;
        a layout shows it beside others, a portrait pair alone in 9:16), over the whole film,
        so every segment of a split render agrees. A card over the photo before it (the title
        over the subject, an interlude) was a showing: the next one is framed anew."""
        photo_id = self.timeline.shots[index].source_id
        earlier = [s for k, s in enumerate(self.timeline.shots[:index])
                   if shot_photo(self.timeline, k) == photo_id]
        return {a.name: sum(not splits_in(s.layout, a.is_portrait) for s in earlier)
                for a in self.aspects}

    def _in_cells(self, index: int) -> tuple[int, ...]:
        """How many layout shots before shot ``index`` showed each of its photos in a cell,
        over the whole film (as :meth:`_showing`)."""
        shot = self.timeline.shots[index]
        ids = [p for p in (shot.source_id, shot.partner_id, shot.second_partner_id) if p]
        return tuple(sum(1 for s in self.timeline.shots[:index]
                         if s.partner_id and photo_id in (s.source_id, s.partner_id,
                                                          s.second_partner_id))
                     for photo_id in ids)

    def _prepare_photo(self, shot: Shot, showing: Mapping[str, int] | None = None,
                       steady: float = STEADY_SHARE) -> PreparedPhoto:
        """The shot's layers; a showing after the first looks closer at another part of the
        photo (:func:`media.look.detail.showing_frame`)."""
        photo_id = shot.source_id or ""
        photo = self._acquire(photo_id)
        try:
            return PreparedPhoto(self._photo_layers(photo, photo_id, shot, showing or {},
                                                    self.aspects, steady))
        finally:
            self._release(photo_id)

    def _photo_layers(self, photo: _Photo, photo_id: str, shot: Shot,
                      showing: Mapping[str, int], aspects: tuple[spec.Aspect, ...],
                      steady: float = STEADY_SHARE) -> dict[str, ShotLayer]:
        """The photo's layer alone in each of ``aspects`` (see :meth:`_prepare_photo`;
        ``showing``: which showing alone it is in each aspect, by name; ``steady``: see
        :meth:`_steady`)."""
        height, width = photo.image.shape[:2]
        subject = keep_whole(photo.subject)
        texture = (texture_map(cv2.cvtColor(photo.image, cv2.COLOR_RGB2GRAY))
                   if any(showing.get(a.name, 0) for a in aspects) else None)
        box = self.timeline.subject_box(photo_id)  # the film's animal, found by feature match
        layers: dict[str, ShotLayer] = {}
        for aspect in aspects:
            again = showing.get(aspect.name, 0)
            frame = (showing_frame(subject, texture, (width, height), aspect, again,
                                   whole=self._one_photo(),
                                   subject_at=Box(*box) if box else None)
                     if texture is not None and again else ShowingFrame(subject))
            if frame.frame_scale < 1.0:  # a one-photo film shows its photo whole
                motion = whole_motion((width, height), aspect, shot.frames)
                factor = round(prescale_factor(motion, aspect.width), 4)
                layers[aspect.name] = PhotoLayer(photo.prescaled(factor), motion, aspect.width,
                                                 aspect.height)
                continue
            motion = plan_ken_burns((width, height), frame.subject, aspect, shot.frames,
                                    MoveRequest(choice=shot.motion_choice,
                                                full=shot.motion in FULL_MOTIONS,
                                                move=FRAMING_MOVE.get(shot.move),
                                                frame_scale=frame.frame_scale,
                                                strong=self._shows_subject(photo_id,
                                                                           photo.subject),
                                                steady=steady,
                                                keep_min=self._keep_min(aspect)))
            factor = round(prescale_factor(motion, aspect.width), 4)
            layers[aspect.name] = self._photo_layer(photo, photo_id, shot, motion, factor,
                                                    aspect)
        return layers

    def _one_photo(self) -> bool:
        """True when the film shows one photo (it then also shows it whole)."""
        return len({s.source_id for s in self.timeline.shots if s.kind == "photo"}) == 1

    def _prepare_split(self, shot: Shot, showing: Mapping[str, int],
                       in_cells: tuple[int, ...] = (0, 0, 0),
                       steady: float = STEADY_SHARE) -> PreparedSplit:
        """Every photo of a layout shot, each in its cell where the layout shares the frame
        (see :mod:`media.frames.split`; ``in_cells``: how many cells showed each before), the
        shot's photo alone elsewhere."""
        ids = tuple(p for p in (shot.source_id, shot.partner_id, shot.second_partner_id) if p)
        photos = tuple(self._acquire(photo_id) for photo_id in ids)
        try:
            alone = tuple(a for a in self.aspects if not splits_in(shot.layout, a.is_portrait))
            layers = self._photo_layers(photos[0], ids[0], shot, showing, alone, steady)
            for aspect in self.aspects:
                if aspect not in alone:
                    layers[aspect.name] = self._split_layer(photos, shot, aspect, in_cells)
            return PreparedSplit(layers)
        finally:
            for photo_id in ids:
                self._release(photo_id)

    def _split_layer(self, photos: tuple[_Photo, ...], shot: Shot, aspect: spec.Aspect,
                     in_cells: tuple[int, ...]) -> SplitLayer:
        """The layout's cell layers over the look's gutter (:mod:`media.frames.split`): each
        next cell planned :data:`STAGGER_S` longer at both ends (and sampled that far ahead),
        with the opposite push of the one before; a photo shown in a cell before moves
        otherwise (:func:`media.frames.split.half_move`). A triptych shows the shot's photo in
        the middle; an inset its photo as a print over the partner, on the side away from the
        partner's subject."""
        look = self._look()
        layouts = look.layouts
        lead = stagger_frames()
        gutter = gutter_width(aspect, layouts.gutter)
        base = FRAMING_MOVE.get(shot.move)
        moves = []
        for shown in in_cells[:len(photos)]:
            moves.append(half_move(base, shown))
            base = partner_move(base)
        colour = colour_yuv(look.colours.rgb(layouts.gutter_colour))
        if shot.layout == INSET:  # the backdrop first (the partner), the print over it
            full = CellBox(0, 0, aspect.width, aspect.height)
            back = self._half_layer(photos[1], half_aspect(aspect, full), shot.frames, moves[1])
            height, width = photos[0].image.shape[:2]
            back_h, back_w = photos[1].image.shape[:2]
            border = max(2, round(layouts.inset_border * min(aspect.width, aspect.height)))
            print_box = clear_of(aspect, inset_ratio(width, height), layouts.inset_area, border,
                                 focus_on_frame(back.motion, photos[1].subject.focus,
                                                (back_w, back_h), aspect.width))
            card = self._half_layer(photos[0], half_aspect(aspect, print_box),
                                    shot.frames + 2 * lead, moves[0])
            return SplitLayer((back, card), (full, print_box), aspect, colour, lead,
                              ring(print_box, border, aspect))
        boxes = list(split_boxes(aspect, gutter))
        gutters = None
        if shot.layout == TRIPTYCH:
            boxes = list(triptych_boxes(aspect, gutter))
            gutters = [between(a, b) for a, b in pairwise(boxes)]
            boxes = [boxes[1], boxes[0], boxes[2]]  # the shot's photo in the middle
        cells = [self._half_layer(photo, half_aspect(aspect, box), shot.frames + 2 * k * lead,
                                  move)
                 for k, (photo, box, move) in enumerate(zip(photos, boxes, moves, strict=False))]
        return SplitLayer(cells, boxes[:len(cells)], aspect, colour, lead, gutters)

    def _half_layer(self, photo: _Photo, half: spec.Aspect, frames: int,
                    move: str | None) -> PhotoLayer:
        """One photo in a cell of the frame: a gentle move planned for the cell's size, faces
        kept whole (:func:`media.look.framing.plan_ken_burns`); the largest crop held still
        on its faces when no move keeps them whole (the plan's cells fit every face,
        :func:`media.plan.layouts.fills`)."""
        height, width = photo.image.shape[:2]
        motion = plan_ken_burns((width, height), keep_whole(photo.subject), half, frames,
                                MoveRequest(full=False, move=move))
        if motion.mode != "crop":  # never a print over its own blur inside a cell: the
            motion = still_crop((width, height), keep_whole(photo.subject), half, frames)
        factor = round(prescale_factor(motion, half.width), 4)
        return PhotoLayer(photo.prescaled(factor), motion, half.width, half.height)

    def _look(self) -> design.Look:
        """The film's look: the one its opening card is drawn in."""
        card = self.timeline.shots[0].card if self.timeline.shots else None
        return design.card_look(card) if card is not None else design.look(
            design.DEFAULT_LOOK, self.timeline.style)

    def _shows_subject(self, photo_id: str, subject: Subject) -> bool:
        """The film's subject photo, a photo with faces, or one that shows the same animal
        (:attr:`media.plan.timeline.Timeline.with_subject`): its moves are the strongest."""
        return (photo_id == self.timeline.subject_photo_id or bool(subject.faces)
                or photo_id in self.timeline.with_subject)

    def _photo_layer(self, photo: _Photo, photo_id: str, shot: Shot, motion: Motion,
                     factor: float, aspect: spec.Aspect) -> ShotLayer:
        """A parallax layer for a premium shot whose subject separates well and whose move is a
        crop; the roll push for a roll shot's crop, and for a parallax crop whose matte the
        render finds doubtful; otherwise the standard Ken Burns layer."""
        if shot.motion == ROLL and motion.mode == "crop":
            return RollPushLayer(photo.prescaled(factor), motion, aspect.width, aspect.height)
        if shot.motion == PARALLAX and motion.mode == "crop":
            scaled = photo.parallax(factor)
            if scaled is not None:
                return ParallaxLayer(scaled, motion, aspect.width, aspect.height)
            self._note(f"parallax fell back to the roll push for {photo_id}: {photo.separated}")
            return RollPushLayer(photo.prescaled(factor), motion, aspect.width, aspect.height)
        elif shot.motion == PARALLAX:
            self._note(f"parallax fell back to Ken Burns for {photo_id} in {aspect.name}: "
                       "the photo is fitted, not cropped")
        return PhotoLayer(photo.prescaled(factor), motion, aspect.width, aspect.height)

    def _note(self, note: str) -> None:
        if note not in self.notes:
            self.notes.append(note)

    def _keep_min(self, aspect: spec.Aspect) -> float:
        """Smallest share of a photo or clip a crop may keep: social 9:16 frames fuller."""
        if self.timeline.style == "social" and aspect.is_portrait:
            return SOCIAL_PORTRAIT_KEEP_MIN
        return KEEP_MIN

    def _prepare_clip(self, shot: Shot) -> PreparedClip:
        clip_id = shot.source_id or ""
        path = self.clip_paths[clip_id]
        if clip_id not in self._clip_sizes:
            self._clip_sizes[clip_id] = probe_size(path, self._limits())
        size = self._clip_sizes[clip_id]
        sample = sample_frame(path, shot.clip_start_s + shot.frames / spec.FPS / 2, size,
                              self._limits())
        subject = find_subject(sample) if sample is not None else None
        framings = {a.name: plan_clip_framing(size, subject, a, keep_min=self._keep_min(a))
                    for a in self.aspects} if subject is not None else None
        reader = ClipReader(path, shot.clip_start_s, shot.frames, size, self._limits(),
                            "rgb24" if not self.grade.identity else yuv.PIX_FMT)
        return PreparedClip(reader, self.deadline, framings, self.grade)

    def _card_exit(self, index: int) -> int | None:
        """Frame (into card shot ``index``) where the next shot starts to show: its words must
        be gone by then. None for the last card (the film fades out under it)."""
        shots = self.timeline.shots
        if index + 1 >= len(shots):
            return None
        following = shots[index + 1]
        return following.transition_in.start(following.cut_in) - shots[index].visible_in

    def _prepare_card(self, shot: Shot, index: int) -> PreparedCard:
        """A card: its words over its photo shown sharp and moving (see
        :class:`PreparedWordsOver`), or over the look's gradient when it has no photo. The
        title's words are there from its first frame (a lead shot of the signature title
        sequence: from its cut, and cut out with its picture); the others' come in once the
        picture under them has settled, and leave before it changes."""
        card = shot.card
        if card is None:
            raise ValueError(f"card shot {index} has no card")
        if card.part:
            delay, exit_frame = shot.cut_in - shot.visible_in, None
        else:
            delay = (None if card.kind == "opening" else
                     shot.cut_in - shot.visible_in + shot.transition_in.frames // 2)
            exit_frame = self._card_exit(index)
        frames = shot.visible_out - shot.visible_in
        photo_id = self._card_photo(index)
        if not photo_id:
            images = {aspect.name: render_card_image(card, aspect.width, aspect.height, None,
                                                     self.logo) for aspect in self.aspects}
            return PreparedCard(images, delay, frames, exit_frame)
        photo = self._acquire(photo_id)
        try:
            layers = self._photo_layers(photo, photo_id, shot, {}, self.aspects,
                                        self._steady(index))
            images = {aspect.name: self._words_over(card, photo, layers[aspect.name], aspect)
                      for aspect in self.aspects}
            return PreparedWordsOver(layers, images, delay, frames, exit_frame)
        finally:
            self._release(photo_id)

    def _words_over(self, card: CardSpec, photo: _Photo, layer: ShotLayer,
                    aspect: spec.Aspect) -> CardImage:
        """``card``'s words over ``layer`` (its photo in ``aspect``, moving): where the look
        wants them, moved off where the photo's subject passes on the frame over the shot
        (:func:`media.look.words.clear_of_subject`), coloured to read against the brightest
        the picture gets under them."""
        size = (aspect.width, aspect.height)
        wanted = words_wanted(card, *size, self.logo)
        at = None
        if wanted is not None:
            keep_off = _on_frame(words_keep_off(keep_whole(photo.subject)), photo.image.shape,
                                 layer)
            at = clear_of_subject(*wanted, keep_off, size, least_covering=True)
        frames = getattr(layer, "motion", None)
        ends = (0, frames.frames // 2, frames.frames - 1) if frames is not None else (0,)
        behind = np.max([yuv.i420_to_rgb(layer.frame(i)) for i in ends], axis=0)
        return render_words_over(card, *size, behind, at, self.logo)
