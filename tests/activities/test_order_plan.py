"""An order becomes one film spec (activities.order_plan.film_spec): what the order decided and
what the photos' pixels say, saved as JSON and planned again into the same film."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PIL import Image

from activities.order_plan import (
    cards_for,
    film_plan,
    film_spec,
    interlude_cards,
    order_look,
    photo_sources,
)
from app.order_folder import read_order_folder
from media.analysis.subjects import find_subject
from media.frames.sources import load_photo
from media.plan.inputs import MotionClipSource
from media.plan.motion_clips import motion_clip_seconds, motion_photos
from media.plan.pacing import pacing_of
from media.plan.spec import FilmSpec, MotionRecipe, SongGrid
from media.plan.timeline import PROVIDER
from media.song.compose import SongBrief, beat_grid, plan_song
from media.song.compose import _sections as song_sections
from services.settings import DEFAULT_RECIPES
from workflows.contract import FilmOrder, Tier
from workflows.stages import PreparedPhoto, PrepResult, Rejection

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
WORKING_EDGE = 1024  # the samples' photos, made small: the plan reads facts, not detail


def _order(tmp_path: Path, sample: str, tier: Tier) -> tuple[FilmOrder, PrepResult,
                                                               dict[str, Path]]:
    """The sample order in ``tier``, its photos prepared (small copies) and one file refused."""
    folder = tmp_path / sample
    shutil.copytree(SAMPLES / sample, folder, ignore=shutil.ignore_patterns("clips"))
    order, _ = read_order_folder(folder)
    order = order.model_copy(update={"tier": tier})
    paths, prepared = {}, []
    for ref, source in zip(order.photos, sorted((folder / "photos").glob("*.jpg")),
                           strict=True):
        with Image.open(source) as image:
            image.thumbnail((WORKING_EDGE, WORKING_EDGE))
            paths[ref.id] = tmp_path / f"{ref.id}.jpg"
            image.convert("RGB").save(paths[ref.id], quality=92)
            prepared.append(PreparedPhoto(id=ref.id, key=ref.key, width=image.width,
                                          height=image.height, low_res=False))
    return order, PrepResult(photos=prepared, clips=[],
                             rejected=[Rejection(id="p99", reason="not_an_image")]), paths


def _song(order: FilmOrder) -> SongGrid:
    song = plan_song(SongBrief(order.occasion.slug, order.occasion.tone, order.occasion.gentle,
                               order.recipient_name, order.relationship, order.memory,
                               order.story_note, tuple(order.feeling_words), order.style.value,
                               order.length_sec), 7)
    beats, bars = beat_grid(song)
    return SongGrid(beat_times=beats, bar_times=bars, sections=song_sections(song),
                    lyrics=("waiting for the school bus",))


def _spec(tmp_path: Path, sample: str, tier: Tier) -> tuple[FilmOrder, FilmSpec]:
    order, prep, paths = _order(tmp_path, sample, tier)
    subjects = {pid: find_subject(load_photo(path)) for pid, path in paths.items()}
    spec = film_spec(order, prep, _song(order), DEFAULT_RECIPES[tier], photo_paths=paths,
                     clip_paths={}, subjects=subjects)
    return order, spec


@pytest.mark.parametrize(("sample", "tier"), [("pet-tribute", Tier.SIGNATURE),
                                              ("birthday", Tier.STANDARD)])
def test_a_film_planned_again_from_its_saved_spec_is_the_film_planned_from_the_order(
        tmp_path: Path, sample: str, tier: Tier) -> None:
    _, spec = _spec(tmp_path, sample, tier)
    saved = FilmSpec.from_json(spec.to_json())
    assert saved == spec
    assert film_plan(saved).to_json() == film_plan(spec).to_json()


def test_the_spec_says_what_the_order_decided(tmp_path: Path) -> None:
    order, spec = _spec(tmp_path, "pet-tribute", Tier.SIGNATURE)
    opening, closing = cards_for(order)
    assert (spec.family, spec.look, spec.grade) == ("pet_tribute", opening.look, "gentle+finish")
    assert spec.gentle and spec.recipe.premium and spec.recipe.motion_shots == 6
    assert spec.words.opening == opening and spec.words.closing == closing
    assert spec.words.interludes == interlude_cards(order, closing)
    assert [(o.id, o.reason) for o in spec.left_out] == [("p99", "not_an_image")]
    assert [p.id for p in spec.photos] == [p.id for p in order.photos]
    assert spec.subject_photo_id == order.subject_photo_id
    assert any(p.with_subject for p in spec.photos)  # the same dog, found in another photo
    assert film_plan(spec).grade == "gentle+finish"


def test_the_motion_providers_clips_reach_the_spec_and_play_in_their_photos_shots(
        tmp_path: Path) -> None:
    order, prep, paths = _order(tmp_path, "pet-tribute", Tier.SIGNATURE)
    subjects = {pid: find_subject(load_photo(path)) for pid, path in paths.items()}
    recipe = DEFAULT_RECIPES[Tier.SIGNATURE]
    wanted = motion_photos(photo_sources(prep, paths, subjects), order.subject_photo_id,
                           MotionRecipe(motion_shots=recipe.motion_shots).full_moves(
                               order.length_sec))
    seconds = motion_clip_seconds(pacing_of(order_look(order)))
    spec = film_spec(order, prep, _song(order), recipe, photo_paths=paths, clip_paths={},
                     subjects=subjects, motion_seconds=dict.fromkeys(wanted, seconds))
    assert spec.motion_clips == tuple(MotionClipSource(pid, seconds) for pid in sorted(wanted))
    played = [s.source_id for s in film_plan(spec).shots if s.motion == PROVIDER]
    assert played and len(played) == len(set(played)) and set(played) <= set(wanted)
