"""What customers write: the words of the corpus's orders by kind (short, the contract's 500
characters, right-to-left, CJK, Cyrillic, emoji, line breaks, none)."""

from __future__ import annotations

from dataclasses import dataclass

from workflows.contract import STORY_MAX_CHARS


@dataclass(frozen=True)
class Words:
    """An order's words: recipient, relationship, memory, story line, feeling words."""

    recipient: str
    relationship: str
    memory: str
    story: str
    feelings: tuple[str, ...]


def _fill(sentences: tuple[str, ...], limit: int = STORY_MAX_CHARS) -> str:
    """``sentences`` repeated and cut at the last word that keeps the text within ``limit``
    characters (the contract's longest memory: exactly at or just under 500)."""
    text, k = "", 0
    while len(text) < limit:
        text += ("" if not text else " ") + sentences[k % len(sentences)]
        k += 1
    cut = text[:limit]
    return cut[:cut.rfind(" ")] if len(text) > limit else cut


_LONG = ("He taught us both to play pool in the basement, and he never once let us win.",
         "Every Sunday he made pancakes shaped like the letters of our names.",
         "When the storm took the roof of the shed he laughed and called it a skylight.",
         "He sang off key in the car and knew every word of every song on the radio.",
         "We still have the fishing rod he mended with tape the summer we turned nine.")

WORDS: dict[str, Words] = {
    "short": Words("Mads", "Your friends", "Pool on Fridays.", "Forty, still laughing.",
                   ("bright",)),
    "plain": Words("Anna", "From your sister Clara",
                   "The winter morning at the Grand Canyon when you said it was warmer than "
                   "Denmark.", "Thirty this year, and still the first one up the hill.",
                   ("grateful", "playful")),
    "long500": Words("Robert James Whitaker", "Your children Emma and Lucas, with all our love",
                     _fill(_LONG), _fill(tuple(reversed(_LONG))),
                     ("grateful", "warm", "proud", "missed", "loved", "forever")),
    "arabic": Words("سارة", "من أختك ليلى",
                    "صباح الشتاء عند البحر عندما ضحكنا حتى بكينا.",
                    "ثلاثون عاماً وما زلتِ أول من يصعد التل.", ("سعيدة", "ممتنة")),
    "hebrew": Words("נועה", "מאחותך מיכל", "הבוקר בים כשצחקנו עד שבכינו.",
                    "שלושים שנה ועדיין הראשונה לעלות על הגבעה.", ("שמחה",)),
    "cjk": Words("さくら", "妹のはるかより", "冬の朝、海辺で泣くほど笑ったこと。",
                 "三十歳になっても、いつも一番に丘を登る人。", ("感謝",)),
    "chinese": Words("李明", "你的朋友们", "那年冬天我们在长城上看日出，你说比家里还暖和。",
                     "四十岁了，还是那个爱笑的少年。", ("快乐", "温暖")),
    "cyrillic": Words("Алексей", "От твоих друзей из бильярдной",
                      "Зимнее утро у Большого каньона, когда ты сказал, что там теплее, "
                      "чем в Москве.", "Сорок лет, а в душе всё тот же мальчишка.",
                      ("радость", "дружба")),
    "emoji": Words("Zoë 🎉", "Your crew 💛", "Karaoke night 🎤 when you sang until 3 am 😂🎶",
                   "Happy 30th!!! 🥳🎂✨ Love you to the moon 🌙 and back", ("🎉", "joy")),
    "multiline": Words("Grandma Rose", "All eleven grandchildren",
                       "Sunday lunches at your table.\nThe smell of cardamom buns.\n"
                       "Your hand on ours.", "Ninety years,\nand every one of them a gift.",
                       ("thankful", "family")),
    "none": Words("Ben", "Mum and Dad", "", "", ()),
}
"""The words of each text kind."""
TEXT_KINDS = tuple(WORDS)
