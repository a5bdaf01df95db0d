"""What leaves the worker: posters, the gift page, a contact sheet for people to look at,
and the check of both films against the output spec.

``__all__`` names the modules other rooms may import; the rest are this room's own.
"""

__all__ = ["contact_sheet", "gift_page", "layout", "poster", "verify"]
