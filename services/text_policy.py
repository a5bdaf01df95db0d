"""The gate's text policy: the order's words against the contract and a word list matched the way
people try to slip past word lists.

The customer's text and the list entries are folded the same way (:func:`fold`): NFKC, casefold,
accents and invisible format characters (zero-width spaces, bidi controls, soft hyphens)
removed, common Cyrillic and Greek look-alikes read as Latin. The folded text is cut into tokens:
runs of letters, digits and the leetspeak symbols ``@ $ ! | +``; everything else separates
tokens. An entry matches

- one whole token, leetspeak read as letters (``1`` as i or l, ``0`` as o, ``3`` as e, ``$`` as
  s, ...), letters repeated at will ("kiiike") and an optional plural ``s``/``es``;
- consecutive tokens, one per word of a multi-word entry ("go kill yourself", "go-kill-yourself");
- a whole run of single characters, each separated by at most ``MAX_GAP_CHARS`` separators
  ("k i k e", "k.i.k.e", "k - i - k - e"), also after a one-letter word ("a k i k e").

Only whole tokens match, which is what lets innocent words that contain an entry pass
("Scunthorpe", "sniggering", "spice"); a repeated letter in an entry must be repeated in the text
too, so "Niger" is not "n*gger". Matching never backtracks: its time is linear in the text.
Scripts written without spaces (CJK, Thai) have no word boundaries, so entries in them only match
a whole run of such text.
"""

from __future__ import annotations

import functools
import itertools
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from workflows.contract import FilmOrder

BUILTIN_WORDS_PATH = Path(__file__).resolve().parent / "assets" / "blocked_words.txt"
MAX_GAP_CHARS = 3
"""Separator characters allowed between spelled-out letters and between words of an entry."""
MAX_LIST_BYTES = 1024 * 1024
MAX_AMBIGUOUS_CHARS = 4
"""Beyond this many ambiguous leetspeak characters in one token, only uniform readings count."""

# What a leetspeak character may stand for (after folding). Letters stand for themselves.
_LEET: dict[str, str] = {
    "0": "o", "1": "il", "2": "z", "3": "e", "4": "a", "5": "s", "6": "g", "7": "t", "8": "b",
    "9": "g", "@": "a", "$": "s", "!": "i", "|": "il", "+": "t",
}
_SYMBOLS = "".join(ch for ch in _LEET if not ch.isalnum())
# Lower-case Cyrillic and Greek letters that look like Latin ones, plus a few Latin variants
# that NFKD does not decompose.
_LOOKALIKES = str.maketrans({
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p",
    "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i", "ј": "j", "ԁ": "d",
    "ӏ": "l", "ԛ": "q", "ԝ": "w", "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k",
    "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ł": "l", "ø": "o", "đ": "d",
    "ı": "i", "ħ": "h",
})

Runs = tuple[tuple[str, int], ...]
"""Run-length encoded letters: ``"kiiike"`` is ``(("k", 1), ("i", 3), ("k", 1), ("e", 1))``."""


def fold(text: str) -> str:
    """Fold ``text`` for matching: NFKC, casefold, accents and format characters removed,
    Cyrillic/Greek look-alikes read as Latin."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    decomposed = unicodedata.normalize("NFKD", folded)
    kept = "".join(ch for ch in decomposed if unicodedata.category(ch) not in ("Mn", "Me", "Cf"))
    return unicodedata.normalize("NFC", kept).translate(_LOOKALIKES)


@dataclass(frozen=True)
class PolicyHit:
    """One field of the order that matched one list entry."""

    field: str
    entry: str

    @property
    def masked_entry(self) -> str:
        """The entry with its inner letters starred, for ops messages (``k**e``)."""
        if len(self.entry) <= 2:
            return "*" * len(self.entry)
        return self.entry[0] + "*" * (len(self.entry) - 2) + self.entry[-1]


@dataclass(frozen=True)
class _Token:
    text: str
    gap_before: int
    """Separator characters between this token and the previous one."""


@dataclass(frozen=True)
class _Entry:
    text: str
    words: tuple[Runs, ...]
    joined: Runs


def _is_token_char(ch: str) -> bool:
    return ch.isalnum() or ch in _SYMBOLS


def _tokens(folded: str) -> list[_Token]:
    tokens: list[_Token] = []
    current: list[str] = []
    gap = MAX_GAP_CHARS + 1
    for ch in folded:
        if _is_token_char(ch):
            current.append(ch)
            continue
        if current:
            tokens.append(_Token("".join(current), gap))
            current, gap = [], 0
        gap += 1
    if current:
        tokens.append(_Token("".join(current), gap))
    return tokens


def _runs(letters: str) -> Runs:
    return tuple((letter, len(list(group))) for letter, group in itertools.groupby(letters))


def _letters(runs: Runs) -> str:
    return "".join(letter for letter, _ in runs)


@functools.lru_cache(maxsize=4096)
def _readings(token: str) -> frozenset[Runs]:
    """Every way to read ``token`` as letters (leetspeak resolved), with and without symbols
    at its ends ("kike!" is also "kike"; "$pic" is also "spic")."""
    readings: set[Runs] = set()
    for core in {token, token.strip(_SYMBOLS)} - {""}:
        options = [_LEET.get(ch, ch) if not ch.isalpha() else ch for ch in core]
        if sum(len(option) > 1 for option in options) > MAX_AMBIGUOUS_CHARS:
            spellings: Iterable[tuple[str, ...]] = (
                tuple(option[0] for option in options), tuple(option[-1] for option in options))
        else:
            spellings = itertools.product(*options)
        readings.update(_runs("".join(spelling)) for spelling in spellings)
    return frozenset(readings)


def _covers(entry: Runs, text: Runs) -> bool:
    """Same letters in the same order, each repeated at least as often as in the entry."""
    return len(entry) == len(text) and all(
        t_letter == e_letter and t_count >= e_count
        for (e_letter, e_count), (t_letter, t_count) in zip(entry, text, strict=True))


def _singular(text: Runs) -> Iterator[Runs]:
    """``text`` itself and, when it ends in a plural s/es, the stem."""
    yield text
    if len(text) > 1 and text[-1][0] == "s":
        yield text[:-1]
        if len(text) > 2 and text[-2][0] == "e":
            yield text[:-2]


class WordList:
    """A compiled list of entries; :meth:`match` finds the first entry a text contains."""

    def __init__(self, entries: Iterable[str]) -> None:
        parsed = [_parse_entry(raw) for raw in entries]
        self.entries: tuple[str, ...] = tuple(e.text for e in parsed if e is not None)
        self._by_letters: dict[str, list[_Entry]] = {}
        self._multi_word: list[_Entry] = []
        for entry in (e for e in parsed if e is not None):
            self._by_letters.setdefault(_letters(entry.joined), []).append(entry)
            if len(entry.words) > 1:
                self._multi_word.append(entry)

    def __len__(self) -> int:
        return len(self.entries)

    def match(self, text: str) -> str | None:
        """The first entry found in ``text`` (as listed), or ``None``."""
        tokens = _tokens(fold(text))
        readings = [_readings(token.text) for token in tokens]
        for found in (self._whole_token(readings), self._word_sequence(tokens, readings),
                      self._spelled_out(tokens)):
            if found is not None:
                return found
        return None

    def _lookup(self, reading: Runs) -> str | None:
        for stem in _singular(reading):
            for entry in self._by_letters.get(_letters(stem), ()):
                if _covers(entry.joined, stem):
                    return entry.text
        return None

    def _whole_token(self, readings: list[frozenset[Runs]]) -> str | None:
        for token_readings in readings:
            for reading in token_readings:
                if (found := self._lookup(reading)) is not None:
                    return found
        return None

    def _word_sequence(self, tokens: list[_Token], readings: list[frozenset[Runs]]) -> str | None:
        for entry in self._multi_word:
            span = len(entry.words)
            for start in range(len(tokens) - span + 1):
                if all(tokens[start + k].gap_before <= MAX_GAP_CHARS for k in range(1, span)) \
                        and all(_reads_as(entry.words[k], readings[start + k])
                                for k in range(span)):
                    return entry.text
        return None

    def _spelled_out(self, tokens: list[_Token]) -> str | None:
        """A whole run of spelled-out letters, or the run after a one-letter word before it
        ("a k i k e"); never a part of the run, so "a s s i s t" is not "ass"."""
        for run in _single_char_runs(tokens):
            for letters in {"".join(run), "".join(run[1:])}:
                if len(letters) < 2:
                    continue
                for reading in _readings(letters):
                    if (found := self._lookup(reading)) is not None:
                        return found
        return None


def _reads_as(word: Runs, token_readings: frozenset[Runs]) -> bool:
    return any(_covers(word, stem) for reading in token_readings for stem in _singular(reading))


def _single_char_runs(tokens: list[_Token]) -> Iterator[list[str]]:
    """Maximal runs of one-character tokens close to each other: spelled-out words."""
    run: list[str] = []
    for token in tokens:
        if len(token.text) == 1 and (not run or token.gap_before <= MAX_GAP_CHARS):
            run.append(token.text)
            continue
        if len(run) > 1:
            yield run
        run = [token.text] if len(token.text) == 1 else []
    if len(run) > 1:
        yield run


def _parse_entry(raw: str) -> _Entry | None:
    """An entry's words as runs of letters; ``None`` for a blank entry."""
    text = raw.strip()
    spelled = ["".join(ch for ch in word if ch.isalnum()) for word in fold(text).split()]
    spelled = [word for word in spelled if word]
    if not spelled:
        return None
    return _Entry(text=text, words=tuple(_runs(word) for word in spelled),
                  joined=_runs("".join(spelled)))


def find_abuse(fields: Mapping[str, str], words: WordList) -> list[PolicyHit]:
    """Every field whose text contains an entry of ``words`` (at most one hit per field)."""
    hits = []
    for name, text in fields.items():
        entry = words.match(text)
        if entry is not None:
            hits.append(PolicyHit(field=name, entry=entry))
    return hits


def parse_word_list(text: str) -> list[str]:
    """Entries of a word-list file: one per line, blank lines and ``#`` comments ignored."""
    return [line.strip() for line in text.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


@functools.lru_cache(maxsize=8)
def load_word_list(source: str | None = None) -> WordList:
    """The word list named by ``source`` (``FILM_TEXT_POLICY_WORDS``).

    Unset or blank: the built-in list (``services/assets/blocked_words.txt``). A value with a
    ``/`` in it: a UTF-8 file in the same format (an empty file such as ``/dev/null`` turns the
    policy off); a missing or unreadable file raises ``OSError``. Anything else: comma-separated
    entries. Lists are cached per process (a changed file is read again after a restart).
    """
    if source is None or not source.strip():
        return WordList(parse_word_list(BUILTIN_WORDS_PATH.read_text(encoding="utf-8")))
    if "/" in source:
        with open(source.strip(), "rb") as fp:
            data = fp.read(MAX_LIST_BYTES + 1)
        if len(data) > MAX_LIST_BYTES:
            raise ValueError(f"word list {source} is larger than {MAX_LIST_BYTES} bytes")
        return WordList(parse_word_list(data.decode("utf-8")))
    return WordList(part for part in source.split(","))


# --- the gate's checks of an order's words ---------------------------------------------------


def customer_text(order: FilmOrder) -> dict[str, str]:
    """The customer's words by field: names, relationship, stories, each feeling word."""
    fields = {"recipient_name": order.recipient_name, "relationship": order.relationship,
              "memory": order.memory, "story_note": order.story_note}
    fields.update({f"feeling_words.{i}": word for i, word in enumerate(order.feeling_words)})
    return fields


def text_outside_contract(order: FilmOrder) -> str | None:
    """Why the order's text breaks the contract, or ``None`` when it is within it.

    Defence in depth: an order that skipped validation on its way here (a converter that does
    not validate, ``model_construct``) is validated again; its text must come back unchanged,
    i.e. within the limits and already stripped of control characters.
    """
    try:
        again = FilmOrder.model_validate(order.model_dump())
    except ValidationError as exc:
        return "; ".join(f"{'.'.join(map(str, error['loc']))}: {error['msg']}"
                         for error in exc.errors()[:3])
    cleaned = customer_text(again)
    changed = [name for name, text in customer_text(order).items() if cleaned.get(name) != text]
    return f"control characters in {', '.join(changed)}" if changed else None


def abusive_text(order: FilmOrder, word_list_source: str | None) -> list[PolicyHit]:
    """Fields whose words match the configured word list (``FILM_TEXT_POLICY_WORDS``)."""
    return find_abuse(customer_text(order), load_word_list(word_list_source))
