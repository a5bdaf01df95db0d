"""Photo shots prepared for the frame loop: each photo's camera move planned per aspect, and the
layer that draws it (Ken Burns, parallax or the roll push), or a layout's cells.

A showing of a photo after its first looks closer at another part of it
(:func:`media.analysis.detail.showing_frame`); a one-photo film also shows its photo whole. A
layout shot (:mod:`media.plan.layouts`) shows two or three photos, each in its cell
(:mod:`media.frames.split`), where the layout shares the frame, and the shot's photo alone in
the other aspect.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import cv2
import numpy as np

from media.analysis.camera import STEADY_SHARE, Motion, steady_share
from media.analysis.detail import (
    Repeat,
    repeat_motion,
    reversed_motion,
    same_framing,
    texture_map,
)
from media.analysis.framing import KEEP_MIN, MoveRequest, plan_ken_burns
from media.analysis.safe_crops import safe_crops
from media.analysis.subjects import Box, Subject, keep_whole, possible_boxes, whole_boxes
from media.base import spec
from media.cards.spec import card_look
from media.design import looks
from media.frames.compose import PhotoLayer, prescale_factor
from media.frames.parallax import ParallaxLayer
from media.frames.photo_store import HeldPhoto, PhotoStore
from media.frames.roll import RollPushLayer, roll_keeps
from media.frames.sources import Prepared, shot_photo
from media.frames.split import (
    SplitLayer,
    colour_yuv,
    focus_on_frame,
    half_aspect,
    half_move,
    partner_move,
    stagger_frames,
    still_crop,
)
from media.plan.layout_kinds import Cell, layout_kind
from media.plan.layouts import splits_in
from media.plan.moves import FRAMING_MOVE
from media.plan.timeline import FULL_MOTIONS, PARALLAX, ROLL, Shot, Timeline, transition_frames

ShotLayer = PhotoLayer | ParallaxLayer | RollPushLayer | SplitLayer  # a photo shot, one aspect
CardFraming = Callable[[int, HeldPhoto, spec.Aspect, Motion], Motion]
"""Card shot index, its photo, an aspect and the move a photo shot would make -> the move its
photo makes under its words."""
SOCIAL_PORTRAIT_KEEP_MIN = 0.3  # social 9:16 crops down to 30% of a photo (fuller frames)


class PreparedPhoto(Prepared):
    """A photo shot: one :class:`media.frames.compose.PhotoLayer` (or a premium
    :class:`media.frames.parallax.ParallaxLayer` or :class:`media.frames.roll.RollPushLayer`)
    per aspect."""

    def __init__(self, layers: dict[str, ShotLayer]) -> None:
        self.layers = layers

    def frame(self, aspect: spec.Aspect, index: int) -> np.ndarray:
        return self.layers[aspect.name].frame(index)


class PreparedSplit(PreparedPhoto):
    """A split shot (:mod:`media.plan.layouts`): a :class:`media.frames.split.SplitLayer` (two
    photos, each in its own half) in each aspect the layout splits, the shot's own photo alone
    in the others."""


def keep_min(timeline: Timeline, aspect: spec.Aspect) -> float:
    """Smallest share of a photo or clip a crop may keep: social 9:16 frames fuller."""
    if timeline.style == "social" and aspect.is_portrait:
        return SOCIAL_PORTRAIT_KEEP_MIN
    return KEEP_MIN


def steady(timeline: Timeline, index: int) -> float:
    """The share of shot ``index``'s move seen clear of its transitions
    (:func:`media.analysis.framing.steady_share`)."""
    return steady_share(timeline.shots[index].frames, *transition_frames(timeline, index))


class PhotoShots:
    """Prepares the photo shots of ``timeline`` in ``aspects`` from the photos of ``store``;
    what a reader of the render should know (a premium move that fell back) goes to ``notes``."""

    def __init__(self, timeline: Timeline, aspects: tuple[spec.Aspect, ...], store: PhotoStore,
                 notes: list[str]) -> None:
        self.timeline = timeline
        self.aspects = aspects
        self.store = store
        self.notes = notes
        self._motions: dict[tuple[int, str], Motion] = {}
        self._textures: dict[str, np.ndarray] = {}
        self.card_framing: CardFraming | None = None
        """How a card shot's photo is framed for its words (set by
        :class:`media.frames.card_shots.CardShots`): what the showings after it are framed
        apart from."""

    def prepare(self, index: int) -> PreparedPhoto:
        """Photo shot ``index``: alone, or a layout's cells."""
        shot = self.timeline.shots[index]
        if shot.partner_id:
            return self._prepare_split(shot, self.showing(index), self._in_cells(index),
                                       steady(self.timeline, index), index)
        return self._prepare_photo(shot, self.showing(index), steady(self.timeline, index),
                                   index)

    def showing(self, index: int) -> dict[str, int]:
        """Which showing alone of its photo shot ``index`` is in each aspect (0: the first;
        a layout shows it beside others, a portrait pair alone in 9:16), over the whole film,
        so every segment of a split render agrees. A card over the photo before it (the title
        over the subject, an interlude) was a showing: the next one is framed anew."""
        photo_id = shot_photo(self.timeline, index)
        earlier = [s for k, s in enumerate(self.timeline.shots[:index])
                   if shot_photo(self.timeline, k) == photo_id]
        return {a.name: sum(not splits_in(s.layout, a.is_portrait) for s in earlier)
                for a in self.aspects}

    def _in_cells(self, index: int) -> tuple[int, ...]:
        """How many layout shots before shot ``index`` showed each of its photos in a cell,
        over the whole film (as :meth:`showing`)."""
        shot = self.timeline.shots[index]
        ids = [p for p in (shot.source_id, shot.partner_id, shot.second_partner_id) if p]
        return tuple(sum(1 for s in self.timeline.shots[:index]
                         if s.partner_id and photo_id in (s.source_id, s.partner_id,
                                                          s.second_partner_id))
                     for photo_id in ids)

    def _prepare_photo(self, shot: Shot, showing: Mapping[str, int] | None = None,
                       steady: float = STEADY_SHARE, index: int | None = None) -> PreparedPhoto:
        """The shot's layers (shot ``index``); a showing after the first is framed anew
        (:func:`media.analysis.detail.repeat_motion`)."""
        photo_id = shot.source_id or ""
        photo = self.store.acquire(photo_id)
        try:
            return PreparedPhoto(self.layers(photo, photo_id, shot, showing or {},
                                             self.aspects, steady, index))
        finally:
            self.store.release(photo_id)

    def layers(self, photo: HeldPhoto, photo_id: str, shot: Shot,
               showing: Mapping[str, int], aspects: tuple[spec.Aspect, ...],
               steady: float = STEADY_SHARE, index: int | None = None) -> dict[str, ShotLayer]:
        """The photo's layer alone in each of ``aspects`` (``showing``: which showing alone it
        is in each aspect, by name; ``steady``: the share of the move seen clear of the
        transitions, :func:`steady`; ``index``: the shot's, whose earlier showings of the photo
        a repeat is framed apart from, :func:`media.analysis.detail.repeat_motion`)."""
        layers: dict[str, ShotLayer] = {}
        for aspect in aspects:
            again = showing.get(aspect.name, 0)
            motion = self._motion(photo, photo_id, shot, aspect, (again, index), steady)
            factor = round(prescale_factor(motion, aspect.width), 4)
            if again and motion.mode != "crop":  # the whole photo again: Ken Burns over it
                layers[aspect.name] = PhotoLayer(photo.prescaled(factor), motion, aspect.width,
                                                 aspect.height)
                continue
            layers[aspect.name] = self._photo_layer(photo, photo_id, shot, motion, factor,
                                                    aspect)
        return layers

    def plain_layer(self, photo: HeldPhoto, motion: Motion, aspect: spec.Aspect) -> PhotoLayer:
        """The standard Ken Burns layer of ``photo`` moving as ``motion`` in ``aspect`` (a
        card's photo framed for its words, :mod:`media.frames.card_shots`)."""
        factor = round(prescale_factor(motion, aspect.width), 4)
        return PhotoLayer(photo.prescaled(factor), motion, aspect.width, aspect.height)

    def _motion(self, photo: HeldPhoto, photo_id: str, shot: Shot, aspect: spec.Aspect,
                showing: tuple[int, int | None], steady: float) -> Motion:
        """The camera move of ``photo`` alone in ``aspect`` over ``shot``: the first showing
        as the shot asks; a repeat (``showing``: which showing, and the shot's index) new
        beside every earlier showing of the photo in that aspect."""
        again, index = showing
        height, width = photo.image.shape[:2]
        subject = keep_whole(photo.subject)
        ask = MoveRequest(choice=shot.motion_choice, full=shot.motion in FULL_MOTIONS,
                          move=FRAMING_MOVE.get(shot.move),
                          strong=self._shows_subject(photo_id, photo.subject), steady=steady,
                          keep_min=keep_min(self.timeline, aspect))
        if not again:
            return plan_ken_burns((width, height), subject, aspect, shot.frames, ask)
        box = self.timeline.subject_box(photo_id)  # the film's animal, found by feature match
        repeat = Repeat((width, height), subject, self._texture(photo_id, photo),
                        Box(*box) if box else None)
        earlier = self.earlier(photo, photo_id, aspect, index) if index is not None else []
        return repeat_motion(repeat, aspect, shot.frames, ask, earlier)

    def _texture(self, photo_id: str, photo: HeldPhoto) -> np.ndarray:
        if photo_id not in self._textures:
            self._textures[photo_id] = texture_map(cv2.cvtColor(photo.image,
                                                                cv2.COLOR_RGB2GRAY))
        return self._textures[photo_id]

    def earlier(self, photo: HeldPhoto, photo_id: str, aspect: spec.Aspect,
                 index: int) -> list[Motion]:
        """The moves of ``photo`` alone in ``aspect`` before shot ``index`` (its shots alone
        there and the cards over it), each planned once."""
        out = []
        for k in range(index):
            shot = self.timeline.shots[k]
            if shot_photo(self.timeline, k) != photo_id or splits_in(shot.layout,
                                                                       aspect.is_portrait):
                continue
            if (k, aspect.name) not in self._motions:
                motion = self._motion(photo, photo_id, shot, aspect,
                                      (self.showing(k)[aspect.name], k), steady(self.timeline, k))
                if shot.kind == "card" and self.card_framing is not None:
                    motion = self.card_framing(k, photo, aspect, motion)
                self._motions[k, aspect.name] = motion
            out.append(self._motions[k, aspect.name])
        return out

    def _prepare_split(self, shot: Shot, showing: Mapping[str, int],
                       in_cells: tuple[int, ...] = (0, 0, 0),
                       steady: float = STEADY_SHARE, index: int | None = None) -> PreparedSplit:
        """Every photo of a layout shot, each in its cell where the layout shares the frame
        (see :mod:`media.frames.split`; ``in_cells``: how many cells showed each before), the
        shot's photo alone elsewhere."""
        ids = tuple(p for p in (shot.source_id, shot.partner_id, shot.second_partner_id) if p)
        photos = tuple(self.store.acquire(photo_id) for photo_id in ids)
        try:
            alone = tuple(a for a in self.aspects if not splits_in(shot.layout, a.is_portrait))
            layers = self.layers(photos[0], ids[0], shot, showing, alone, steady, index)
            for aspect in self.aspects:
                if aspect not in alone:
                    layers[aspect.name] = self._split_layer(photos, shot, aspect,
                                                            (in_cells, index))
            return PreparedSplit(layers)
        finally:
            for photo_id in ids:
                self.store.release(photo_id)

    def _split_layer(self, photos: tuple[HeldPhoto, ...], shot: Shot, aspect: spec.Aspect,
                     before: tuple[tuple[int, ...], int | None]) -> SplitLayer:
        """The layout's cells where its kind places them (:mod:`media.plan.layout_kinds`) over
        the look's gutters (:mod:`media.frames.split`): each next cell planned
        :data:`media.frames.split.STAGGER_S` longer at both ends (and sampled that far ahead),
        each next photo with the opposite push of the one before; a photo shown in a cell
        before moves otherwise (:func:`media.frames.split.half_move`, :func:`cell_layer`;
        ``before``: how many cells showed each photo before, and the shot's index, whose
        earlier showings alone a cell the size of the frame keeps apart from)."""
        in_cells, index = before
        look = self._look()
        base = FRAMING_MOVE.get(shot.move)
        moves = []
        for shown in in_cells[:len(photos)]:
            moves.append(half_move(base, shown))
            base = partner_move(base)
        alone = tuple(tuple(self.earlier(photo, photo_id, aspect, index))
                      if index is not None else () for photo, photo_id in zip(
                          photos, (shot.source_id, shot.partner_id, shot.second_partner_id),
                          strict=False))
        shown_in = _ShotCells(photos, aspect, shot.frames, tuple(moves), (in_cells, alone))
        plan = layout_kind(shot.layout).place(aspect, look.layouts, shown_in)
        cells = [cell for cell in plan.cells if cell.photo < len(photos)]
        return SplitLayer([shown_in.layer(cell, order) for order, cell in enumerate(cells)],
                          [cell.box for cell in cells], aspect,
                          colour_yuv(look.colours.rgb(look.layouts.gutter_colour)),
                          shown_in.lead, plan.gutters)

    def _look(self) -> looks.Look:
        """The film's look: the one its opening card is drawn in."""
        card = self.timeline.shots[0].card if self.timeline.shots else None
        return card_look(card) if card is not None else looks.look(
            looks.DEFAULT_LOOK, self.timeline.style)

    def _shows_subject(self, photo_id: str, subject: Subject) -> bool:
        """The film's subject photo, a photo with faces, or one that shows the same animal
        (:attr:`media.plan.timeline.Timeline.with_subject`): its moves are the strongest."""
        return (photo_id == self.timeline.subject_photo_id or bool(subject.faces)
                or photo_id in self.timeline.with_subject)

    def _photo_layer(self, photo: HeldPhoto, photo_id: str, shot: Shot, motion: Motion,
                     factor: float, aspect: spec.Aspect) -> ShotLayer:
        """A parallax layer for a premium shot whose subject separates well and whose move is a
        crop; the roll push for a roll shot's crop, and for a parallax crop whose matte the
        render finds doubtful, unless its push in would cut a face the move holds whole
        (:func:`media.frames.roll.roll_keeps`); otherwise the standard Ken Burns layer."""
        rolls = motion.mode == "crop" and roll_keeps(
            motion, [b.to_pixels(*photo.image.shape[1::-1])
                     for b in (*whole_boxes(photo.subject), *possible_boxes(photo.subject))],
            aspect.width, aspect.height)  # its push in never cuts a face the move holds
        if shot.motion == ROLL and rolls:
            return RollPushLayer(photo.prescaled(factor), motion, aspect.width, aspect.height)
        if shot.motion == PARALLAX and motion.mode == "crop":
            scaled = photo.parallax(factor)
            if scaled is not None:
                return ParallaxLayer(scaled, motion, aspect.width, aspect.height)
            self._note(f"parallax fell back to the roll push for {photo_id}: {photo.separated}")
            if rolls:
                return RollPushLayer(photo.prescaled(factor), motion, aspect.width,
                                     aspect.height)
        elif shot.motion == PARALLAX:
            self._note(f"parallax fell back to Ken Burns for {photo_id} in {aspect.name}: "
                       "the photo is fitted, not cropped")
        return PhotoLayer(photo.prescaled(factor), motion, aspect.width, aspect.height)

    def _note(self, note: str) -> None:
        if note not in self.notes:
            self.notes.append(note)


def cell_layer(photo: HeldPhoto, cell: spec.Aspect, frames: int, move: str | None,
               shown: int = 0, avoid: Sequence[Motion] = ()) -> PhotoLayer:
    """One photo in a cell of the frame (``cell``: its size): a gentle move planned for the
    cell, faces kept whole (:func:`media.analysis.framing.plan_ken_burns`); the largest crop held
    still on its faces when no move keeps them whole (the plan's cells fit every face,
    :func:`media.plan.layout_kinds.fills`). A photo ``shown`` in cells before takes the next of
    its other cell framings (:func:`_cell_motions`), so a cell never shows it as before; none
    the same framing as a motion of ``avoid`` (its showings alone, when the cell is the frame:
    an inset's backdrop) when another is left."""
    height, width = photo.image.shape[:2]
    size, subject = (width, height), keep_whole(photo.subject)
    first = _cell_motion(size, subject, cell, frames, MoveRequest(full=False, move=move))
    again = _cell_motions(size, subject, cell, frames) if shown or avoid else []
    turn = (shown - 1) % len(again) if shown and again else 0
    ordered = [*([] if shown else [first]), *again[turn:], *again[:turn], first]
    motion = next((m for m in ordered if not any(same_framing(m, a) for a in avoid)),
                  ordered[0])
    factor = round(prescale_factor(motion, cell.width), 4)
    return PhotoLayer(photo.prescaled(factor), motion, cell.width, cell.height)


def _cell_motion(photo_size: tuple[int, int], subject: Subject, cell: spec.Aspect,
                 frames: int, ask: MoveRequest) -> Motion:
    """The move ``ask``ed in a cell, a still crop when no move holds the faces inside it
    (never a print over its own blur inside a cell)."""
    motion = plan_ken_burns(photo_size, subject, cell, frames, ask)
    return motion if motion.mode == "crop" else still_crop(photo_size, subject, cell, frames)


def _cell_motions(photo_size: tuple[int, int], subject: Subject, cell: spec.Aspect,
                  frames: int) -> list[Motion]:
    """The crops a photo shown in cells again takes in turn: every full move
    (:data:`CELL_MOVES`) each way, none the same framing as another
    (:func:`media.analysis.detail.same_framing`) nor as any first showing in a cell (a
    layout's gentle push, pull, pan or tilt); when none is left (a close-up whose face fills
    the cell) the crops inside what is safe (:func:`media.analysis.safe_crops.safe_crops`)."""
    firsts = [_cell_motion(photo_size, subject, cell, frames, MoveRequest(full=False, move=m))
              for m in CELL_MOVES]
    out: list[Motion] = []
    for move in CELL_MOVES:
        motion = plan_ken_burns(photo_size, subject, cell, frames,
                                MoveRequest(full=True, move=move))
        if motion.mode != "crop":
            continue
        for candidate in (motion, reversed_motion(motion)):
            if not any(same_framing(candidate, m) for m in (*out, *firsts)):
                out.append(candidate)
    if not out:  # no move holds the faces but the one crop: a crop inside what is safe
        for candidate in safe_crops(photo_size, subject, cell, frames):
            if not any(same_framing(candidate, m) for m in (*out, *firsts)):
                out.append(candidate)
    return out


CELL_MOVES = ("pan", "zoom_out", "tilt", "zoom_in")
"""The moves of a photo in a cell: a layout's first showing asks one of them gently."""


class _ShotCells:
    """A layout shot's photos in one aspect as its layout places the cells
    (:class:`media.plan.layout_kinds.CellFrame`): each cell's layer planned once, as long as
    the shot (``frames``) and with its photo's move (``moves``, by photo; ``before``: how many
    cells showed each photo before, and its moves alone before), each later cell
    :data:`media.frames.split.STAGGER_S` longer at both ends."""

    def __init__(self, photos: tuple[HeldPhoto, ...], aspect: spec.Aspect, frames: int,
                 moves: tuple[str | None, ...],
                 before: tuple[tuple[int, ...], tuple[tuple[Motion, ...], ...]] = ((), ())
                 ) -> None:
        self.photos = photos
        self.shown, self.alone = before
        self.aspect = aspect
        self.frames = frames
        self.moves = moves
        self.lead = stagger_frames()
        self._layers: dict[tuple[Cell, int], PhotoLayer] = {}

    def size(self, photo: int) -> tuple[int, int]:
        height, width = self.photos[photo].image.shape[:2]
        return width, height

    def layer(self, cell: Cell, order: int) -> PhotoLayer:
        """The layer of ``cell``, drawn ``order``-th."""
        if (cell, order) not in self._layers:
            self._layers[cell, order] = cell_layer(
                self.photos[cell.photo], half_aspect(self.aspect, cell.box),
                self.frames + 2 * order * self.lead, self.moves[cell.photo],
                self.shown[cell.photo] if cell.photo < len(self.shown) else 0,
                self.alone[cell.photo] if cell.photo < len(self.alone) else ())
        return self._layers[cell, order]

    def focus(self, cell: Cell, order: int) -> tuple[float, float, float, float]:
        return focus_on_frame(self.layer(cell, order).motion,
                              self.photos[cell.photo].subject.focus, self.size(cell.photo),
                              self.aspect.width)
