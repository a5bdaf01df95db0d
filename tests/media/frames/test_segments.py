"""A film rendered in segments and joined equals the single-pass film (media.frames.segments,
media.frames.render ``frames=``, media.plan.timeline.segment_cut_frames)."""

from __future__ import annotations

import bisect
import contextlib
import dataclasses
import json
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from media.base import spec
from media.base.runner import Limits, ffmpeg_argv, ffprobe_argv, run_tool, start_tool
from media.cards.spec import CardSpec
from media.deliver.verify import verify_film
from media.frames.encode import FilmSound
from media.frames.render import RenderRequest, render_films
from media.frames.segments import concat_list, count_video_frames, join_segments
from media.frames.sources import FilmSources, sources_for
from media.plan.inputs import ClipSource, PhotoSource
from media.plan.timeline import Timeline, plan_timeline, segment_cut_frames
from media.song.compose import master
from media.song.soundtrack import write_wav

SAMPLE_PHOTOS = Path(__file__).resolve().parents[2] / "fixtures" / "order" / "photos"
LENGTH_S = 12.0
PRESET = "superfast"  # still High profile; keeps the test quick
LIMITS = Limits(timeout_s=120)
MIN_PSNR_DB = 35.0


@dataclasses.dataclass(frozen=True)
class Films:
    timeline: Timeline
    joins: list[int]
    single: dict[str, Path]
    joined: dict[str, Path]
    segments: list[dict[str, Path]]
    photo_paths: dict[str, Path]
    clip_paths: dict[str, Path]


def _photos() -> list[PhotoSource]:
    sources = []
    for path in sorted(SAMPLE_PHOTOS.glob("*.jpg"))[:3]:
        with Image.open(path) as image:
            sources.append(PhotoSource(path.stem, path, image.width, image.height, False))
    return sources


def _clip(path: Path) -> ClipSource:
    """testsrc2: every frame differs from the next (a moving pattern and a frame counter)."""
    run_tool(ffmpeg_argv("-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30", "-t", "4",
                         "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
                         "-colorspace", "bt709", "-color_primaries", "bt709",
                         "-color_trc", "bt709", "-color_range", "tv", str(path)), LIMITS)
    return ClipSource("clip", path, 4.0, 640, 360, False)


def _song(path: Path, seconds: float) -> Path:
    """A mastered (-14 LUFS) chord that swells, so the verify stage's loudness check passes."""
    rate = spec.AUDIO_SAMPLE_RATE
    t = np.arange(round(seconds * rate)) / rate
    chord = sum(np.sin(2 * np.pi * f * t) for f in (220.0, 277.2, 329.6))
    swell = 0.6 + 0.4 * np.sin(2 * np.pi * 0.5 * t)
    audio, _, _ = master(np.stack([chord * swell] * 2, axis=1) * 0.2, rate)
    return write_wav(path, audio)


def _timeline(photos: list[PhotoSource], clips: list[ClipSource], length: float,
              style: str = "gift", gentle: bool = False) -> Timeline:
    beats = [i * 0.5 for i in range(int(length * 2) + 1)]
    return plan_timeline(photos, clips, beats, length,
                         CardSpec("opening", ("Happy Birthday", "Eileen")),
                         CardSpec("closing", ("With love",)), motion_shots=2, gentle=gentle,
                         style=style, subject_photo_id=photos[0].id if photos else None)


def _render(timeline: Timeline, films: dict[str, Path], audio: Path | None,
            frames: tuple[int, int] | None, photo_paths: dict[str, Path],
            clip_paths: dict[str, Path]) -> None:
    render_films(timeline, FilmSources(photo_paths, clip_paths, audio=audio), films,
                 RenderRequest(frames=frames), spec.EncoderSettings(preset=PRESET))


@pytest.fixture(scope="module")
def films(tmp_path_factory: pytest.TempPathFactory) -> Films:
    """The same timeline rendered in one pass and in three segments joined: one join where a
    clip shot starts (the photo before it still fading out), one where it ends (the photo after
    it already fading in)."""
    tmp = tmp_path_factory.mktemp("segments")
    photos, clips = _photos(), [_clip(tmp / "clip.mp4")]
    song = _song(tmp / "song.wav", LENGTH_S)
    timeline = _timeline(photos, clips, LENGTH_S)
    clip = next(s for s in timeline.shots if s.kind == "clip")
    joins = [clip.visible_in, clip.visible_out]
    assert set(joins) <= set(segment_cut_frames(timeline))
    photo_paths = {p.id: p.path for p in photos}
    clip_paths = {c.id: c.path for c in clips}
    single = {a.name: tmp / f"single-{a.name}.mp4" for a in spec.ASPECTS}
    _render(timeline, single, song, None, photo_paths, clip_paths)
    bounds = [0, *joins, timeline.total_frames]
    segments = []
    for index, frames in enumerate(pairwise(bounds)):
        outputs = {a.name: tmp / f"segment-{index}-{a.name}.mp4" for a in spec.ASPECTS}
        needed_photos, needed_clips = sources_for(timeline, frames)  # only what it reads
        _render(timeline, outputs, None, frames,
                {k: v for k, v in photo_paths.items() if k in needed_photos},
                {k: v for k, v in clip_paths.items() if k in needed_clips})
        segments.append(outputs)
    joined = {a.name: join_segments([s[a.name] for s in segments],
                                    FilmSound(song, timeline.total_frames),
                                    tmp / f"joined-{a.name}.mp4", LIMITS)
              for a in spec.ASPECTS}
    return Films(timeline, joins, single, joined, segments, photo_paths, clip_paths)


def _probe(path: Path) -> dict:
    out = run_tool(ffprobe_argv("-count_frames", "-show_streams", "-show_format", "-of", "json",
                                str(path)), LIMITS)
    return json.loads(out.stdout)


def _psnr(a: np.ndarray, b: np.ndarray) -> float:
    mse = float(np.mean((a.astype(np.float32) - b.astype(np.float32)) ** 2))
    return 99.0 if mse == 0 else 10 * np.log10(255.0**2 / mse)


def _frames(path: Path, aspect: spec.Aspect,
            stack: contextlib.ExitStack) -> Iterator[np.ndarray]:
    """Decoded yuv420p frames of ``path``, one at a time (a whole film would not fit)."""
    size = aspect.width * aspect.height * 3 // 2
    argv = ffmpeg_argv("-i", str(path), "-map", "0:v:0", "-f", "rawvideo", "-pix_fmt",
                       "yuv420p", "pipe:1")
    process = stack.enter_context(start_tool(argv, LIMITS, stdout_stream=True))
    while len(data := process.stdout.read(size)) == size:
        yield np.frombuffer(data, np.uint8)


def test_each_segment_starts_on_a_keyframe_and_holds_its_frames_only(films: Films) -> None:
    bounds = [0, *films.joins, films.timeline.total_frames]
    for outputs, (start, stop) in zip(films.segments, pairwise(bounds), strict=True):
        for path in outputs.values():
            info = _probe(path)
            assert [s["codec_type"] for s in info["streams"]] == ["video"]  # video only
            assert int(info["streams"][0]["nb_read_frames"]) == stop - start
            first = run_tool(ffprobe_argv("-select_streams", "v:0", "-show_entries",
                                          "frame=pict_type,key_frame", "-read_intervals",
                                          "%+#1", "-of", "json", str(path)), LIMITS)
            frame = json.loads(first.stdout)["frames"][0]
            assert (frame["pict_type"], frame["key_frame"]) == ("I", 1)


@pytest.mark.parametrize("aspect", spec.ASPECTS, ids=lambda a: a.name)
def test_joined_film_has_every_frame_once_and_one_soundtrack(films: Films,
                                                             aspect: spec.Aspect) -> None:
    single, joined = _probe(films.single[aspect.name]), _probe(films.joined[aspect.name])
    video = {k: next(s for s in info["streams"] if s["codec_type"] == "video")
             for k, info in (("single", single), ("joined", joined))}
    assert int(video["joined"]["nb_read_frames"]) == films.timeline.total_frames
    assert int(video["single"]["nb_read_frames"]) == films.timeline.total_frames
    assert count_video_frames(films.joined[aspect.name], LIMITS) == films.timeline.total_frames
    audios = [s for s in joined["streams"] if s["codec_type"] == "audio"]
    assert len(audios) == 1
    single_audio = next(s for s in single["streams"] if s["codec_type"] == "audio")
    aac_frame_s = 1024 / spec.AUDIO_SAMPLE_RATE
    assert float(audios[0]["duration"]) == pytest.approx(float(single_audio["duration"]),
                                                         abs=aac_frame_s)
    assert float(audios[0]["duration"]) == pytest.approx(LENGTH_S, abs=2 * aac_frame_s)
    assert float(video["joined"]["duration"]) == pytest.approx(LENGTH_S, abs=1e-3)
    for key in ("codec_name", "profile", "pix_fmt", "color_space", "color_primaries",
                "color_transfer", "color_range", "r_frame_rate", "avg_frame_rate"):
        assert video["joined"][key] == video["single"][key], key


@pytest.mark.parametrize("aspect", spec.ASPECTS, ids=lambda a: a.name)
def test_joined_film_matches_the_single_pass_frame_by_frame(films: Films,
                                                            aspect: spec.Aspect) -> None:
    """Every frame is the single pass's same frame (two encodes of one picture). A duplicated
    or dropped frame at a join would shift the whole next segment by one: there, frames match
    their own index better than their neighbour's, so such a shift could not pass."""
    bounds = [0, *films.joins, films.timeline.total_frames]
    own: list[float] = []
    shifted: dict[int, list[float]] = {k: [] for k in range(1, len(bounds) - 1)}
    previous: tuple[np.ndarray, np.ndarray] | None = None
    with contextlib.ExitStack() as stack:
        pairs = zip(_frames(films.joined[aspect.name], aspect, stack),
                    _frames(films.single[aspect.name], aspect, stack), strict=True)
        for index, (joined, single) in enumerate(pairs):
            own.append(_psnr(joined, single))
            segment = bisect.bisect_right(bounds, index) - 1
            if segment in shifted and index > bounds[segment] and previous is not None:
                lag = _psnr(joined, previous[1])  # as if a frame were duplicated at the join
                lead = _psnr(previous[0], single)  # as if a frame were dropped there
                shifted[segment].append(max(lag, lead) - own[-1])
            previous = (joined, single)
    assert len(own) == films.timeline.total_frames
    worst = int(np.argmin(own))
    assert own[worst] > MIN_PSNR_DB, f"frame {worst}: {own[worst]:.1f} dB"
    for segment, gaps in shifted.items():
        assert np.mean(gaps) < -3.0, f"segment {segment}: a shift by one is not visible"
    for join in films.joins:
        assert min(own[join - 1:join + 1]) > MIN_PSNR_DB


@pytest.mark.parametrize("aspect", spec.ASPECTS, ids=lambda a: a.name)
def test_joined_film_passes_the_verify_stage(films: Films, aspect: spec.Aspect) -> None:
    report = verify_film(films.joined[aspect.name], aspect=aspect, planned_duration_s=LENGTH_S)
    assert report.ok, report.problems
    assert report.measurements["top_level_boxes"].startswith("ftyp")


def test_a_segment_may_not_start_inside_a_clip_shot(films: Films, tmp_path: Path) -> None:
    clip = next(s for s in films.timeline.shots if s.kind == "clip")
    outputs = {a.name: tmp_path / f"{a.name}.mp4" for a in spec.ASPECTS}
    with pytest.raises(ValueError, match="inside clip shot"):
        render_films(films.timeline, FilmSources(films.photo_paths, films.clip_paths), outputs,
                     RenderRequest(frames=(clip.visible_in + 1, films.timeline.total_frames)))
    assert not any(p.exists() for p in outputs.values())


@pytest.mark.parametrize(("style", "gentle", "clips", "length"), [
    ("gift", False, 1, 30.0), ("social", False, 3, 45.0), ("brand", False, 2, 60.0),
    ("gift", True, 3, 90.0), ("social", False, 0, 20.0),
])
def test_segment_cut_frames_never_fall_inside_a_clip_shot(style: str, gentle: bool, clips: int,
                                                          length: float) -> None:
    photos = [PhotoSource(f"p{i:02d}", Path(f"/p{i}.jpg"), 1600, 1200, False) for i in range(8)]
    sources = [ClipSource(f"c{i:02d}", Path(f"/c{i}.mp4"), 6.0, 1280, 720, False)
               for i in range(clips)]
    timeline = _timeline(photos, sources, length, style, gentle)
    cuts = segment_cut_frames(timeline)
    assert cuts == sorted(set(cuts)) and cuts
    assert all(0 < f < timeline.total_frames for f in cuts)
    clip_shots = [s for s in timeline.shots if s.kind == "clip"]
    assert len(clip_shots) >= clips
    for f in cuts:
        assert not any(s.visible_in < f < s.visible_out for s in clip_shots), f
        assert any(f in (s.visible_in, s.visible_out) for s in timeline.shots), f
    for shot in clip_shots:  # a clip's own edges stay candidates unless another clip covers them
        assert all(f in cuts or any(o.visible_in < f < o.visible_out for o in clip_shots)
                   for f in (shot.visible_in, shot.visible_out) if 0 < f < timeline.total_frames)


def test_concat_list_quotes_paths_for_the_concat_demuxer(tmp_path: Path) -> None:
    odd = tmp_path / "it's a segment.mp4"
    text = concat_list([odd, Path("/x/b.mp4")])
    assert text.splitlines()[1] == "file '" + str(tmp_path) + "/it'\\''s a segment.mp4'"
    assert text.splitlines()[2] == "file '/x/b.mp4'"
    with pytest.raises(ValueError):
        concat_list([tmp_path / "line\nbreak.mp4"])
