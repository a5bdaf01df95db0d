"""Deliver stage: films, posters (16:9 ``poster.jpg``, 9:16 ``poster-9x16.jpg``), gift page and
a checksum manifest under the share slug."""

from __future__ import annotations

import json

from activities.context import Heartbeater, StageContext
from activities.order_plan import occasion_words
from media.base.spec import LANDSCAPE
from media.cards import wording
from media.deliver.gift_page import GiftPage, PageLinks, render_gift_page
from media.deliver.layout import layout_from_dict
from services.storage.base import Storage, file_sha256
from workflows.contract import FilmOrder
from workflows.keys import (
    LOGO_NAME,
    MANIFEST_NAME,
    PAGE_NAME,
    PORTRAIT_POSTER_NAME,
    POSTER_NAME,
    film_name,
)
from workflows.stages import DeliverInput, DeliverResult

CONTENT_TYPES = {".mp4": "video/mp4", ".jpg": "image/jpeg", ".png": "image/png",
                 ".html": "text/html; charset=utf-8", ".json": "application/json"}


def page_links(storage: Storage, order: FilmOrder) -> PageLinks:
    """The delivered page's, poster's and 16:9 film's public URLs (for link previews)."""
    url = storage.public_url
    return PageLinks(page_url=url(order.delivery_key(PAGE_NAME)),
                     poster_url=url(order.delivery_key(POSTER_NAME)),
                     video_url=url(order.delivery_key(film_name(LANDSCAPE.name))))


def gift_page_for(order: FilmOrder, lyrics: list[str], *, lyrics_sung: bool = False,
                  links: PageLinks | None = None, has_logo: bool = False,
                  poster_layouts: dict[str, dict[str, list[float] | None]] | None = None
                  ) -> GiftPage:
    """What the gift page of ``order`` shows: nothing keyed by more than the share slug; the
    play button and controls placed from the posters' layouts (by aspect name) when given."""
    return GiftPage(
        recipient_name=order.recipient_name,
        occasion_name=wording.kicker(occasion_words(order)),
        gentle=order.occasion.gentle, lyrics=lyrics, lyrics_sung=lyrics_sung,
        accent_hex=order.brand.color if order.brand else None,
        logo_src=LOGO_NAME if has_logo else None, links=links,
        poster_src=POSTER_NAME, portrait_poster_src=PORTRAIT_POSTER_NAME,
        poster_layouts={name: layout_from_dict(data)
                        for name, data in (poster_layouts or {}).items()},
    )


def run_deliver(ctx: StageContext, deliver_input: DeliverInput) -> DeliverResult:
    """Copy the verified files to their delivery keys (a retry overwrites the same keys)."""
    order, rendered = deliver_input.order, deliver_input.render
    sources = {film_name(name): key for name, key in rendered.film_keys.items()}
    sources[POSTER_NAME] = rendered.poster_key
    sources[PORTRAIT_POSTER_NAME] = order.run_keys.portrait_poster
    if deliver_input.assets.logo_key:
        sources[LOGO_NAME] = deliver_input.assets.logo_key
    page_model = gift_page_for(order, deliver_input.assets.lyrics,
                               lyrics_sung=deliver_input.assets.lyrics_sung,
                               links=page_links(ctx.storage, order),
                               has_logo=LOGO_NAME in sources,
                               poster_layouts=rendered.poster_layouts)
    with ctx.scratch("deliver") as scratch, Heartbeater("deliver") as heartbeat:
        page = scratch / PAGE_NAME
        page.write_text(render_gift_page(page_model), encoding="utf-8")
        files = {name: ctx.storage.get_file(key, scratch / name) for name, key in sources.items()}
        files[PAGE_NAME] = page
        manifest = {name: {"sha256": file_sha256(path), "bytes": path.stat().st_size}
                    for name, path in files.items()}
        for index, (name, path) in enumerate(sorted(files.items())):
            heartbeat.update(percent=round(100 * index / len(files)), item=name)
            ctx.storage.put_file(order.delivery_key(name), path,
                                 content_type=CONTENT_TYPES[path.suffix])
        # The manifest goes last: its presence means the set is complete. It is public like
        # the rest of the folder, so it names no gift, charge or workflow id.
        ctx.storage.put_bytes(order.delivery_key(MANIFEST_NAME),
                              json.dumps({"files": manifest}, indent=2).encode(),
                              CONTENT_TYPES[".json"])
    url = ctx.storage.public_url
    return DeliverResult(
        film_url={name: url(order.delivery_key(film_name(name))) for name in rendered.film_keys},
        gift_url=url(order.delivery_key(PAGE_NAME)),
        poster_url=url(order.delivery_key(POSTER_NAME)),
    )
