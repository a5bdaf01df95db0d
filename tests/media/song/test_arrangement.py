"""How the keys play is a registered function per style (media.song.arrangement): every style
the palettes name is registered, and a new arrangement is a palette plus its voicing, played
by arrange() as it plays the others."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from media.song import arrangement, palettes
from media.song.arrangement import KeysBar, arrange
from media.song.melody import Note
from media.song.palettes import PALETTES, Palette
from media.song.plan import SongBrief, SongPlan, plan_song

BRIEF = SongBrief("birthday", "joyful", False, "Marta", "friend", "the lake house", "",
                  ("joy",), "gift", 45.0, 3.0, 5.0)


def test_every_keys_style_a_palette_names_is_registered() -> None:
    styles = {palette.keys_style for options in PALETTES.values() for palette in options}
    assert styles <= set(arrangement.KEYS_STYLES)
    assert styles == {"comp", "strum", "broken"}


@pytest.fixture
def stab() -> Iterator[str]:
    """A toy keys style registered for one test: one short chord on each bar's downbeat."""
    name = "toy_stab"

    @arrangement.keys_style(name)
    def toy(plan: SongPlan, bar: KeysBar) -> list[Note]:
        return [Note("keys", bar.t0, 0.1, key, 99) for key in bar.voicing]

    yield name
    del arrangement.KEYS_STYLES[name]


def test_a_new_arrangement_is_a_palette_and_its_registered_voicing(
        stab: str, monkeypatch: pytest.MonkeyPatch) -> None:
    plan = plan_song(BRIEF, seed=11)
    shipped = arrange(plan)
    stabbing = Palette("toy stabs", plan.arrangement.parts, stab, None)
    monkeypatch.setitem(PALETTES, plan.feel, (stabbing,))
    assert palettes.palette_for(plan.feel, plan.palette) is stabbing
    keys = [note for note in arrange(plan) if note.part == "keys"]
    downbeats = {round(bar * plan.bar_s, 6) for bar in range(plan.n_bars)}
    assert keys and {round(n.start, 6) for n in keys if n.velocity == 99} == downbeats
    others = [note for note in arrange(plan) if note.part not in ("keys", "drums")]
    assert others == [note for note in shipped if note.part not in ("keys", "drums")]
