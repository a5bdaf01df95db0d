"""The brand logo never fails the film (issue 31, case 3): a logo URL the fetch cannot parse, a
redirect to one, or any error the fetch did not name, skips the logo with a note and the film is
made; only a local fault of ours (a full disk) is raised and retried."""

from __future__ import annotations

import errno
import json
import shutil
from pathlib import Path

import pytest

import activities.assets as assets
from tests.helpers import SAMPLE_ORDER as FIXTURE_ORDER
from tests.processes import filmworker
from tests.stages import local_context, order_with_media

UNPARSABLE_LOGO_URL = "https://[::::]/logo.png"
"""Within the contract's logo URL pattern (a bracketed IPv6 literal), yet no IPv6 address:
urlsplit raises ValueError, which failed the run as ``assets_failed:ValueError``."""


def brand_order(logo_url: str):
    return order_with_media("logo0001", [("p01", "jpg")], style="brand",
                            brand={"logo_url": logo_url, "color": "#12355B"})


def test_a_logo_url_the_fetch_cannot_parse_skips_the_logo(tmp_path: Path) -> None:
    order = brand_order(UNPARSABLE_LOGO_URL)

    key, notes = assets._brand_logo(local_context(tmp_path), order, tmp_path)

    assert (key, notes) == (None, ["logo_skipped:bad_url"])


def test_an_error_the_fetch_did_not_name_skips_the_logo_but_a_full_disk_is_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    order = brand_order("https://brand.example.test/logo.png")

    def buggy(url: str, dest: Path) -> None:
        raise KeyError("a bug")

    def disk_full(url: str, dest: Path) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(assets, "fetch_logo", buggy)
    assert assets._brand_logo(local_context(tmp_path), order, tmp_path) == (
        None, [f"logo_skipped:{assets.LOGO_FETCH_ERROR}"])
    monkeypatch.setattr(assets, "fetch_logo", disk_full)
    with pytest.raises(OSError):
        assets._brand_logo(local_context(tmp_path), order, tmp_path)


@pytest.mark.e2e
@pytest.mark.timeout(900)
def test_filmworker_render_makes_a_brand_film_whose_logo_url_cannot_be_parsed(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "order"
    shutil.copytree(FIXTURE_ORDER / "photos", folder / "photos")
    fields = json.loads((FIXTURE_ORDER / "order.json").read_text("utf-8"))
    fields.update(tier="standard", length_sec=30, style="brand",
                  brand={"logo_url": UNPARSABLE_LOGO_URL, "color": "#12355B"})
    (folder / "order.json").write_text(json.dumps(fields), encoding="utf-8")
    out = tmp_path / "out"

    done = filmworker("render", str(folder), "--out", str(out), "--no-ui", timeout_s=840)

    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    outcome = json.loads((out / "outcome.json").read_text(encoding="utf-8"))
    assert outcome["state"] == "succeeded", outcome
