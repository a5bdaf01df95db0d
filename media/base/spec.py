"""The output spec of a delivered film: one source of truth for the encoder and the verifier."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Aspect:
    """One delivered aspect ratio: its name (the delivery file stem) and frame size in pixels."""

    name: str
    width: int
    height: int

    @property
    def is_portrait(self) -> bool:
        """True for the 9:16 film."""
        return self.height > self.width


LANDSCAPE = Aspect("16x9", 1920, 1080)
PORTRAIT = Aspect("9x16", 1080, 1920)
ASPECTS: tuple[Aspect, ...] = (LANDSCAPE, PORTRAIT)

FPS = 30
VIDEO_CODEC = "h264"
VIDEO_PROFILE = "High"
PIX_FMT = "yuv420p"
COLOR_PRIMARIES = "bt709"
COLOR_TRANSFER = "bt709"
COLOR_SPACE = "bt709"
COLOR_RANGE = "tv"
AUDIO_CODEC = "aac"
AAC_ENCODER_ARGS = ("-c:a", "aac", "-aac_coder", "fast", "-b:a", "192k")
"""ffmpeg's native AAC-LC at 192 kb/s with its ``fast`` coder: the default ``twoloop`` coder
clicked (a single 5 ms spike 17 dB over the music, -0.1 dBTP) on a mastered soundtrack of the
60 s memory order, and its authors rate ``fast`` the steadier and better one at high bitrates."""
AUDIO_PROFILE = "LC"
AUDIO_SAMPLE_RATE = 48_000
AUDIO_CHANNELS = 2
TARGET_LUFS = -14.0
LUFS_TOLERANCE = 1.0
MAX_TRUE_PEAK_DBTP = -1.0
# AAC-LC at 192 kb/s overshoots the PCM true peak by up to about 1 dB (measured on our songs),
# so the master leaves that much headroom below the delivered film's ceiling.
AAC_OVERSHOOT_HEADROOM_DB = 1.2
DURATION_TOLERANCE_S = 0.5
# Longest black or frozen stretch allowed outside the designed fades and cards (seconds).
MAX_BLACK_S = 1.5
MAX_FROZEN_S = 4.0

X264_PRESET = "veryfast"
"""x264's speed preset unless ``FILM_ENCODER_PRESET`` names another, with :data:`X264_PARAMS`
over it: both aspects' encoders share the cores with the composer, and the render's time
targets and its benchmark floor (``bench/exact_floor.py``: the encode alone of the film's
frames) are set at these settings. ``superfast`` (with the parameters) is the measured faster
choice (``bench/encoder_choice.py``, issue 43): on a 30 s film's exact frames it encodes both
aspects in 28 CPU-s against veryfast's 45, at the same picture (PSNR within 0.03 dB, SSIM within
0.0002 of veryfast's against the raw frames) and 1-5 % more bytes, the whole pipeline 21 % less
CPU; it is not the default because the composer is then 1.6x its cheaper encode floor, over
the render's 1.4x budget."""
X264_PARAMS = "mbtree=1:rc-lookahead=10"
"""x264 parameters over the preset's (veryfast's own values): superfast turns off the macroblock
tree and its 10-frame lookahead, which doubled the film's bytes at the same CRF (a held or
slowly moving photo is where the tree saves most: it spends bits on what later frames reuse);
restored, they cost less CPU than the extra bytes did."""
X264_CRF = 20
"""x264's constant rate factor: the picture's quality held constant rather than its bitrate, so
a photo held still costs little and a dissolve more at the same quality; a notch finer than
x264's default (23) for what a viewer studies for seconds: the photos' fine detail and the soft
gradients of scrims, blurred backdrops and fades."""
GOP_FRAMES = 60
"""A keyframe every 60 frames (2 s at :data:`FPS`): where a seek in the player lands, and the
frames verify decodes alone to check the film against what was composed
(:mod:`media.deliver.verify`)."""


@dataclass(frozen=True)
class EncoderSettings:
    """How the delivered films are encoded: x264's ``preset``, constant rate factor ``crf``,
    keyframe interval ``gop`` (frames) and ``params`` over the preset (x264's ``key=value:...``).
    The defaults are the output spec's; an environment chooses only the preset
    (``FILM_ENCODER_PRESET``)."""

    preset: str = X264_PRESET
    crf: int = X264_CRF
    gop: int = GOP_FRAMES
    params: str = X264_PARAMS


def film_frames(length_sec: float) -> int:
    """Frames of a film ordered ``length_sec`` seconds long: the nearest whole frame at
    :data:`FPS`. The timeline, the song, the encoders and the verifier all count from this."""
    return round(length_sec * FPS)


AUDIO_SAMPLES_PER_FRAME = AUDIO_SAMPLE_RATE // FPS
"""Sound samples under one film frame (48 kHz over 30 fps: exact, so a film of ``n`` frames has
exactly ``n * AUDIO_SAMPLES_PER_FRAME`` samples of sound)."""


def film_seconds(frames: int) -> float:
    """The exact running time of ``frames`` film frames, in seconds."""
    return frames / FPS
