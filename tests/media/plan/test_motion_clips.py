"""The motion provider's clips in the plan (media.plan.motion_clips): which photos are ordered,
how long a clip, and which shot plays each clip."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from media.cards.spec import CardSpec
from media.design import looks
from media.plan import planner
from media.plan.inputs import MotionClipSource, PhotoSource
from media.plan.motion_clips import (
    MOTION_CLIP_MAX_S,
    motion_clip_seconds,
    motion_clip_slots,
    motion_photos,
)
from media.plan.pacing import pacing_of
from media.plan.shot_order import Slot
from media.plan.spec import FilmSpec, FilmWords, MotionRecipe, SongGrid
from media.plan.timeline import FULL_MOTIONS, PROVIDER, Timeline, segment_cut_frames

OPENING = CardSpec("opening", ("Happy Birthday", "Ada"), None, False, "gift")
CLOSING = CardSpec("closing", ("With love", "from all of us"), None, False, "gift")


def _photos(n: int, faces: dict[int, float] | None = None,
            low_res: bool = False) -> list[PhotoSource]:
    return [PhotoSource(f"p{i}", 4000, 3000, low_res, face_fraction=(faces or {}).get(i, 0.0))
            for i in range(n)]


def _spec(photos: list[PhotoSource], clips: dict[str, float], *, length: float = 30.0,
          premium: bool = False, motion_shots: int = 4) -> FilmSpec:
    beats = [float(t) for t in np.arange(0.25, length, 60 / 112)]
    return FilmSpec(length_sec=length, photos=photos, subject_photo_id=photos[0].id,
                    recipe=MotionRecipe(motion_shots=motion_shots, premium=premium),
                    motion_clips=tuple(MotionClipSource(p, s) for p, s in clips.items()),
                    words=FilmWords(opening=OPENING, closing=CLOSING),
                    song=SongGrid(beat_times=beats))


def _provider_shots(timeline: Timeline) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for i, shot in enumerate(timeline.shots):
        if shot.motion == PROVIDER:
            out.setdefault(shot.source_id or "", []).append(i)
    return out


def test_the_subject_and_the_faces_are_ordered_first_then_the_others_evenly() -> None:
    photos = _photos(8, faces={2: 0.3, 5: 0.1})
    assert motion_photos(photos, "p7", 4) == ["p7", "p2", "p5", "p0"]
    assert motion_photos(photos, "p7", 5) == ["p7", "p2", "p5", "p0", "p3"]
    assert motion_photos(photos, None, 2) == ["p2", "p5"]  # the largest face is the subject
    assert motion_photos(photos, "p7", 0) == []
    assert motion_photos(photos[:2], "p0", 6) == ["p0", "p1"]


def test_low_res_photos_are_ordered_too_the_service_makes_its_own_frames() -> None:
    assert motion_photos(_photos(3, low_res=True), "p0", 2) == ["p0", "p1"]


def test_the_clip_lasts_the_longest_shot_of_the_look_in_whole_seconds_within_bounds() -> None:
    gift = pacing_of(looks.look(looks.DEFAULT_LOOK, "gift"))
    gentle = pacing_of(looks.look(looks.GENTLE_LOOK, "gift"))
    social = pacing_of(looks.look(looks.DEFAULT_LOOK, "social"))
    for pacing in (gift, gentle, social):
        seconds = motion_clip_seconds(pacing)
        assert seconds == int(seconds) and 2.0 <= seconds <= MOTION_CLIP_MAX_S
        assert seconds >= min(MOTION_CLIP_MAX_S, pacing.hold_s)
    assert motion_clip_seconds(social) < motion_clip_seconds(gift) <= motion_clip_seconds(gentle)


def test_a_clip_plays_in_its_photos_first_shot_alone_that_it_lasts_through() -> None:
    slots = [Slot("photo", "a", 2.0), Slot("photo", "b", 2.0), Slot("card", "", 3.0),
             Slot("photo", "a", 5.0), Slot("photo", "b", 2.0), Slot("photo", "c", 9.0)]
    clips = [MotionClipSource("a", 4.0), MotionClipSource("b", 4.0), MotionClipSource("c", 4.0)]
    visible = [2.5, 2.5, 3.0, 5.5, 2.5, 9.5]
    assert motion_clip_slots(slots, visible, set(), clips) == {0, 1}
    assert motion_clip_slots(slots, visible, {0, 1}, clips) == {4}  # a's later shot is too long
    assert motion_clip_slots(slots, [5.0, *visible[1:]], set(), clips) == {1}


def test_without_clips_the_plan_is_the_local_plan() -> None:
    spec = _spec(_photos(6, faces={0: 0.3}), {})
    plain = planner.plan(spec)
    assert not _provider_shots(plain)
    assert planner.plan(spec.model_copy(update={"motion_clips": ()})) == plain


@pytest.mark.parametrize("premium", [False, True])
def test_each_clip_plays_once_in_a_full_motion_shot_that_it_lasts_through(
        premium: bool) -> None:
    photos = [replace(p, matte=0.9 if i < 3 else 0.0)
              for i, p in enumerate(_photos(6, faces={0: 0.3, 3: 0.2}))]
    # p0, the subject, is first shown by the title card (p3, p4 by signature's title leads)
    timeline = planner.plan(_spec(photos, {"p1": 8.0, "p2": 8.0}, premium=premium))
    played = _provider_shots(timeline)
    assert set(played) == {"p1", "p2"} and all(len(v) == 1 for v in played.values())
    for indices in played.values():
        shot = timeline.shots[indices[0]]
        assert shot.kind == "photo" and not shot.partner_id
        assert shot.frames <= 8.0 * timeline.fps
    local = planner.plan(_spec(photos, {}, premium=premium))
    assert [s.source_id for s in timeline.shots] == [s.source_id for s in local.shots]
    assert [s.cut_in for s in timeline.shots] == [s.cut_in for s in local.shots]


def test_the_clips_take_the_recipes_full_moves_first() -> None:
    photos = _photos(8)
    local = planner.plan(_spec(photos, {}, motion_shots=3))
    with_clips = planner.plan(_spec(photos, {"p1": 8.0, "p2": 8.0}, motion_shots=3))
    moves = [s for s in local.shots if s.kind == "photo" and s.motion in FULL_MOTIONS]
    full = [s for s in with_clips.shots
            if s.kind == "photo" and s.motion in (*FULL_MOTIONS, PROVIDER)]
    assert len(moves) == len(full) == 3
    assert sum(s.motion == PROVIDER for s in full) == 2


def test_a_photo_whose_every_shot_outlasts_its_clip_keeps_its_local_moves() -> None:
    timeline = planner.plan(_spec(_photos(4), {"p0": 0.5}))
    assert not _provider_shots(timeline)


def test_a_film_is_never_cut_into_segments_inside_a_shot_that_plays_a_clip() -> None:
    timeline = planner.plan(_spec(_photos(6), {"p0": 8.0, "p2": 8.0, "p4": 8.0}))
    cuts = segment_cut_frames(timeline)
    for shot in timeline.shots:
        if shot.motion == PROVIDER:
            assert shot.plays_clip
            assert not any(shot.visible_in < f < shot.visible_out for f in cuts)


def test_the_spec_carries_the_clips_through_its_json() -> None:
    spec = _spec(_photos(3), {"p1": 8.0})
    again = FilmSpec.from_json(spec.to_json())
    assert again == spec and again.motion_clips == (MotionClipSource("p1", 8.0),)
