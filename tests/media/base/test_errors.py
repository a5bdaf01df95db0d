"""Rejections of customer media: a stable reason that survives pickling (media.base.errors)."""

from __future__ import annotations

import pickle

from media.base import errors
from media.base.errors import MediaRejected


def test_a_rejection_carries_its_reason_and_detail() -> None:
    rejected = MediaRejected(errors.VIDEO_TOO_LONG, "660 s")
    assert (rejected.reason, rejected.detail) == ("video_too_long", "660 s")
    assert str(rejected) == "video_too_long: 660 s"
    assert str(MediaRejected(errors.LOGO_EMPTY)) == "logo_empty"


def test_a_rejection_survives_pickling_between_processes() -> None:
    again = pickle.loads(pickle.dumps(MediaRejected(errors.IMAGE_TRUNCATED, "at byte 812")))
    assert isinstance(again, MediaRejected)
    assert (again.reason, again.detail) == ("image_truncated", "at byte 812")
