"""verify_film on small films made with ffmpeg: a compliant one passes, each miss is named."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from media.base import spec, yuv
from media.base.runner import Limits, ffmpeg_argv, run_tool
from media.base.spec import LANDSCAPE, Aspect
from media.deliver.verify import (
    FILMS_CHECKED_AT_ONCE,
    FilmReport,
    SoundMeasures,
    ffprobe_json,
    signal_decoder_threads,
    true_peak_dbtp,
    verify_film,
)
from media.frames.signal import FrameSignal, SignalRecorder

pytestmark = pytest.mark.render

SMALL = Aspect("test", 320, 180)
AMPLITUDE_14_LUFS = 10 ** (-14 / 20)  # a 1 kHz sine in both channels reads 20*log10(A) LUFS
MOVING = "testsrc2=s={size}:r={fps}:d={seconds}"
DELIVERY_GOP = spec.GOP_FRAMES  # the delivery encoders' keyframe interval


def make_film(dest: Path, *, video: str = MOVING, size: str = "320x180", fps: int = 30,
              seconds: float = 8.0, amplitude: float | None = AMPLITUDE_14_LUFS,
              faststart: bool = True, colour: bool = True,
              video_input: list[str] | None = None, gop: int | None = None) -> Path:
    """A film encoded the way the spec wants it, unless told otherwise; its picture from
    ``video`` (a lavfi source) or ffmpeg's ``video_input`` options, a keyframe at least every
    ``gop`` frames if given (x264's default, 250, otherwise)."""
    args = video_input or ["-f", "lavfi", "-i", video.format(size=size, fps=fps,
                                                            seconds=seconds)]
    if amplitude is not None:
        wave = f"{amplitude}*sin(2*PI*1000*t)"
        args += ["-f", "lavfi", "-i", f"aevalsrc={wave}|{wave}:s=48000:d={seconds}"]
    args += ["-c:v", "libx264", "-preset", "superfast", "-profile:v", "high", "-pix_fmt",
             "yuv420p", "-r", str(fps), "-t", str(seconds), *(["-g", str(gop)] if gop else [])]
    if colour:
        args += ["-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709",
                 "-color_range", "tv"]
    if amplitude is not None:
        args += ["-c:a", "aac", "-b:a", "192k", "-ar", "48000", "-ac", "2"]
    if faststart:
        args += ["-movflags", "+faststart"]
    run_tool(ffmpeg_argv(*args, str(dest)), Limits(timeout_s=60))
    return dest


def remux(src: Path, dest: Path, *args: str) -> Path:
    """Copy the streams into a new file (no re-encode)."""
    run_tool(ffmpeg_argv("-i", str(src), "-c", "copy", *args, str(dest)), Limits(timeout_s=30))
    return dest


@pytest.fixture(scope="module")
def compliant(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An 8 s compliant film at the SMALL aspect, shared by the tests that only remux it."""
    return make_film(tmp_path_factory.mktemp("films") / "compliant.mp4")


def check(film: Path, *, aspect: Aspect = SMALL, planned: float = 8.0) -> list[str]:
    report = verify_film(film, aspect=aspect, planned_duration_s=planned)
    assert report.ok == (not report.problems)
    assert all(isinstance(v, float | str) for v in report.measurements.values())
    return report.problems


def assert_only(problems: list[str], check_name: str) -> None:
    assert problems and all(p.startswith(f"{check_name}:") for p in problems), problems


def test_compliant_film_passes(compliant: Path) -> None:
    report = verify_film(compliant, aspect=SMALL, planned_duration_s=8.0)

    assert report.ok, report.problems
    measured = report.measurements
    assert abs(float(measured["integrated_lufs"]) + 14) < 0.5
    assert float(measured["true_peak_dbtp"]) < -10
    assert measured["longest_black_s"] == 0.0 and measured["longest_frozen_s"] == 0.0
    assert str(measured["top_level_boxes"]).startswith("ftyp,moov")


def test_compliant_full_hd_film_passes(tmp_path: Path) -> None:
    upscaled = MOVING.replace("s={size}", "s=480x270") + ",scale=1920:1080:flags=neighbor"
    film = make_film(tmp_path / "film.mp4", video=upscaled, seconds=2.0)
    assert check(film, aspect=LANDSCAPE, planned=2.0) == []


def test_two_seconds_too_short(compliant: Path) -> None:
    assert_only(check(compliant, planned=10.0), "duration")


def test_no_faststart(compliant: Path, tmp_path: Path) -> None:
    film = remux(compliant, tmp_path / "f.mp4")
    assert_only(check(film), "faststart")


def test_missing_audio(compliant: Path, tmp_path: Path) -> None:
    film = remux(compliant, tmp_path / "f.mp4", "-an", "-movflags", "+faststart")
    assert_only(check(film), "audio")


def test_wrong_size(tmp_path: Path) -> None:
    assert_only(check(make_film(tmp_path / "f.mp4", size="320x240", seconds=3), planned=3),
                "size")


def test_wrong_fps(tmp_path: Path) -> None:
    assert_only(check(make_film(tmp_path / "f.mp4", fps=25, seconds=3), planned=3), "fps")


def test_untagged_colour(tmp_path: Path) -> None:
    assert_only(check(make_film(tmp_path / "f.mp4", colour=False, seconds=3), planned=3),
                "color")


def test_loud_film_misses_loudness_and_true_peak(tmp_path: Path) -> None:
    problems = check(make_film(tmp_path / "f.mp4", amplitude=0.99, seconds=3), planned=3)
    assert {p.split(":")[0] for p in problems} == {"loudness", "true_peak"}, problems


BLACK_FROM_3_TO_5_5 = (MOVING + ",drawbox=x=0:y=0:w=iw:h=ih:color=black:t=fill"
                       ":enable='between(t,3,5.5)'")
BLACK_FIRST_1_8 = (MOVING + ",drawbox=x=0:y=0:w=iw:h=ih:color=black:t=fill"
                   ":enable='lt(t,1.8)'")


def test_long_black_stretch(tmp_path: Path) -> None:
    problems = check(make_film(tmp_path / "f.mp4", video=BLACK_FROM_3_TO_5_5))
    assert_only(problems, "black")
    assert "2.5 s" in problems[0]


def test_black_opening_fade_is_allowed(tmp_path: Path) -> None:
    assert check(make_film(tmp_path / "f.mp4", video=BLACK_FIRST_1_8)) == []


def test_frozen_stretch(tmp_path: Path) -> None:
    frozen = MOVING + ",split[a][b];[a][b]freezeframes=first=60:last=209:replace=60"  # 2-7 s
    problems = check(make_film(tmp_path / "f.mp4", video=frozen))
    assert_only(problems, "frozen")
    assert "5.0 s frozen at 2.0-7.0 s" in problems[0]


def test_loudness_black_and_frozen_misses_of_one_film_are_all_reported(tmp_path: Path) -> None:
    """The sound is measured while the picture decodes: neither check hides the other's."""
    frozen_then_black = (MOVING + ",split[a][b];[a][b]freezeframes=first=30:last=179:replace=30,"
                         "drawbox=x=0:y=0:w=iw:h=ih:color=black:t=fill:enable='between(t,6,8.5)'")
    problems = check(make_film(tmp_path / "f.mp4", video=frozen_then_black, amplitude=0.99,
                               seconds=11), planned=11)
    assert {p.split(":")[0] for p in problems} == {"loudness", "true_peak", "black", "frozen"}


def test_signal_decoder_threads_share_the_cores_between_the_films_checked_at_once() -> None:
    assert signal_decoder_threads(cores=FILMS_CHECKED_AT_ONCE) == 1
    assert signal_decoder_threads(cores=1) == 1
    assert signal_decoder_threads(cores=4 * FILMS_CHECKED_AT_ONCE) == 4


def test_slow_ken_burns_push_is_not_frozen(tmp_path: Path) -> None:
    push = ("testsrc2=s=640x360:r={fps}:d=1,trim=end_frame=1,"
            "zoompan=z='1+0.0004*on':d=240:s={size}:fps={fps}")
    film = make_film(tmp_path / "f.mp4", video=push)
    assert check(film) == []


def test_unreadable_file_is_reported_not_raised(tmp_path: Path) -> None:
    film = tmp_path / "f.mp4"
    film.write_bytes(b"\0\0\0\x10ftypisom\0\0\0\0" + np.random.default_rng(5).bytes(2048))
    problems = check(film)
    assert any(p.startswith("probe:") for p in problems), problems


def test_true_peak_sees_inter_sample_peaks() -> None:
    rate, amplitude = 48_000, 0.5
    t = np.arange(rate) / rate
    # fs/4 with a 45° phase: every sample sits at ±0.707*A, the waveform peaks at A between them.
    wave = amplitude * np.sin(2 * np.pi * (rate / 4) * t + np.pi / 4)
    stereo = np.stack([wave, wave], axis=1).astype(np.float32)
    sample_peak = 20 * math.log10(np.abs(stereo).max())
    assert abs(sample_peak - 20 * math.log10(amplitude) + 3.01) < 0.05
    assert abs(true_peak_dbtp(stereo) - 20 * math.log10(amplitude)) < 0.5


def test_ffprobe_json_helper(tmp_path: Path) -> None:
    data = ffprobe_json(make_film(tmp_path / "f.mp4", seconds=1.0))
    assert {s["codec_type"] for s in data["streams"]} == {"video", "audio"}


# --- with the render's frame signal -----------------------------------------------------------


def film_and_signal(dest: Path, video: str = MOVING, seconds: float = 8.0,
                    signal_video: str | None = None) -> tuple[Path, FrameSignal]:
    """A compliant film encoded from raw I420 frames, and the signal recorded from those frames
    as the render records it (from ``signal_video``'s frames instead, if given)."""
    raw = dest.with_suffix(".yuv")
    for source, path in ((video, raw), (signal_video, dest.with_suffix(".other.yuv"))):
        if source is not None:
            run_tool(ffmpeg_argv("-f", "lavfi", "-i", source.format(size="320x180", fps=30,
                                                                      seconds=seconds),
                                 "-t", str(seconds), "-pix_fmt", "yuv420p", "-f", "rawvideo",
                                 str(path)), Limits(timeout_s=60))
    recorder = SignalRecorder()
    frames = np.fromfile(dest.with_suffix(".other.yuv") if signal_video else raw, np.uint8)
    for frame in frames.reshape(-1, *yuv.frame_shape(SMALL.width, SMALL.height)):
        recorder.add(frame)
    make_film(dest, seconds=seconds, gop=DELIVERY_GOP, video_input=[
        "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "320x180", "-r", "30", "-i", str(raw)])
    return dest, recorder.result()


def check_with(film: Path, signal: FrameSignal, planned: float = 8.0) -> FilmReport:
    report = verify_film(film, aspect=SMALL, planned_duration_s=planned, signal=signal)
    assert report.ok == (not report.problems)
    return report


def test_film_checked_against_its_signal_passes_on_its_keyframes(tmp_path: Path) -> None:
    report = check_with(*film_and_signal(tmp_path / "f.mp4"))
    assert report.problems == []
    assert report.measurements["frames"] == report.measurements["frames_composed"] == 240
    assert report.measurements["keyframes_checked"] >= 4  # one every 60 frames or sooner
    assert report.measurements["keyframe_max_difference"] < 1.5


def test_black_and_frozen_stretches_are_read_from_the_signal(tmp_path: Path) -> None:
    frozen_then_black = (MOVING + ",split[a][b];[a][b]freezeframes=first=30:last=179:replace=30,"
                         "drawbox=x=0:y=0:w=iw:h=ih:color=black:t=fill:enable='between(t,6,8.5)'")
    report = check_with(*film_and_signal(tmp_path / "f.mp4", frozen_then_black, 11), planned=11)
    assert {p.split(":")[0] for p in report.problems} == {"black", "frozen"}
    assert any("5.0 s frozen at 1.0-6.0 s" in p for p in report.problems), report.problems


def test_film_that_is_not_the_encode_of_the_composed_frames_misses_keyframes(
        tmp_path: Path) -> None:
    other = "mandelbrot=s={size}:r={fps},trim=duration={seconds}"
    report = check_with(*film_and_signal(tmp_path / "f.mp4", signal_video=other))
    assert_only(report.problems, "keyframes")


def test_film_short_of_the_composed_frames_misses_frames(tmp_path: Path) -> None:
    film, signal = film_and_signal(tmp_path / "f.mp4")
    cut = remux(film, tmp_path / "cut.mp4", "-t", "7", "-movflags", "+faststart")
    report = check_with(cut, signal, planned=7.0)
    assert_only(report.problems, "frames")
    assert report.problems[0].endswith("frames, the render composed 240")
    assert report.measurements["frames"] < 240


def test_two_films_with_the_same_sound_have_it_measured_once(compliant: Path,
                                                              tmp_path: Path) -> None:
    # The render encodes one soundtrack into both aspects: the same audio packets.
    other = remux(compliant, tmp_path / "other.mp4", "-movflags", "+faststart")
    sound = SoundMeasures()
    reports = [verify_film(film, aspect=SMALL, planned_duration_s=8.0, sound=sound)
               for film in (compliant, other)]
    assert all(report.ok for report in reports), [r.problems for r in reports]
    assert sound.measured == 1
    assert reports[0].measurements["integrated_lufs"] == reports[1].measurements[
        "integrated_lufs"]


def test_a_film_whose_sound_differs_is_measured_itself_and_its_miss_reported(
        compliant: Path, tmp_path: Path) -> None:
    loud = make_film(tmp_path / "loud.mp4", amplitude=0.99)
    sound = SoundMeasures()
    assert verify_film(compliant, aspect=SMALL, planned_duration_s=8.0, sound=sound).ok
    problems = verify_film(loud, aspect=SMALL, planned_duration_s=8.0, sound=sound).problems
    assert sound.measured == 2
    assert {p.split(":")[0] for p in problems} == {"loudness", "true_peak"}, problems
