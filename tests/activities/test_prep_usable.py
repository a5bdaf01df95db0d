"""run_prep then run_gate on orders with blank and degenerate photos: each is left out with its
reason, the succeeded outcome names them in the contract's words, and an order left with no
photo the film can show is held (the customer's media, refunded as ``held_refunded``), never
failed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from activities.gate import run_gate
from activities.prep import run_prep
from app.contract_files import media_words
from media.base import errors
from services.storage.local import LocalStorage
from tests.helpers import (
    grey_frame_jpeg,
    pocket_shot_jpeg,
    stripe_png,
    white_screenshot_png,
)
from tests.stages import is_hold, local_context, order_with_media
from workflows.contract import FilmOrder
from workflows.film import left_out_reason
from workflows.reasons import left_out_pattern
from workflows.stages import HoldReason, StageInput

REPO = Path(__file__).resolve().parents[2]
GOOD_PHOTOS = sorted(REPO.glob("samples/birthday/photos/*.jpg"))[:5]


BLANK = {"p06": (pocket_shot_jpeg, errors.IMAGE_BLANK),
         "p07": (white_screenshot_png, errors.IMAGE_BLANK),
         "p08": (stripe_png, errors.IMAGE_ASPECT)}


def _stored(storage: LocalStorage, gift: str, uploads: list[tuple[str, bytes]]) -> FilmOrder:
    """An order of ``uploads`` (photo id, bytes) stored as the order API would have."""
    order = order_with_media(gift, [(pid, _ext(data)) for pid, data in uploads])
    for ref, (_, data) in zip(order.photos, uploads, strict=True):
        storage.put_bytes(ref.key, data)
    return order


def _ext(data: bytes) -> str:
    return "png" if data.startswith(b"\x89PNG") else "jpg"


def test_five_good_photos_and_three_blank_ones_keep_the_five_and_name_the_three(
        tmp_path: Path) -> None:
    ctx = local_context(tmp_path)
    assert isinstance(ctx.storage, LocalStorage)
    uploads = [(f"p{i:02d}", path.read_bytes()) for i, path in enumerate(GOOD_PHOTOS, 1)]
    uploads += [(pid, make()) for pid, (make, _) in BLANK.items()]
    order = _stored(ctx.storage, "blank5p3", uploads)

    prep = run_prep(ctx, order)
    notes = run_gate(ctx, StageInput(order=order, prep=prep)).notes

    assert [p.id for p in prep.photos] == ["p01", "p02", "p03", "p04", "p05"]
    assert {r.id: r.reason for r in prep.rejected} == {
        pid: reason for pid, (_, reason) in BLANK.items()}
    reason = left_out_reason(prep.rejected)
    assert reason == "left_out:p06=image_blank,p07=image_blank,p08=image_aspect_unsupported"
    assert re.match(left_out_pattern(media_words()), reason)
    assert "left out p06: image_blank" in notes


@pytest.mark.parametrize("makes", [
    [pocket_shot_jpeg, white_screenshot_png, grey_frame_jpeg],
    [pocket_shot_jpeg],
    [stripe_png, white_screenshot_png],
], ids=["blank_three", "pocket_shot_alone", "stripe_and_screenshot"])
def test_an_order_of_only_blank_or_degenerate_photos_is_held_for_its_media(
        tmp_path: Path, makes) -> None:
    ctx = local_context(tmp_path)
    assert isinstance(ctx.storage, LocalStorage)
    order = _stored(ctx.storage, "allblank1", [(f"p{i:02d}", make())
                                               for i, make in enumerate(makes, 1)])

    prep = run_prep(ctx, order)
    with pytest.raises(Exception) as caught:
        run_gate(ctx, StageInput(order=order, prep=prep))

    assert prep.photos == [] and len(prep.rejected) == len(makes)
    assert is_hold(caught.value, HoldReason.NO_USABLE_PHOTOS)
    assert "p01:image_" in str(caught.value)
