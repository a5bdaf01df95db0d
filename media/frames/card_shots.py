"""Card shots prepared for the frame loop: the words set over their photo, sharp and moving,
or over the look's gradient when the card has no photo (:mod:`media.cards.draw`,
:mod:`media.cards.motion`). Over a fitted photo, once the words hold still, the backdrop
around the print is the same every frame: it is made once with the scrim and the words laid
over it, and each frame draws only the moving print (:meth:`PreparedWordsOver.frame`)."""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from media.analysis.camera import Motion
from media.analysis.subjects import Box, keep_whole, padded_core, union
from media.analysis.words import (
    WORD_SCALES,
    WordsBlock,
    clear_of_subject,
    faces_under_words,
    framings_for_words,
    words_keep_off,
    words_subject,
)
from media.base import spec, yuv
from media.cards.draw import (
    CardImage,
    render_card_image,
    render_words_over,
    words_box,
    words_over_rows,
    words_wanted,
)
from media.cards.motion import (
    HeldMaps,
    card_frame,
    card_motion,
    held_words,
    lay_held,
    words_over_frame,
)
from media.cards.overlay import check_logo
from media.cards.spec import CardSpec, card_look
from media.cards.text import logo_reserve
from media.frames.compose import PhotoLayer
from media.frames.photo_shots import PhotoShots, ShotLayer, steady
from media.frames.photo_store import HeldPhoto
from media.frames.sources import Prepared, card_photo
from media.plan.timeline import Timeline

Place = tuple[float, float, float]  # where a card's words go: centre x, y (pixels), scale
InkBox = tuple[int, int, int, int]  # the ink of a card's words: left, top, right, bottom pixels


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
        self._held_backs: dict[str, tuple[HeldMaps, np.ndarray]] = {}

    def frame(self, aspect: spec.Aspect, index: int) -> np.ndarray:
        entrance = None if self.delay is None else self.delay / spec.FPS
        exit_at = None if self.exit_frame is None else self.exit_frame / spec.FPS
        layer = self.layers[aspect.name]
        image = self.images[aspect.name]
        seconds, length_s = index / spec.FPS, self.frames / spec.FPS
        motion = card_motion(image, seconds, length_s, entrance, exit_at)
        if isinstance(layer, PhotoLayer) and layer.back is not None:
            maps = held_words(image, motion)
            if maps is not None:
                return self._over_print(aspect.name, layer, index, maps)
        if isinstance(layer, PhotoLayer):  # the photo drawn straight into the card's frame
            picture = np.empty(yuv.frame_shape(aspect.width, aspect.height), np.uint8)
            layer.draw(index, yuv.planes(picture))
            own = True
        else:
            picture, own = layer.frame(index), False
        return words_over_frame(image, picture, seconds, length_s, entrance, exit_at, own=own,
                                motion=motion)

    def _over_print(self, name: str, layer: PhotoLayer, index: int,
                    maps: HeldMaps) -> np.ndarray:
        """Frame ``index`` of a fitted photo under words holding still (their scrim and words
        as ``maps``, :func:`media.cards.motion.held_words`): the backdrop under the maps is
        the same every frame, so it is made once (per aspect ``name`` and maps) and copied;
        only the moving print is drawn and has the maps laid over it. The same pixels as
        drawing the whole frame and laying the maps over all of it."""
        held = self._held_backs.get(name)
        if held is None or held[0] is not maps:
            back = layer.back.copy() if layer.back is not None else None
            if back is None:
                raise ValueError("only a fitted photo has a backdrop around its print")
            lay_held(yuv.planes(back), maps)
            held = self._held_backs[name] = (maps, back)
        out = held[1].copy()
        planes = yuv.planes(out)
        lay_held(planes, maps, layer.draw_print(index, planes))
        return out


def _on_frame(box: Box | None, photo_shape: tuple[int, ...], motion: Motion | None
              ) -> Box | None:
    """Where ``box`` (normalized, of the photo) passes on the frame over ``motion``: the union
    of where it sits at the move's start, middle and end (normalized, of the frame, clipped to
    it); None without a box, or when it never shows."""
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


def _block(card: CardSpec, places: list[tuple[Place, InkBox]], size: tuple[int, int],
           laid: Callable[[Place], InkBox | None]) -> WordsBlock:
    """``card``'s words on a ``size`` frame as framing them with its photo needs them: the
    places they may take (``places``: where the look wants them, at full size, and where they
    were moved aside, each with its ink box; then the lowest and the highest the text's layout
    keeps them at full size, and the lowest at the smaller :data:`WORD_SCALES`, which ``laid``
    lays out) and how far the scrim's band shades past them."""
    (centre_x, _, _), _ = places[0]
    ends = [(at, box) for at in ((centre_x, 2.0 * size[1], 1.0), (centre_x, -float(size[1]), 1.0))
            if (box := laid(at)) is not None]
    smaller = [(at, box) for at in ((centre_x, 2.0 * size[1], k) for k in WORD_SCALES[1:])
               if (box := laid(at)) is not None]
    return WordsBlock((places[0], *ends, *places[1:]),
                      card_look(card).over_photo.band_reach * size[1], tuple(smaller))


def card_exit(timeline: Timeline, index: int) -> int | None:
    """Frame (into card shot ``index``) where the next shot starts to show: its words must be
    gone by then. None for the last card (the film fades out under it)."""
    shots = timeline.shots
    if index + 1 >= len(shots):
        return None
    following = shots[index + 1]
    return following.transition_in.start(following.cut_in) - shots[index].visible_in


class CardShots:
    """Prepares the card shots of the film in ``aspects``, over their photos as ``photos``
    prepares a photo shot's layers, with the brand ``logo`` (RGBA) where the look puts it."""

    def __init__(self, aspects: tuple[spec.Aspect, ...], photos: PhotoShots,
                 logo: np.ndarray | None = None) -> None:
        self.aspects = aspects
        self.photos = photos
        self.timeline = photos.timeline
        self.logo = logo
        self._places: dict[tuple[int, str], tuple[Motion | None, Place | None]] = {}
        photos.card_framing = self._card_motion

    def prepare(self, index: int) -> PreparedCard:
        """A card: its words over its photo shown sharp and moving (see
        :class:`PreparedWordsOver`), or over the look's gradient when it has no photo. The
        title's words are there from its first frame (a lead shot of the signature title
        sequence: from its cut, and cut out with its picture); the others' come in once the
        picture under them has settled, and leave before it changes."""
        shot = self.timeline.shots[index]
        card = shot.card
        if card is None:
            raise ValueError(f"card shot {index} has no card")
        if card.part:
            delay, exit_frame = shot.cut_in - shot.visible_in, None
        else:
            delay = (None if card.kind == "opening" else
                     shot.cut_in - shot.visible_in + shot.transition_in.frames // 2)
            exit_frame = card_exit(self.timeline, index)
        frames = shot.visible_out - shot.visible_in
        photo_id = card_photo(self.timeline, index)
        if not photo_id:
            images = {aspect.name: render_card_image(card, aspect.width, aspect.height, None,
                                                     self.logo) for aspect in self.aspects}
            return PreparedCard(images, delay, frames, exit_frame)
        store = self.photos.store
        photo = store.acquire(photo_id)
        try:
            layers, places = self.framed(index, photo, photo_id)
            images = {aspect.name: self._words_over(card, layers[aspect.name], aspect,
                                                    places[aspect.name])
                      for aspect in self.aspects}
            return PreparedWordsOver(layers, images, delay, frames, exit_frame)
        finally:
            store.release(photo_id)

    def framed(self, index: int, photo: HeldPhoto, photo_id: str
               ) -> tuple[dict[str, ShotLayer], dict[str, Place | None]]:
        """Card shot ``index`` over ``photo`` per aspect name: its photo's layer (framed as a
        photo shot's, or for its words, :meth:`placed`) and where its words go (None: it draws
        none)."""
        shot = self.timeline.shots[index]
        layers = self.photos.layers(photo, photo_id, shot, self.photos.showing(index),
                                    self.aspects, steady(self.timeline, index), index)
        places: dict[str, Place | None] = {}
        for aspect in self.aspects:
            layer = layers[aspect.name]
            reframed, places[aspect.name] = self.placed(index, photo, aspect,
                                                        getattr(layer, "motion", None))
            if reframed is not None:
                layers[aspect.name] = self.photos.plain_layer(photo, reframed, aspect)
        return layers, places

    def placed(self, index: int, photo: HeldPhoto, aspect: spec.Aspect,
               motion: Motion | None) -> tuple[Motion | None, Place | None]:
        """Where card shot ``index``'s words go over ``photo`` in ``aspect``, moving as
        ``motion`` (a photo shot's move), and the move it makes instead when that one lays them
        over a face (else None), worked out once per card and aspect (the move is the one the
        shot's photo makes as a photo shot's, the same each time). The words go where the look
        wants them, moved off where the
        photo's subject passes on the frame over the shot
        (:func:`media.analysis.words.clear_of_subject`); where they (or their scrim's band)
        would still lie over a face (a possible face counts,
        :func:`media.analysis.words.words_subject`) the photo is framed for them
        (:func:`media.analysis.words.framings_for_words`: the first whose words, as laid out,
        clear the faces' eyes-to-mouth cores), apart from its earlier showings."""
        key = (index, aspect.name)
        if key not in self._places:
            self._places[key] = self._place(index, photo, aspect, motion)
        return self._places[key]

    def _place(self, index: int, photo: HeldPhoto, aspect: spec.Aspect,
               motion: Motion | None) -> tuple[Motion | None, Place | None]:
        """:meth:`placed`, worked out."""
        card = self.timeline.shots[index].card
        if card is None:
            raise ValueError(f"card shot {index} has no card")
        size = (aspect.width, aspect.height)
        wanted = words_wanted(card, *size, self.logo)
        if wanted is None:
            return None, None
        subject = words_subject(photo.subject)
        keep_off = _on_frame(words_keep_off(keep_whole(subject)), photo.image.shape, motion)
        at = clear_of_subject(*wanted, keep_off, size, least_covering=True)
        if motion is None or subject.source != "faces" or not subject.faces:
            return None, at
        height, width = photo.image.shape[:2]
        faces = tuple(b.to_pixels(width, height) for b in subject.faces)
        ink = self._ink(card, size, at)
        gap = card_look(card).over_photo.band_reach * aspect.height
        if ink is None or not faces_under_words(faces, motion, ink, gap, size):
            return None, at
        look_at = (*wanted[0], 1.0)  # the look's place at full size, not one moved aside
        laid = functools.partial(self._ink, card, size)
        places = [(look_at, (laid(look_at) or ink) if look_at != at else ink)]
        block = _block(card, places + ([(at, ink)] if look_at != at else []), size, laid)
        earlier = self.photos.earlier(photo, card_photo(self.timeline, index) or "", aspect,
                                      index)
        cores = tuple(padded_core(c).to_pixels(width, height) for c in subject.cores) or faces
        for reframed, at in framings_for_words((width, height), subject, aspect,
                                               motion.frames, block, earlier):
            ink = self._ink(card, size, at)
            if ink is None or not faces_under_words(cores, reframed, ink, 0.0, size):
                break
        return reframed, at

    def _ink(self, card: CardSpec, size: tuple[int, int], at: Place) -> InkBox | None:
        """The ink box of ``card``'s words set at ``at`` on a ``size`` frame (pixels)."""
        reserve = logo_reserve(*size, check_logo(self.logo) if self.logo is not None else None)
        return words_box(card, *size, reserve[2], at)

    def _card_motion(self, index: int, photo: HeldPhoto, aspect: spec.Aspect,
                     motion: Motion) -> Motion:
        """The move card shot ``index``'s photo makes in ``aspect`` where a photo shot's would
        be ``motion`` (see :attr:`media.frames.photo_shots.PhotoShots.card_framing`)."""
        return self.placed(index, photo, aspect, motion)[0] or motion

    def _words_over(self, card: CardSpec, layer: ShotLayer, aspect: spec.Aspect,
                    at: Place | None) -> CardImage:
        """``card``'s words over ``layer`` (its photo in ``aspect``, moving) at ``at`` (see
        :meth:`_placed`), coloured to read against the brightest the picture gets under
        them."""
        size = (aspect.width, aspect.height)
        frames = getattr(layer, "motion", None)
        ends = (0, frames.frames // 2, frames.frames - 1) if frames is not None else (0,)
        behind = np.zeros((aspect.height, aspect.width, 3), np.uint8)
        rows = words_over_rows(card, *size, at, self.logo)
        if rows is not None:  # only the words' rows are read: only they are converted to RGB
            top, bottom = rows
            behind[top:bottom] = np.max([yuv.i420_rows_to_rgb(layer.frame(i), top, bottom)
                                         for i in ends], axis=0)
        return render_words_over(card, *size, behind, at, self.logo)
