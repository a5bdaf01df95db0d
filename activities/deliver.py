"""Deliver stage: films, poster, gift page and a checksum manifest under the share slug."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from activities.context import Heartbeater, StageContext
from media.giftpage import GiftPage, render_gift_page
from workflows.contract import FilmOrder
from workflows.stages import DeliverInput, DeliverResult

CONTENT_TYPES = {".mp4": "video/mp4", ".jpg": "image/jpeg", ".html": "text/html; charset=utf-8",
                 ".json": "application/json"}


def gift_page_for(order: FilmOrder, lyrics: list[str]) -> GiftPage:
    """What the gift page of ``order`` shows."""
    return GiftPage(
        recipient_name=order.recipient_name, occasion_name=order.occasion.name,
        relationship=order.relationship, gentle=order.occasion.gentle, lyrics=lyrics,
        accent_hex=order.brand.color if order.brand else None,
    )


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def run_deliver(ctx: StageContext, deliver_input: DeliverInput) -> DeliverResult:
    """Copy the verified files to their delivery keys (a retry overwrites the same keys)."""
    order, rendered = deliver_input.order, deliver_input.render
    prefix = order.delivery_prefix
    sources = {f"{name}.mp4": key for name, key in rendered.film_keys.items()}
    sources["poster.jpg"] = rendered.poster_key
    with ctx.scratch("deliver") as scratch, Heartbeater("deliver") as heartbeat:
        page = scratch / "index.html"
        page.write_text(render_gift_page(gift_page_for(order, deliver_input.assets.lyrics)),
                        encoding="utf-8")
        files = {name: ctx.storage.get_file(key, scratch / name) for name, key in sources.items()}
        files["index.html"] = page
        manifest = {name: {"sha256": _sha256(path), "bytes": path.stat().st_size}
                    for name, path in files.items()}
        for index, (name, path) in enumerate(sorted(files.items())):
            heartbeat.update(percent=round(100 * index / len(files)), item=name)
            ctx.storage.put_file(f"{prefix}/{name}", path, content_type=CONTENT_TYPES[path.suffix])
        # The manifest goes last: its presence means the set is complete.
        ctx.storage.put_bytes(f"{prefix}/manifest.json",
                              json.dumps({"workflow_id": order.workflow_id, "files": manifest},
                                         indent=2).encode(), CONTENT_TYPES[".json"])
    url = ctx.storage.public_url
    return DeliverResult(
        film_url={name: url(f"{prefix}/{name}.mp4") for name in rendered.film_keys},
        gift_url=url(f"{prefix}/index.html"), poster_url=url(f"{prefix}/poster.jpg"),
    )
