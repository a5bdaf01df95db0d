"""The ground every room stands on: running ffmpeg and ffprobe within limits (runner),
the output spec (spec), I420 frame layout (yuv), probing media files (probe), media errors
that classify a run"s end (errors), and handing freed memory back (heap).

``__all__`` names the modules other rooms may import; the rest are this room's own.
"""

__all__ = ["errors", "heap", "probe", "runner", "spec", "yuv"]
