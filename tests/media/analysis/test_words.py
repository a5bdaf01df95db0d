"""Where words sit over a picture (media.analysis.words): clear of its subject, inside the frame."""

from __future__ import annotations

from dataclasses import replace

from media.analysis.camera import Motion, Rect
from media.analysis.detail import same_framing
from media.analysis.subjects import Box, Subject, loose_core, padded_core, union
from media.analysis.words import (
    EDGE_MARGIN,
    WORD_SCALES,
    WordsBlock,
    clear_of_subject,
    faces_under_words,
    framings_for_words,
    words_keep_off,
    words_subject,
)
from media.base.spec import Aspect

WIDE = (1920, 1080)


def test_words_that_do_not_cover_the_subject_stay_where_the_look_wants_them() -> None:
    assert clear_of_subject((960, 900), (600, 120), Box(0.3, 0.1, 0.7, 0.6), WIDE) == (960, 900,
                                                                                       1.0)


def test_words_move_below_a_subject_when_they_fit_there() -> None:
    x, y, scale = clear_of_subject((960, 540), (600, 120), Box(0.3, 0.1, 0.7, 0.6), WIDE)
    assert (x, scale) == (960, 1.0) and y - 60 >= 0.6 * 1080


def test_a_closing_that_fits_nowhere_sits_low_inside_the_frame_not_over_the_faces() -> None:
    # the anniversary's couple filled the 16:9 frame: the closing (1438 x 412 px) was placed
    # beside them half off the frame and drawn back across both faces
    faces = Box(0.175, 0.187, 0.825, 0.791)
    x, y, scale = clear_of_subject((960, 590), (1438, 412), faces, WIDE, least_covering=True)
    half_w, half_h = 1438 * scale / 2, 412 * scale / 2
    assert scale == WORD_SCALES[1]
    assert x - half_w >= EDGE_MARGIN * 1920 and x + half_w <= (1 - EDGE_MARGIN) * 1920 + 1e-6
    assert y + half_h <= (1 - EDGE_MARGIN) * 1080 + 1e-6
    assert y - half_h > 0.6 * 1080  # low, under the eyes and mouths, not across them


def test_words_over_a_close_portrait_cover_its_chin_before_its_eyes_and_mouth() -> None:
    # the birthday's portrait filled the 16:9 frame over its pull-out: the closing sat beside
    # the face, drawn back across the nose and mouth
    face = Box(0.15, 0.0, 0.87, 1.0)
    _, y, scale = clear_of_subject((960, 650), (1234, 226), face, WIDE, least_covering=True)
    assert y - 226 * scale / 2 > 0.7 * 1080  # under the mouth


# --- a card's photo framed for its words ---------------------------------------------------------

LANDSCAPE = Aspect("16x9", 1920, 1080)
PORTRAIT = Aspect("9x16", 1080, 1920)


def _block(aspect: Aspect, ink_h: float, gap: float = 80.0) -> WordsBlock:
    """Words as a look sets them over a photo: a block ``ink_h`` tall at 62 % of the frame's
    height, low on it (8 % above its bottom) and high on it (8 % below its top)."""
    w, h = aspect.width, aspect.height
    places = []
    for centre_y in (0.62 * h, 0.92 * h - ink_h / 2, 0.08 * h + ink_h / 2):
        places.append(((w / 2, centre_y, 1.0), (0.2 * w, centre_y - ink_h / 2, 0.8 * w,
                                                centre_y + ink_h / 2)))
    return WordsBlock(tuple(places), gap)


def _faces(subject: Subject, size: tuple[int, int]) -> tuple[tuple[float, ...], ...]:
    return tuple(b.to_pixels(*size) for b in subject.faces)


def _ink_at(block: WordsBlock, at: tuple[float, float, float]) -> tuple[float, ...]:
    return next(ink for place, ink in block.places if place == at)


def test_a_group_is_framed_above_its_words_in_both_aspects() -> None:
    size = (3000, 2000)  # three friends close together in the middle of a landscape photo
    faces = (Box(0.34, 0.35, 0.42, 0.47), Box(0.46, 0.33, 0.54, 0.45), Box(0.58, 0.36, 0.66, 0.48))
    subject = Subject(faces, union(faces), "faces")
    for aspect in (LANDSCAPE, PORTRAIT):
        block = _block(aspect, 0.18 * aspect.height)
        motion, at = next(framings_for_words(size, subject, aspect, 120, block))
        assert motion.mode == "crop"
        assert not faces_under_words(_faces(subject, size), motion, _ink_at(block, at),
                                     block.gap, (aspect.width, aspect.height))


def test_a_face_filling_its_photo_is_set_whole_above_its_words_on_its_ground() -> None:
    size = (1200, 1600)
    face = Box(0.0, 0.0, 1.0, 1.0)
    subject = Subject((face,), face, "faces")
    block = _block(LANDSCAPE, 0.3 * LANDSCAPE.height)
    framings = list(framings_for_words(size, subject, LANDSCAPE, 120, block))
    assert {motion.mode for motion, _ in framings} == {"fit"}
    motion, at = framings[0]
    ink = _ink_at(block, at)
    for frame in (0, 60, 119):
        rect = motion.rect_at(frame)
        photo_bottom = (size[1] - rect.y) * LANDSCAPE.height / rect.h
        assert photo_bottom <= ink[1] - block.gap + 1e-6
    assert at[2] == 1.0  # the words keep their size


def test_the_words_keep_their_size_wherever_they_go() -> None:
    size = (2000, 3000)
    face = Box(0.25, 0.2, 0.75, 0.5)
    subject = Subject((face,), face, "faces", cores=(Box(0.32, 0.28, 0.68, 0.46),))
    for aspect in (LANDSCAPE, PORTRAIT):
        block = _block(aspect, 0.25 * aspect.height)
        assert {at[2] for _, at in framings_for_words(size, subject, aspect, 120, block)} == {1.0}


def test_a_face_in_the_band_past_the_words_counts_as_under_them() -> None:
    still = Motion("crop", Rect(0, 0, 1920, 1080), Rect(0, 0, 1920, 1080), 60, "still")
    words = (500.0, 700.0, 1400.0, 900.0)
    just_above = ((900.0, 450.0, 1100.0, 650.0),)  # 50 px above the ink, across the frame
    assert faces_under_words(just_above, still, words, 86.0, (1920, 1080))
    assert not faces_under_words(just_above, still, words, 0.0, (1920, 1080))
    beside = ((100.0, 720.0, 300.0, 880.0),)  # at the words' height, far to their side
    assert faces_under_words(beside, still, words, 0.0, (1920, 1080))  # the band reaches it


def test_a_card_over_a_photo_shown_before_is_framed_apart_from_that_showing() -> None:
    size = (3000, 2000)
    face = Box(0.4, 0.2, 0.6, 0.45)
    subject = Subject((face,), face, "faces")
    block = _block(LANDSCAPE, 0.18 * LANDSCAPE.height)
    first, _ = next(framings_for_words(size, subject, LANDSCAPE, 120, block))
    again, _ = next(framings_for_words(size, subject, LANDSCAPE, 120, block, [first]))
    assert not same_framing(again, first)


def test_a_cards_crop_keeps_a_possible_face_whole_or_leaves_it_out() -> None:
    size = (3000, 2000)  # a couple in the middle; a head turned away at the photo's top right
    faces = (Box(0.40, 0.30, 0.48, 0.42), Box(0.52, 0.31, 0.60, 0.43))
    possible = Box(0.70, 0.02, 0.80, 0.20)
    subject = replace(Subject(faces, union(faces), "faces"), possible=(possible,),
                      possible_cores=(Box(0.72, 0.06, 0.78, 0.16),))
    x0, y0, x1, y1 = possible.to_pixels(*size)
    for aspect in (LANDSCAPE, PORTRAIT):
        block = _block(aspect, 0.18 * aspect.height)
        for motion, _ in framings_for_words(size, subject, aspect, 120, block):
            for frame in (0, 60, 119):
                rect = motion.rect_at(frame)
                inside = (rect.x <= x0 + 0.5 and rect.x + rect.w >= x1 - 0.5
                          and rect.y <= y0 + 0.5 and rect.y + rect.h >= y1 - 0.5)
                out = (rect.x + rect.w <= x0 + 0.5 or rect.x >= x1 - 0.5
                       or rect.y + rect.h <= y0 + 0.5 or rect.y >= y1 - 0.5)
                assert inside or out or motion.mode == "fit", (aspect.name, motion)


def test_the_whole_photo_above_its_words_sits_on_them_as_their_caption() -> None:
    size = (1600, 1200)  # a landscape close-up in a portrait frame: far less tall than its room
    face = Box(0.1, 0.05, 0.9, 0.95)
    subject = Subject((face,), face, "faces")
    block = _block(PORTRAIT, 0.12 * PORTRAIT.height)
    motion, at = next(m for m in framings_for_words(size, subject, PORTRAIT, 120, block)
                      if m[0].mode == "fit")
    ink = _ink_at(block, at)
    rect = motion.rect_at(119)
    photo_bottom = (size[1] - rect.y) * PORTRAIT.height / rect.h
    assert ink[1] - block.gap - 2.0 <= photo_bottom <= ink[1] - block.gap + 1e-6


# The birthday's pool player in profile filling a 4:3 close-up: the detector finds no face,
# only a possible one (the corpus's closeup_tilted-057)
PROFILE_ONLY = Subject((), Box(0.583, 0.333, 0.688, 0.403), "saliency", compact=False,
                       possible=(Box(0.216, 0.182, 0.737, 0.873),),
                       possible_cores=(Box(0.267, 0.314, 0.52, 0.701),))


def test_a_cards_words_keep_off_a_possible_face_as_off_a_face() -> None:
    # the title and closing were set across his eyes and nose: to the words a possible face
    # was no one, the saliency focus on his hair all they kept off
    assert words_keep_off(PROFILE_ONLY) != words_keep_off(words_subject(PROFILE_ONLY))
    size = (1600, 1207)
    core = padded_core(PROFILE_ONLY.possible_cores[0]).to_pixels(*size)
    for aspect in (LANDSCAPE, PORTRAIT):
        block = _block(aspect, 0.18 * aspect.height)
        motion, at = next(framings_for_words(size, words_subject(PROFILE_ONLY), aspect, 120,
                                             block))
        assert not faces_under_words((core,), motion, _ink_at(block, at), 0.0,
                                     (aspect.width, aspect.height)), aspect.name


def test_words_subject_leaves_a_subject_without_possible_faces_as_it_is() -> None:
    face = Box(0.4, 0.2, 0.6, 0.45)
    subject = Subject((face,), face, "faces", cores=(Box(0.44, 0.27, 0.56, 0.41),))
    assert words_subject(subject) is subject
    both = replace(subject, possible=PROFILE_ONLY.possible,
                   possible_cores=PROFILE_ONLY.possible_cores)
    assert words_subject(both).faces == (face, *PROFILE_ONLY.possible)
    assert words_subject(both).cores == (*subject.cores,
                                         *map(loose_core, PROFILE_ONLY.possible_cores))


def test_words_too_tall_for_the_photo_above_them_are_set_lower_and_smaller_not_over_it() -> None:
    # a closing of three long lines over an old scan's close-up (the corpus's o125, 16:9): at
    # full size the words left the fitted photo no room above them and lay over the face
    size = (551, 367)
    face = Box(0.0, 0.0, 1.0, 1.0)
    subject = Subject((face,), face, "faces")
    h = LANDSCAPE.height
    full = _block(LANDSCAPE, 0.6 * h)
    smaller = tuple(((960.0, 2.0 * h, k), (0.2 * 1920, 0.92 * h - 0.6 * h * k, 0.8 * 1920,
                                          0.92 * h)) for k in WORD_SCALES[1:])
    block = replace(full, smaller=smaller)
    motion, at = next(m for m in framings_for_words(size, subject, LANDSCAPE, 120, block)
                      if m[0].mode == "fit")
    ink = next(ink for place, ink in smaller if place == at)
    assert at[2] < 1.0
    assert not faces_under_words(_faces(subject, size), motion, ink, block.gap,
                                 (LANDSCAPE.width, h))
    last, full_at = list(framings_for_words(size, subject, LANDSCAPE, 120, full))[-1]
    assert full_at[2] == 1.0 and faces_under_words(_faces(subject, size), last,
                                                   _ink_at(full, full_at), block.gap,
                                                   (LANDSCAPE.width, h))
