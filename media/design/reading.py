"""How long words must stay on screen to be read: fully visible and steady (they may drift
gently), measured in seconds from when the last word is in until the first leaves.

A person reading a title or a short message on a phone needs time to find it, read it and take
it in: the name on the title at least :data:`TITLE_HOLD_S`; a message of ``W`` words at least
``max(3 s, 1 s + W / 3 s)`` (:func:`message_hold_s`). Reading wins over pacing: the planner
gives the cards what these rules ask (:mod:`media.plan.beat_snap`) and the wording picks a
message short enough for the film it closes (:mod:`media.cards.wording`).

Words must also be large enough: the gift page plays the 9:16 film upright on a phone
(:data:`PHONE_WIDTH_PX`) and the 16:9 film turned, and a line reads there when its capitals are
at least :data:`CAP_HEIGHT_MIN_PX` tall: :func:`type_min_px` is the smallest type a card sets in
a frame of a given size (the layout wraps and the planner splits rather than go below it).
"""

from __future__ import annotations

import math
import re
import unicodedata

TITLE_HOLD_S = 2.5
TITLE_IN_S = 0.8  # the title's entrance (a look's settle or rise) is over by this: then it holds
ENTRANCE_S = 0.5  # seconds over which one word of the closing fades and rises in
ALL_IN_S = 0.4  # the last word starts coming in by this time after the first
WORDS_IN_S = ALL_IN_S + ENTRANCE_S  # the closing's words are all in place this long after its cut
TEXT_EXIT_S = 0.4  # the title's words fade out over this, before the picture under them changes
MESSAGE_MIN_HOLD_S = 3.0
MESSAGE_BASE_S = 1.0  # finding the message
WORDS_PER_S = 3.0  # reading it
UNSPACED_CHARS_PER_WORD = 2  # CJK, Thai...: a word's worth of characters for the rule

PHONE_WIDTH_PX = {"portrait": 390, "landscape": 844}
"""A 390 x 844 pt phone: the 9:16 film played upright fills its 390 width, the 16:9 film
turned its 844."""
CAP_HEIGHT_MIN_PX = 8.0  # capitals this tall on that phone read
CAP_HEIGHT_SHARE = 0.7  # a Latin face's cap height over its size (em): Inter 0.73, Spartan 0.7

_WORD = re.compile(r"\w+(?:['’-]\w+)*")


def _unspaced(char: str) -> bool:
    """A character of a script written without spaces between words."""
    name = unicodedata.name(char, "")
    return any(script in name for script in ("CJK", "HIRAGANA", "KATAKANA", "HANGUL", "THAI",
                                             "LAO", "KHMER", "MYANMAR"))


def word_count(text: str) -> int:
    """Words a reader takes in ``text``: runs of letters and digits (with inner apostrophes
    and hyphens), where a script written without spaces counts
    :data:`UNSPACED_CHARS_PER_WORD` characters as a word."""
    count = 0
    for word in _WORD.findall(text):
        unspaced = sum(_unspaced(c) for c in word)
        count += (1 if unspaced < len(word) else 0) + -(-unspaced // UNSPACED_CHARS_PER_WORD)
    return count


def message_hold_s(text: str) -> float:
    """Seconds ``text`` must stay fully visible: ``max(3, 1 + words / 3)``."""
    return max(MESSAGE_MIN_HOLD_S, MESSAGE_BASE_S + word_count(text) / WORDS_PER_S)


def phone_width_px(width: int, height: int) -> int:
    """The width (phone points) a ``width`` x ``height`` frame is seen at on the phone
    (:data:`PHONE_WIDTH_PX`: a portrait frame upright, a landscape one turned)."""
    return PHONE_WIDTH_PX["portrait" if height > width else "landscape"]


def cap_height_on_phone_px(size_px: float, width: int, height: int) -> float:
    """How tall (phone points) the capitals of type set ``size_px`` pixels per em in a
    ``width`` x ``height`` frame are on the phone: :data:`CAP_HEIGHT_SHARE` of the size,
    scaled to :func:`phone_width_px`."""
    return CAP_HEIGHT_SHARE * size_px * phone_width_px(width, height) / width


def type_min_px(width: int, height: int) -> int:
    """The smallest type size (pixels per em) a card may set in a ``width`` x ``height`` frame:
    capitals :data:`CAP_HEIGHT_MIN_PX` tall once the frame is shown :data:`PHONE_WIDTH_PX`
    wide (a portrait frame upright, a landscape one turned). 32 px in 1080x1920, 26 in
    1920x1080."""
    phone = phone_width_px(width, height)
    return math.ceil(CAP_HEIGHT_MIN_PX / CAP_HEIGHT_SHARE * width / phone - 1e-6)
