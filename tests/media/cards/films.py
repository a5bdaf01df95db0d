"""A sample order's film as the render stage prepares its cards, without rendering it: the
order's photos with their subjects and traits, a timeline planned on a steady beat grid, and
the sources of its card shots (their words over their photos) frame by frame."""

from __future__ import annotations

import json
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from activities.order_plan import cards_for, interlude_cards
from app.order_folder import read_order_folder
from media.analysis.arc import photo_traits
from media.analysis.subjects import find_subject
from media.base import spec, yuv
from media.design.reading import TEXT_EXIT_S, TITLE_IN_S, WORDS_IN_S
from media.frames.card_shots import PreparedCard
from media.frames.preparer import SourcePreparer
from media.frames.sources import FilmSources, load_photo
from media.frames.stall import StallWatch
from media.plan import planner
from media.plan.inputs import PhotoSource
from media.plan.spec import FilmSpec, FilmWords, MotionRecipe, SongGrid
from media.plan.timeline import Shot, Timeline

REPO = Path(__file__).resolve().parents[3]
BPM = 104.0


@dataclass
class SampleFilm:
    """A planned sample film and the preparer of its shots."""

    timeline: Timeline
    preparer: SourcePreparer

    def cards(self) -> list[tuple[int, Shot]]:
        """The card shots (index, shot), in film order."""
        return [(i, s) for i, s in enumerate(self.timeline.shots) if s.kind == "card"]

    def hold_frames(self, index: int, count: int = 3) -> tuple[PreparedCard, list[int]]:
        """Card shot ``index`` prepared, and ``count`` frames (into the shot) spread over its
        words' hold: from when they are all in until they start to leave."""
        shot = self.timeline.shots[index]
        prepared = self.preparer.prepare(index)
        assert isinstance(prepared, PreparedCard)
        fps = self.timeline.fps
        start = ((prepared.delay or 0) / fps
                 + (WORDS_IN_S if prepared.delay is not None else TITLE_IN_S))
        end = (prepared.exit_frame / fps - TEXT_EXIT_S if prepared.exit_frame is not None
               else (shot.cut_out - shot.visible_in) / fps - 1 / fps)
        times = np.linspace(start, max(start, end), count)
        return prepared, [min(shot.frames - 1, round(t * fps)) for t in times]


def sample_film(sample: str, tmp_path: Path, *, length: float = 30.0,
                tier: str = "standard") -> SampleFilm:
    """The film of the repository's sample order ``sample`` at ``length`` seconds in ``tier``
    (signature: the planner's ``premium``), planned on a steady beat grid."""
    folder = tmp_path / sample
    shutil.copytree(REPO / "samples" / sample, folder, ignore=shutil.ignore_patterns("clips"))
    fields = json.loads((folder / "order.json").read_text(encoding="utf-8"))
    fields.update(length_sec=length, tier=tier)
    (folder / "order.json").write_text(json.dumps(fields), encoding="utf-8")
    order, _ = read_order_folder(folder)
    opening, closing = cards_for(order)
    paths = {ref.id: folder / "photos" / name for ref, name in
             zip(order.photos, sorted(p.name for p in (folder / "photos").iterdir()),
                 strict=True)}
    subjects, photos = {}, []
    for photo_id, path in paths.items():
        image = load_photo(path)
        subjects[photo_id] = subject = find_subject(image)
        height, width = image.shape[:2]
        x, y = subject.focus.center
        photos.append(PhotoSource(photo_id, width, height, False,
                                  **asdict(photo_traits(path, subject)), focus_x=x, focus_y=y))
    beats = [float(t) for t in np.arange(0.23, length, 60.0 / BPM)]
    timeline = planner.plan(FilmSpec(
        length_sec=length, fps=spec.FPS, photos=photos, style=order.style.value,
        gentle=order.occasion.gentle, look=opening.look,
        recipe=MotionRecipe(motion_shots=3, premium=tier == "signature"),
        subject_photo_id=order.subject_photo_id,
        words=FilmWords(opening=opening, closing=closing,
                        interludes=interlude_cards(order, closing)),
        song=SongGrid(beat_times=beats, bar_times=beats[::4])))
    preparer = SourcePreparer(timeline, spec.ASPECTS, FilmSources(paths, subjects=subjects),
                              StallWatch(600))
    return SampleFilm(timeline, preparer)


def rgb_frame(prepared: PreparedCard, aspect: spec.Aspect, frame: int) -> np.ndarray:
    """Frame ``frame`` of a prepared card in ``aspect`` as uint8 RGB."""
    return yuv.i420_to_rgb(prepared.frame(aspect, frame))


WORDS_MARGIN = 0.05  # share of the frame's height read above and below the words' block


def words_rows(prepared: PreparedCard, aspect: spec.Aspect) -> tuple[int, int]:
    """The band of a card's frames (top, bottom pixels) holding its words at rest, with
    :data:`WORDS_MARGIN` of the picture above and below them."""
    sprites = prepared.images[aspect.name].sprites
    top = min(s.y0 for s in sprites)
    bottom = max(s.y0 + s.alpha.shape[0] for s in sprites)
    margin = round(WORDS_MARGIN * aspect.height)
    return max(0, top - margin), min(aspect.height, bottom + margin)
