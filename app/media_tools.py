"""The tools media/ runs, handed over from the settings at process setup: media/ reads no
environment, so every process that runs media code says once where ffmpeg, ffprobe and the
SoundFont are."""

from __future__ import annotations

from media.base.runner import ToolPaths, use_tools
from media.song.compose import use_soundfont
from services.settings import Settings


def use_media_tools(settings: Settings) -> None:
    """Run ``FFMPEG_BINARY`` / ``FFPROBE_BINARY`` and play ``FILM_SOUNDFONT`` in this process
    (unset: the packaged binaries and the installed SoundFonts)."""
    use_tools(ToolPaths(ffmpeg=settings.ffmpeg_binary, ffprobe=settings.ffprobe_binary))
    use_soundfont(settings.soundfont)
