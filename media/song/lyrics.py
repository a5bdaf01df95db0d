"""The words that travel with a song: four to eight short lines from the brief.

The writer never cuts a phrase: it splits the memory and the story note into whole clauses
(at sentence ends, commas, semicolons, dashes) and uses one only if it is short enough to sing
(:data:`MAX_CLAUSE_WORDS` words, :data:`MAX_CLAUSE_CHARS` characters) and does not end on a
dangling word ("the", "from", "at"...). A relationship is used as "my sister" only when it
reads as a short noun ("From all of us at mission control" is not one); otherwise, and for any
empty field, a neutral line stands in. Any script is kept as typed.

The local composer does not sing these words (its lead is a choir patch): the gift page
presents them as the film's dedication unless a song service sang them.
"""

from __future__ import annotations

import re
import unicodedata

from media.song.plan import SongBrief

MAX_CLAUSE_WORDS = 10
MAX_CLAUSE_CHARS = 56
MAX_NAME_CHARS = 40

_SPLIT_SENTENCE = re.compile(r"[.!?;:\n\r。！？；：…]+")
_SPLIT_CLAUSE = re.compile(r"\s*(?:[,，、()\[\]\"“”«»]|\s[-–—]+\s)\s*")
_TRIM = " \"'“”‘’«»()[]-–—*_"
_DANGLING = frozenset({"a", "an", "and", "as", "at", "because", "but", "by", "for", "from", "in",
                       "into", "my", "of", "on", "or", "our", "so", "than", "that", "the",
                       "their", "to", "we", "when", "where", "while", "with", "your", "his",
                       "her", "is", "was", "were", "are", "if"})
_NOT_A_NOUN = frozenset({"from", "at", "of", "to", "for", "with", "all", "us", "and", "by",
                         "in", "on", "everyone", "team", "family", "friends", "whole", "we"})
_SUBJECTS = frozenset({"i", "we", "you", "he", "she", "they", "it"})
_REMEMBER = re.compile(r"^(?:(?:i|we|you)\s+)?(?:still\s+)?remember(?:s|ing)?\s+(?:when\s+)?",
                       re.IGNORECASE)
_LOWERABLE = frozenset({"a", "all", "an", "at", "each", "every", "going", "her", "his", "how",
                        "in", "it", "my", "on", "one", "our", "that", "the", "their", "there",
                        "these", "this", "those", "we", "what", "when", "your", "you", "she",
                        "he", "they"})
_OPENERS = {
    "birthday": "Happy birthday, {name}!", "wedding": "Here's to {name} on your wedding day",
    "anniversary": "Happy anniversary, {name}", "graduation": "Look at you now, {name}",
    "memorial": "For {name}, forever in our hearts",
    "pet-tribute": "For {name}, our faithful friend",
}
_CLOSERS = {
    "birthday": "Here's to another year of you", "wedding": "Two hearts, one road, forever",
    "anniversary": "Still choosing you, year after year",
    "memorial": "Your light still glows in every song we sing",
    "pet-tribute": "Little paws, big heart, forever home",
}


def clean(text: str) -> str:
    """Printable text with collapsed whitespace (control characters become spaces)."""
    kept = "".join(" " if unicodedata.category(ch).startswith("C") else ch for ch in text or "")
    return " ".join(kept.split())


def clauses(text: str) -> list[str]:
    """Every whole clause of ``text`` (cleaned, trimmed of quotes and dashes), in order."""
    out = []
    for sentence in _SPLIT_SENTENCE.split(clean(text)):
        for clause in _SPLIT_CLAUSE.split(sentence):
            trimmed = clause.strip(_TRIM)
            if trimmed:
                out.append(trimmed)
    return out


def _singable(clause: str) -> bool:
    """A clause that stands alone: 3..10 words, not opening on a joining word ("with",
    "and") nor ending on a dangling one ("the", "from")."""
    words = clause.split()
    if len(words) == 1 and not clause.isascii():  # a script written without spaces
        return 2 <= len(clause) <= MAX_CLAUSE_CHARS // 2
    return (3 <= len(words) <= MAX_CLAUSE_WORDS and len(clause) <= MAX_CLAUSE_CHARS
            and words[0].lower() not in _DANGLING - _SUBJECTS - {"my", "our", "your", "the",
                                                                 "a", "an", "his", "her",
                                                                 "their", "when", "that"}
            and words[-1].lower().strip(_TRIM) not in _DANGLING
            and any(ch.isalpha() for ch in clause))


def memory_clause(brief: SongBrief) -> str:
    """The first singable whole clause of the memory, else of the story note, else ``""``."""
    for text in (brief.memory, brief.story_note):
        for clause in clauses(text):
            clause = _REMEMBER.sub("", clause).strip(_TRIM)
            if _singable(clause):
                return clause
    return ""


def _lower_first(phrase: str) -> str:
    """Lower-case a leading common word ("The summer..." -> "the summer..."), not names."""
    first = phrase.split()[0]
    if first.lower() in _LOWERABLE and first[:1].isupper():
        return phrase[:1].lower() + phrase[1:]
    return phrase


def _memory_line(brief: SongBrief, clause: str, prefix: str) -> str:
    """A memory is remembered ("Remember the summer..."); a story note's clause is not a memory
    and stands as its own line ("Forty years young and still reaching for the stars")."""
    if any(c.endswith(clause) for c in clauses(brief.memory)):
        return _remember(clause, prefix)
    return clause[:1].upper() + clause[1:]


def _remember(clause: str, prefix: str) -> str:
    """"Remember the summer..." for a noun phrase, "Remember when you slept..." for a clause
    with its own subject."""
    phrase = _lower_first(clause)
    joint = " when " if phrase.split()[0].lower() in _SUBJECTS else " "
    question = prefix.endswith("?")
    return f"{prefix.rstrip('?')}{joint}{phrase}{'?' if question else ''}"


def relationship_noun(text: str) -> str:
    """The relationship as a short noun ("sister", "best friend"), without a leading
    possessive; ``""`` when it is not one (a sentence, a group, a greeting)."""
    rel = clean(text)
    for prefix in ("my ", "our ", "the ", "a "):
        if rel.lower().startswith(prefix):
            rel = rel[len(prefix):]
    words = rel.split()
    if not 1 <= len(words) <= 3 or len(rel) > 28:
        return ""
    if any(w.lower() in _NOT_A_NOUN or not w.replace("-", "").replace("'", "").isalpha()
           for w in words):
        return ""
    return rel.lower() if rel.isascii() else rel


def _name(text: str) -> str:
    name = clean(text)
    return name if len(name) <= MAX_NAME_CHARS else ""


def _feelings(brief: SongBrief) -> tuple[str, str]:
    words = [w.lower() for w in (clean(f) for f in brief.feeling_words)
             if w and len(w.split()) == 1 and len(w) <= 16 and w.replace("-", "").isalpha()]
    defaults = ["tender", "loved"] if brief.gentle else ["bright", "golden"]
    first, second = (words + defaults)[:2]
    return first, second if second != first else defaults[1]


def write_lyrics(brief: SongBrief) -> list[str]:
    """4-8 short lines from the brief: name, relationship, one whole clause of the memory (or
    story note), feeling words. Gentle occasions get tender wording; empty or unusable fields
    fall back to neutral lines. Never cuts a phrase."""
    name = _name(brief.recipient_name)
    rel = relationship_noun(brief.relationship)
    memory = memory_clause(brief)
    first, second = _feelings(brief)
    slug = brief.occasion_slug.lower().strip()
    opener = _OPENERS.get(slug, "This song is for {name}").format(name=name or "you")
    if brief.gentle:
        lines = [_memory_line(brief, memory, "We still remember") if memory
                 else "We hold the days you gave us",
                 f"{first.capitalize()} and {second}, the way you made us feel",
                 f"Our {rel}, we carry you with us" if rel else "We carry you with us",
                 _CLOSERS.get(slug, "Your light still glows in every song we sing"),
                 f"Rest easy, {name}, we love you still" if name else "Rest easy, we love you"]
    else:
        lines = [f"My {rel}, you mean the world to me" if rel else "You mean the world to us",
                 *([_memory_line(brief, memory, "Remember?")] if memory else []),
                 f"{first.capitalize()} and {second}, that's what you bring",
                 f"Oh {name}, this one's for you" if name else "Oh, this one's for you",
                 _CLOSERS.get(slug, "Here's to you, today and always")]
    return [opener, *lines][:8]
