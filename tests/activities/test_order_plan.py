"""An order becomes one film spec (activities.order_plan.film_spec): what the order decided and
what the photos' pixels say, saved as JSON and planned again into the same film."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from activities import order_plan
from activities.order_plan import (
    cards_for,
    film_plan,
    film_spec,
    interlude_cards,
    order_look,
    photo_sources,
)
from media.analysis.subjects import find_subject
from media.frames.sources import load_photo
from media.plan.inputs import MotionClipSource
from media.plan.motion_clips import motion_clip_seconds, motion_photos
from media.plan.pacing import pacing_of
from media.plan.spec import FilmSpec, MotionRecipe
from media.plan.timeline import PROVIDER
from services.settings import DEFAULT_RECIPES
from tests.helpers import prepared_sample, sample_song, sample_spec
from workflows.contract import Tier
from workflows.stages import PreparedPhoto, PrepResult


@pytest.mark.parametrize(("sample", "tier"), [("pet-tribute", Tier.SIGNATURE),
                                              ("birthday", Tier.STANDARD)])
def test_a_film_planned_again_from_its_saved_spec_is_the_film_planned_from_the_order(
        tmp_path: Path, sample: str, tier: Tier) -> None:
    _, spec = sample_spec(tmp_path, sample, tier)
    saved = FilmSpec.from_json(spec.to_json())
    assert saved == spec
    assert film_plan(saved).to_json() == film_plan(spec).to_json()


def test_the_spec_says_what_the_order_decided(tmp_path: Path) -> None:
    order, spec = sample_spec(tmp_path, "pet-tribute", Tier.SIGNATURE)
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
    order, prep, paths = prepared_sample(tmp_path, "pet-tribute", Tier.SIGNATURE)
    subjects = {pid: find_subject(load_photo(path)) for pid, path in paths.items()}
    recipe = DEFAULT_RECIPES[Tier.SIGNATURE]
    wanted = motion_photos(photo_sources(prep, paths, subjects), order.subject_photo_id,
                           MotionRecipe(motion_shots=recipe.motion_shots).full_moves(
                               order.length_sec))
    seconds = motion_clip_seconds(pacing_of(order_look(order)))
    spec = film_spec(order, prep, sample_song(order), recipe, photo_paths=paths, clip_paths={},
                     subjects=subjects, motion_seconds=dict.fromkeys(wanted, seconds))
    assert spec.motion_clips == tuple(MotionClipSource(pid, seconds) for pid in sorted(wanted))
    played = [s.source_id for s in film_plan(spec).shots if s.motion == PROVIDER]
    assert played and len(played) == len(set(played)) and set(played) <= set(wanted)


def test_a_print_too_small_for_the_detector_to_see_its_faces_holds_a_possible_face(
        tmp_path: Path) -> None:
    rng = np.random.default_rng(4)
    photos, paths = [], {}
    for pid, (width, height) in {"p01": (163, 109), "p02": (800, 532)}.items():
        paths[pid] = tmp_path / f"{pid}.png"
        Image.fromarray(rng.integers(0, 255, (height, width, 3), np.uint8)).save(paths[pid])
        photos.append(PreparedPhoto(id=pid, key=str(paths[pid]), width=width, height=height,
                                    low_res=width < 400))
    prep = PrepResult(photos=photos, clips=[], rejected=[])
    sources = {p.id: p for p in photo_sources(prep, paths, {})}
    assert sources["p01"].possible_face  # a face under a fifth of it may have gone unfound
    assert not sources["p02"].possible_face


def test_the_photos_mattes_and_likeness_read_over_two_threads_are_those_read_one_by_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    order, prep, paths = prepared_sample(tmp_path, "pet-tribute", Tier.SIGNATURE)
    kept = [p for p in prep.photos if p.id == order.subject_photo_id] + [
        p for p in prep.photos if p.id != order.subject_photo_id][:2]
    prep = PrepResult(photos=kept, clips=[], rejected=[])
    subjects = {p.id: find_subject(load_photo(paths[p.id])) for p in kept}

    def read(threads: int) -> list[object]:
        monkeypatch.setattr(order_plan, "PICTURE_FACT_THREADS", threads)
        return photo_sources(prep, paths, subjects, premium=True,
                             subject_id=order.subject_photo_id)

    together = read(2)
    assert any(p.with_subject for p in together)
    assert together == read(1)
