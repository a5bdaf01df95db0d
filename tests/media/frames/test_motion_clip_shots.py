"""A photo shot that plays the motion provider's clip of its photo: the render decodes the clip
(framed like a customer's clip) in place of moving the photo (media.frames.preparer)."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from bench.exact_floor import raw_writer_argv
from media.base import spec, yuv
from media.base.probe import sniff_container
from media.cards.spec import CardSpec
from media.frames.encode import open_encoders
from media.frames.render import RenderRequest, render_films
from media.frames.sources import FilmSources, motion_clips_for
from media.intake.clip_checks import probe_clip
from media.intake.clips import normalize_clip
from media.plan import planner
from media.plan.inputs import MotionClipSource, PhotoSource
from media.plan.spec import FilmSpec, FilmWords, MotionRecipe, SongGrid
from media.plan.timeline import PROVIDER, Timeline
from tests.fake_motion_provider import marker_share, zoom_video

pytestmark = pytest.mark.render

LENGTH_S = 12.0
CLIP_S = 6.0
COLOURS = {"p0": (90, 140, 90), "p1": (130, 110, 150), "p2": (150, 130, 100)}


def _photos(tmp_path: Path) -> list[PhotoSource]:
    for photo_id, rgb in COLOURS.items():
        Image.new("RGB", (1600, 1200), rgb).save(tmp_path / f"{photo_id}.png")
    return [PhotoSource(photo_id, 1600, 1200, False) for photo_id in COLOURS]


def _timeline(photos: list[PhotoSource], clips: tuple[MotionClipSource, ...]) -> Timeline:
    beats = [i * 0.5 for i in range(int(LENGTH_S * 2) + 1)]
    return planner.plan(FilmSpec(
        length_sec=LENGTH_S, photos=photos, recipe=MotionRecipe(motion_shots=2),
        subject_photo_id="p2", motion_clips=clips,  # the title and closing over p2
        words=FilmWords(opening=CardSpec("opening", ("Happy Birthday", "Ada")),
                        closing=CardSpec("closing", ("With love",))),
        song=SongGrid(beat_times=beats)))


def _provider_clip(tmp_path: Path) -> tuple[Path, MotionClipSource]:
    """The fake service's video of p0, taken in as the provider's client takes it in."""
    source = zoom_video(tmp_path / "p0.png", CLIP_S, tmp_path / "p0.provider.mp4")
    mezzanine = tmp_path / "p0.motion.mp4"
    info = normalize_clip(source, mezzanine, probe_clip(source, sniff_container(source)),
                          max_seconds=CLIP_S)
    return mezzanine, MotionClipSource("p0", info.duration_s)


def test_the_provider_shot_shows_the_clip_in_both_aspects_and_the_others_move_locally(
        tmp_path: Path) -> None:
    photos = _photos(tmp_path)
    clip_path, clip = _provider_clip(tmp_path)
    timeline = _timeline(photos, (clip,))
    played = [i for i, s in enumerate(timeline.shots) if s.motion == PROVIDER]
    assert len(played) == 1 and motion_clips_for(timeline) == {"p0"}
    shot = timeline.shots[played[0]]
    other = next(s for s in timeline.shots if s.kind == "photo" and s.motion != PROVIDER)
    wanted = {(shot.cut_in + shot.cut_out) // 2: True, (other.cut_in + other.cut_out) // 2: False}
    seen: dict[tuple[int, str], float] = {}

    def on_frame(index: int, aspect: str, i420: np.ndarray) -> None:
        if index in wanted:
            seen[index, aspect] = marker_share(yuv.i420_to_rgb(i420))

    outputs = {a.name: tmp_path / f"{a.name}.yuv" for a in spec.ASPECTS}
    sources = FilmSources({p.id: tmp_path / f"{p.id}.png" for p in photos},
                          motion_clips={"p0": clip_path})
    render_films(timeline, sources, outputs, RenderRequest(on_frame=on_frame),
                 encoders=functools.partial(open_encoders, argv_for=raw_writer_argv))
    for (index, aspect), share in seen.items():
        assert (share > 0.02) == wanted[index], (index, aspect, share)
    assert len(seen) == 2 * len(spec.ASPECTS)


def test_a_render_without_the_clips_file_names_the_photo(tmp_path: Path) -> None:
    photos = _photos(tmp_path)
    timeline = _timeline(photos, (MotionClipSource("p0", CLIP_S),))
    sources = FilmSources({p.id: tmp_path / f"{p.id}.png" for p in photos})
    with pytest.raises(ValueError, match="motion clip of photo 'p0'"):
        sources.check(timeline, (0, timeline.total_frames))
