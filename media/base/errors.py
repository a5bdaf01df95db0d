"""Error classes of the media code: the customer's file is unusable, versus our own faults.

:class:`MediaRejected` means the customer's file cannot be used (retrying will not help; the
file is left out of the film and ``reason`` says why). Anything else raised by ``media`` is our
own fault (a missing ffmpeg, a full disk, a bug) and should be retried or alerted on; in
particular :class:`media.base.runner.ToolMissingError` and :class:`media.base.runner.ToolError`
raised from
our own output side are never turned into a rejection.
"""

from __future__ import annotations

# Photos.
NOT_AN_IMAGE = "not_an_image"
UNSUPPORTED_IMAGE_FORMAT = "unsupported_image_format"
IMAGE_TOO_LARGE = "image_too_large"
IMAGE_TOO_SMALL = "image_too_small"
IMAGE_TRUNCATED = "image_truncated"
IMAGE_CORRUPT = "image_corrupt"
IMAGE_TOO_COMPLEX = "image_too_complex"
IMAGE_DECODE_LIMIT = "image_decode_limit"
IMAGE_ASPECT = "image_aspect_unsupported"
IMAGE_BLANK = "image_blank"
IMAGE_TOO_DARK = "image_too_dark"

# Clips.
NOT_A_VIDEO = "not_a_video"
UNSUPPORTED_CONTAINER = "unsupported_container"
NO_VIDEO_STREAM = "no_video_stream"
VIDEO_TOO_LARGE = "video_too_large"
VIDEO_TOO_SMALL = "video_too_small"
VIDEO_TOO_LONG = "video_too_long"
VIDEO_FRAME_RATE = "video_frame_rate_unsupported"
VIDEO_TOO_MANY_STREAMS = "video_too_many_streams"
VIDEO_UNDECODABLE = "video_undecodable"
VIDEO_TIMEOUT = "video_timeout"
VIDEO_ASPECT = "video_aspect_unsupported"
VIDEO_TOO_SHORT = "video_too_short"
VIDEO_PIXEL_RATE = "video_pixel_rate_too_high"
ORDER_CLIP_WORK = "order_clip_work_over_budget"

# Brand logos (decoded like photos, plus these).
SVG_REFUSED = "svg_refused"
LOGO_EMPTY = "logo_empty"


class MediaRejected(Exception):
    """The customer's file is unusable. ``reason`` is a short stable code, ``detail`` is for ops.

    Not retryable: the same bytes will be rejected again.
    """

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail

    def __reduce__(self) -> tuple[type[MediaRejected], tuple[str, str]]:
        return (MediaRejected, (self.reason, self.detail))
