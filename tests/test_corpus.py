"""The order corpus (issue 42) at plan level: the committed corpus fixture's orders, each
planned from its film spec (:func:`media.plan.planner.plan`) and framed as the renderer frames
its shots (:mod:`bench.corpus.framing`), against the promises the film must keep
(:mod:`bench.corpus.invariants`). No photo is decoded: the fixture holds what the renderer
reads of each photo beside its pixels (``python -m bench.corpus.generate`` makes it).

One order in :data:`EVERY` is checked here (spread like the whole; ``python -m
bench.corpus.report`` checks them all). The promises the planner does not keep yet are strict
xfails with their pass rate over the whole corpus: a fix flips one to XPASS, which fails, and
its name moves to :data:`KEPT`.

What the fixture records of intake and the gate (a blank photo kept, an order of blank photos
not held) changes only when it is generated again; the last two tests check those promises on
five small real files through the real intake and gate (about 0.3 s each), so an intake fix
flips them at once.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections import Counter
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from bench.corpus import fixture
from bench.corpus.framing import SWAPPED, render_photos
from bench.corpus.invariants import HELD_NO_USABLE, check_order
from bench.corpus.report import run_corpus, spread_subset
from bench.corpus.specs import Prepared, gate_outcome
from media.base.errors import MediaRejected
from media.intake.sandbox import prepare_photo_bounded
from workflows.contract import FilmOrder
from workflows.stages import PreparedPhoto, PrepResult, Rejection

EVERY = 3
"""Check one order in three, spread like the whole (:func:`bench.corpus.report.spread_subset`)."""
FIXTURE_MAX_BYTES = 4_000_000

KEPT = ("plans", "faces_whole", "detected_faces_whole", "words_clear_of_faces",
        "detected_words_clear_of_faces", "words_verbatim", "words_shown", "first_round",
        "no_back_to_back", "subject_share", "few_photo_repeats", "no_ghost_faces",
        "detected_no_ghost_faces", "full_bleed_portrait", "blanks_left_out",
        "unusable_order_held", "never_frozen")
"""Promises every checked corpus order keeps today (every order gets a spec and a plan; the planner
keeps whole the faces its detector finds and the labelled ones (every corpus order), and a card's
words off them and off the labelled faces (every corpus order: a block of words too tall to leave
a close-up fitted above it room is set lower and smaller); the customer's words are
shown as written, both from 45 s, for their reading time, at a size a phone reads; every photo
once before a repeat (99.5 % of the whole corpus: a close-up and a profile close-up of one face,
dropped as twins, count apart in the ground truth); no photo twice in a row; the subject photo at
most about a quarter of the photo time; a film of one to three photos shows each repeat in a new
framing that holds its faces (a close-up its faces or profile fill: a crop inside what is safe; a
profile no crop shows whole, once its crop was shown: the whole photo); no dissolve between two
faces the detector found nor the labelled ones (every corpus order once the fixture is made with
the close looks that draw a photo's edges on past a face they cut: with the analysis before them
98.7 %, a blurred close-up cut by the photo's edges whose face the detector did not even hold
possible); 9:16 full-bleed whenever the subject fits a 2x crop (a pet's head held edge to edge
when only that fits); blank and degenerate photos left out, an order of them held; no shot
holding its photos still long enough to read as a frozen film: a crop no move holds pushes
slowly in, the faces it holds whole, a card's away from its words)."""
FAILING: dict[str, str] = {
    "sources_apart": "98.0 % (197/201): four crops not found (a close-up beside a small group "
                     "photo, a sepia scan or a 12 MP phone copy of its picture, a turned "
                     "close-up beside a recompressed copy); the films of few pictures spread "
                     "their showings by picture and keep the ones found apart",
}
"""The promises not kept yet, with the pass rate over the whole corpus (the reason)."""

Results = dict[str, dict[str, list[str] | None]]


def _check() -> Results:
    return {r.id: r.checks for r in run_corpus(fixture.FIXTURE, EVERY, workers=1)}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Results:
    """Every checked order's failures per promise, computed once per test run: under
    pytest-xdist the first worker computes them and the others read its file."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return _check()
    shared = tmp_path_factory.getbasetemp().parent / "corpus-results.json"
    with (shared.with_suffix(".lock")).open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not shared.exists():
            shared.write_text(json.dumps(_check()))
        return json.loads(shared.read_text())


def _failures(results: Results, name: str) -> list[str]:
    return [f"{order}: {checks[name][0]}" for order, checks in results.items()
            if checks.get(name)]


@pytest.mark.parametrize("name", KEPT)
def test_every_corpus_order_keeps(results: Results, name: str) -> None:
    assert _failures(results, name) == []


@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.xfail(
    strict=True, raises=AssertionError, reason=reason)) for name, reason in FAILING.items()])
def test_every_corpus_order_will_keep(results: Results, name: str) -> None:
    assert _failures(results, name) == []


WORDS_OVER_FACES = ("o011-memorial_closeup", "o071-memorial_closeup", "o001-memorial_closeup",
                    "o052-people", "o074-phone", "o042-people", "o021-memorial_closeup",
                    "o125-scans")
"""Orders whose title or closing laid its words over a face before cards were framed for their
words: 1, 1, 2, 5, 5, 10 and 30 photos; 30 to 180 s; both tiers. (o002, 3 photos, kept its
words off the bar's profile face only while the possible faces under a chin were kept: its
closing lays them over that face again, one of words_clear_of_faces' misses.) o125 (30 photos,
60 s): its 16:9 closing's three long lines at full size left the old scan's close-up fitted
above them no room, and lay over its face until they were set lower and smaller."""


PROFILES_CUT = ("o110-mixed", "o007-degenerate_mix", "o287-degenerate_mix", "o276-blank_mix",
                "o146-blank_mix", "o021-memorial_closeup", "o278-duplicates",
                "o141-memorial_closeup")
"""Orders whose 9:16 shots cut a close-up's profile (a possible face wider than the crop, its
padded core not) before such a core was held whole: 2, 2, 5, 5, 10, 30 and 30 photos; 45 to
150 s; both tiers. (o141, 30 photos in 30 s: its title's crop framed for its words held the
profile's found core, 3 px short of its labelled brow, before that core was loosened.)"""


@pytest.mark.parametrize("order_id", PROFILES_CUT)
def test_a_profile_close_up_wider_than_the_portrait_crop_keeps_its_face_whole(
        corpus: fixture.Corpus, order_id: str) -> None:
    order = next(o for o in corpus.orders if o.id == order_id)
    assert check_order(order, corpus.photos_of(order))["faces_whole"] == []


@pytest.mark.parametrize("order_id", WORDS_OVER_FACES)
def test_a_cards_words_stay_off_the_faces_of_the_photo_under_them(
        corpus: fixture.Corpus, order_id: str) -> None:
    order = next(o for o in corpus.orders if o.id == order_id)
    checks = check_order(order, corpus.photos_of(order))
    assert checks["words_clear_of_faces"] == []
    assert checks["detected_words_clear_of_faces"] == []


POSSIBLE_FACES_UNDER_WORDS = ("o110-mixed", "o007-degenerate_mix", "o002-people",
                              "o287-degenerate_mix", "o146-blank_mix", "o255-scans",
                              "o141-memorial_closeup", "o068-duplicates", "o070-mixed")
"""Orders whose title, interlude or closing laid its words over a face the detector held only
possible (a profile close-up, a small face behind a portrait's) before the words kept off
possible faces: 2, 2, 3, 5, 10, 10, 30 and 30 photos; 30 to 150 s; both tiers (o070: over the
profile's nose, past its found core, before that core was loosened)."""


@pytest.mark.parametrize("order_id", POSSIBLE_FACES_UNDER_WORDS)
def test_a_cards_words_stay_off_a_face_the_detector_holds_only_possible(
        corpus: fixture.Corpus, order_id: str) -> None:
    order = next(o for o in corpus.orders if o.id == order_id)
    assert check_order(order, corpus.photos_of(order))["words_clear_of_faces"] == []


REPEATED_FRAMINGS = ("o110-mixed", "o276-blank_mix", "o287-degenerate_mix", "o100-mixed",
                     "o264-phone", "o007-degenerate_mix")
"""Orders whose few photos were shown again framed as before: a profile close-up the detector
holds only possible, its one crop held still again (2 and 5 photos, 3 of them usable; 45, 90
and 120 s; the signature tier); a close-up whose face fills its square layout cell, held still
twice (3 photos, 180 s); a trimmed screenshot under the title and the closing fitted with the
same push (3 photos, 45 s; the standard tier); a tilted close-up alone in 150 s whose profile
is wider than its 9:16 crop, the crops holding that profile's core all one framing (shown
whole after its crop, 9:16 full-bleed otherwise)."""


@pytest.mark.parametrize("order_id", REPEATED_FRAMINGS)
def test_a_few_photo_film_frames_every_repeat_anew_and_keeps_its_faces_whole(
        corpus: fixture.Corpus, order_id: str) -> None:
    order = next(o for o in corpus.orders if o.id == order_id)
    checks = check_order(order, corpus.photos_of(order))
    assert checks["few_photo_repeats"] == []
    assert checks["faces_whole"] == [] and checks["full_bleed_portrait"] == []


FEW_PICTURES_APART = ("o051-memorial_closeup", "o111-memorial_closeup", "o231-memorial_closeup",
                      "o063-no_faces")
"""Orders that showed a photo and a crop of it in consecutive shots where swapping slots could
not part them: three photos, two of them one picture (119, 180 and 60 s; both tiers: the
title's two leads, or a lead and the lockup, of one picture), and five photos of three
pictures whose title's leads left no swap (180 s, signature). Spread by picture, they alternate
with the other pictures."""


@pytest.mark.parametrize("order_id", FEW_PICTURES_APART)
def test_a_few_picture_film_keeps_a_photo_and_its_crop_apart(corpus: fixture.Corpus,
                                                             order_id: str) -> None:
    order = next(o for o in corpus.orders if o.id == order_id)
    checks = check_order(order, corpus.photos_of(order))
    assert checks["sources_apart"] == []
    assert checks["first_round"] == [] and checks["no_back_to_back"] == []


HELD_STILL = ("o195-scans", "o287-degenerate_mix", "o215-scans", "o176-blank_mix",
              "o007-degenerate_mix", "o050-mixed", "o020-mixed", "o217-degenerate_mix",
              "o146-blank_mix", "o167-degenerate_mix", "o276-blank_mix")
"""Orders with a shot held still 4-16 s (86 shots over 3.5 s in 59 orders before) before a
framing no move holds pushed slowly in: a scan's closing whose faces reach the top under low
words (o195, refunded by verify as "16x9: frozen: 9.7 s"), a tiny photo's title, a 9:16
close-up no crop moves over, a layout's two cells held still together, a profile whose possible
face fills its 9:16 crop's width (o276: pushing in on its core); 2 to 30 photos, 30-180 s."""


@pytest.mark.parametrize("order_id", HELD_STILL)
def test_a_shot_no_move_holds_pushes_slowly_in_instead_of_freezing(
        corpus: fixture.Corpus, order_id: str) -> None:
    order = next(o for o in corpus.orders if o.id == order_id)
    checks = check_order(order, corpus.photos_of(order))
    assert checks["never_frozen"] == []
    assert checks["faces_whole"] == [] and checks["words_clear_of_faces"] == []


def test_every_promise_is_kept_or_expected_to_fail() -> None:
    from bench.corpus.invariants import INVARIANTS

    assert sorted(INVARIANTS) == sorted((*KEPT, *FAILING))


@pytest.fixture(scope="module")
def corpus() -> fixture.Corpus:
    return fixture.load()


def test_the_corpus_spans_every_occasion_tier_style_length_and_photo_count(
        corpus: fixture.Corpus) -> None:
    facts = [o.facts for o in corpus.orders]
    assert len(facts) >= 300
    assert {f["photos"] for f in facts} == {1, 2, 3, 5, 10, 30}
    assert {f["tier"] for f in facts} == {"standard", "signature"}
    assert {f["style"] for f in facts} == {"gift", "brand", "social"}
    assert len({f["occasion"] for f in facts}) >= 12
    assert {30, 37, 61, 119, 173, 180} <= {f["length_sec"] for f in facts}
    assert {"short", "long500", "arabic", "hebrew", "emoji"} <= {f["text_kind"] for f in facts}


def test_the_corpus_holds_every_kind_of_photo_customers_send(corpus: fixture.Corpus) -> None:
    kinds = Counter(p.kind for p in corpus.photos.values())
    assert {"closeup", "closeup_tilted", "closeup_profile", "closeup_partial", "group",
            "scenery", "pet", "old_scan", "phone_exif", "panorama", "tall_screenshot", "tiny",
            "blank_pocket", "blank_white", "near_blank", "degenerate_stripe",
            "degenerate_small", "duplicate", "near_duplicate"} <= set(kinds)
    assert any(f.small for p in corpus.photos.values() for f in p.faces)


def test_the_checked_orders_span_the_whole_corpus(corpus: fixture.Corpus) -> None:
    subset = [corpus.orders[k] for k in spread_subset(len(corpus.orders), EVERY)]
    assert len(subset) >= len(corpus.orders) // EVERY
    for fact in ("occasion", "scenario", "photos", "tier", "style", "text_kind"):
        assert {o.facts[fact] for o in subset} == {o.facts[fact] for o in corpus.orders}


def test_the_fixture_stays_small() -> None:
    assert fixture.FIXTURE.stat().st_size < FIXTURE_MAX_BYTES


def test_the_renderer_still_has_the_layers_the_corpus_records() -> None:
    assert all(hasattr(render_photos, name) for name in (*SWAPPED, "steady"))


def test_a_photo_line_reads_back_as_written(tmp_path: Path) -> None:
    corpus = fixture.load()
    photo = next(p for p in corpus.photos.values() if p.faces and p.texture is not None)
    subject = asdict(photo.subject) if photo.subject is not None else None
    path = tmp_path / "one.jsonl.gz"
    fixture.write(path, {}, [fixture.photo_line(photo, subject)])
    again = fixture.load(path).photos[photo.key]
    assert again.faces == photo.faces
    assert again.subject == photo.subject
    assert (again.texture == photo.texture).all()


def _unusable_photos(folder: Path) -> dict[str, Path]:
    """Small real files of the corpus's unusable kinds: a white screenshot, a pocket shot, a
    grey frame (blank), a 1000:1 stripe and a 14 px photo (degenerate)."""
    rng = np.random.default_rng(42)
    white = np.full((844, 390, 3), 255, np.uint8)
    white[:30] = 246  # a status bar
    pixels = {"white": white,
              "pocket": np.clip(rng.normal(4, 3, (300, 400, 3)), 0, 255).astype(np.uint8),
              "grey": np.full((300, 400, 3), 128, np.uint8),
              "stripe": np.repeat(np.linspace(0, 255, 4000)[None, :, None], 4, 0).repeat(
                  3, 2).astype(np.uint8),
              "tiny": np.full((10, 14, 3), 90, np.uint8)}
    paths = {}
    for name, image in pixels.items():
        paths[name] = folder / f"{name}.png"
        Image.fromarray(image).save(paths[name])
    return paths


def _intake(paths: dict[str, Path], folder: Path) -> PrepResult:
    """The real intake of each photo, as prep runs it (kept, or refused with its reason)."""
    kept, refused = [], []
    for name, path in paths.items():
        try:
            info = prepare_photo_bounded(path, folder / f"{name}.jpg")
        except MediaRejected as rejection:
            refused.append(Rejection(id=name, reason=rejection.reason))
            continue
        kept.append(PreparedPhoto(id=name, key=name, width=info.width, height=info.height,
                                  low_res=info.low_res))
    return PrepResult(photos=kept, clips=[], rejected=refused)


def test_intake_leaves_out_blank_and_degenerate_photos_with_a_reason(tmp_path: Path) -> None:
    prep = _intake(_unusable_photos(tmp_path), tmp_path)
    assert [p.id for p in prep.photos] == []


def test_an_order_of_only_unusable_photos_is_held(tmp_path: Path,
                                                  corpus: fixture.Corpus) -> None:
    received = next(o.order for o in corpus.orders if o.facts["scenario"] == "all_blank")
    prep = _intake(_unusable_photos(tmp_path), tmp_path)
    outcome = gate_outcome(Prepared(FilmOrder.model_validate(received), prep, {}, {}, {}))
    assert outcome == HELD_NO_USABLE
