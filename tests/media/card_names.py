"""Names that are hard to set on a title card, shared by the card and font tests."""

LONG_80 = "Maximiliana Josephine Alexandra von Hohenzollern-Sigmaringen de la Cruz Pérez II"
HARD_NAMES = [
    "Zoë O'Brien: 100%",
    "Анна",
    "美咲",
    "Ελένη",
    "a\\b {x} %d",
    "김민준",
    "さくら",
    "Łukasz Wąsowicz-Şahin",
    LONG_80,
    "W" * 80,  # one 80-character "word": must break inside it rather than overflow
    "美咲" * 40,  # 80 ideographs, no spaces
]
