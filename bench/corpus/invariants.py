"""The plan-level promises of issue 42, checked on one planned corpus order.

Every check returns the order's failures (one line each, saying where and what), or ``None``
when it does not apply to the order. The checks read the timeline, the camera of every shot
frame by frame (:mod:`bench.corpus.framing`), the cards' type as laid out
(:func:`media.cards.text.text_layout`, nothing drawn) and the ground truth of the generator.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.corpus.fixture import CorpusOrder, CorpusPhoto
from bench.corpus.framing import PhotoFacts, View, WordsPlaces, shot_views
from bench.corpus.specs import with_current_words
from media.analysis.framing import largest_crop
from media.analysis.safe_crops import uncroppable_possible
from media.analysis.subjects import keep_whole, union
from media.base.spec import ASPECTS, MAX_FROZEN_S, PORTRAIT
from media.cards.draw import words_box
from media.cards.text import text_layout
from media.design.reading import CAP_HEIGHT_MIN_PX, cap_height_on_phone_px, message_hold_s
from media.frames.sources import FilmSources
from media.plan.pacing import FEW_PHOTOS, SUBJECT_SHARE_FROM, SUBJECT_SHARE_MAX
from media.plan.planner import plan
from media.plan.spec import FilmSpec
from media.plan.timeline import Timeline
from media.plan.transitions import transition_kind
from workflows.contract import FilmOrder

FRAME_STEP = 2  # frames between the samples of a move (its first and last always sampled)
BOTH_WORDS_FROM_S = 45.0
FULL_BLEED_UPSCALE_MAX = 2.0
OVERLAP_MIN = 0.1  # faces overlapping by this share of the smaller one lie over each other
REWRITE_SHARE = 0.6  # a line with this share of a field's words but not its text is rewritten
DETECTED_CORE = (0.15, 0.28, 0.85, 0.88)  # eyes to mouth within a detector's face box


HELD_NO_USABLE = "held:no_usable_photos"
"""The outcome of an order left with no usable photo (the gate's hold)."""


@dataclass
class Context:
    """What the checks share for one order: the order, its photos by id, its timeline (None
    when the gate holds it), every shot's views, the usable photos and the duplicate groups."""

    order: CorpusOrder
    photos: dict[str, CorpusPhoto]
    timeline_or_none: Timeline | None
    views: list[dict[str, list[View]]]
    usable: list[str]
    groups: dict[str, str]
    """Photo id -> its duplicate group (the id of the first photo showing the same picture: a
    copy, or the same picture whole, :attr:`CorpusPhoto.picture`)."""
    words: WordsPlaces = field(default_factory=dict)
    """Card shot index -> aspect -> where its words go over its photo (see
    :func:`bench.corpus.framing.shot_views`)."""

    @property
    def timeline(self) -> Timeline:
        assert self.timeline_or_none is not None
        return self.timeline_or_none

    @property
    def planned(self) -> bool:
        """True when the order has a timeline (the gate let it through)."""
        return self.timeline_or_none is not None


def context_for(order: CorpusOrder, photos: dict[str, CorpusPhoto]) -> Context:
    """The shared facts of an order: its plan (:func:`media.plan.planner.plan` of its spec,
    its words made by the current wording rules: :func:`bench.corpus.specs.with_current_words`)
    and every shot's views (computed once)."""
    usable = [pid for pid, photo in photos.items()
              if not photo.rejected and not photo.unusable]
    first: dict[str, str] = {}
    groups = {pid: first.setdefault(photo.picture or photo.duplicate_of or photo.key, pid)
              for pid, photo in photos.items()}
    timeline, views, words = None, [], {}
    if order.spec is not None:
        spec = with_current_words(order.spec, FilmOrder.model_validate(order.order))
        timeline = plan(spec)
        _renderable(timeline, spec)
        facts = {pid: PhotoFacts(p.width, p.height, p.subject, p.texture)
                 for pid, p in photos.items()
                 if not p.rejected and p.subject is not None and p.texture is not None}
        views = shot_views(timeline, facts, words=words)
    return Context(order, photos, timeline, views, usable, groups, words)


def _renderable(timeline: Timeline, spec: FilmSpec) -> None:
    """Raises as the render stage would when ``timeline`` reads a photo or clip ``spec`` lacks
    (a shot naming an empty or unknown source)."""
    sources = FilmSources(photos={p.id: Path(p.id) for p in spec.photos},
                          clips={c.id: Path(c.id) for c in spec.clips})
    sources.check(timeline, (0, timeline.total_frames))


def _px(box: list[float], width: int, height: int) -> tuple[float, float, float, float]:
    return box[0] * width, box[1] * height, box[2] * width, box[3] * height


def _frames(view: View, frames: int) -> list[int]:
    last = max(0, frames - 1)
    return sorted({*range(0, last, FRAME_STEP), last})


def _cut(core: tuple[float, ...], rect: Any) -> bool:
    """True when the core is partly, not wholly, inside the rectangle (0.5 px tolerance)."""
    x0, y0, x1, y1 = core
    ix = min(x1, rect.x + rect.w) - max(x0, rect.x)
    iy = min(y1, rect.y + rect.h) - max(y0, rect.y)
    if ix <= 0 or iy <= 0:
        return False  # absent
    tol = 0.5
    inside = (x0 >= rect.x - tol and y0 >= rect.y - tol and x1 <= rect.x + rect.w + tol
              and y1 <= rect.y + rect.h + tol)
    return not inside


Cores = Callable[[str], list[tuple[str, tuple[float, ...]]]]
"""A photo id -> its faces' eyes-to-mouth cores, each with a label (pixels of its working
copy)."""


def _face_cuts(ctx: Context, cores: Cores) -> list[str]:
    out = []
    fps = ctx.timeline.fps
    for index, (shot, views) in enumerate(zip(ctx.timeline.shots, ctx.views, strict=True)):
        for aspect, layer_views in views.items():
            for view in layer_views:
                for label, core in cores(view.photo_id):
                    frames = _frames(view, shot.frames)
                    bad = [f for f in frames if _cut(core, view.rect(f))]
                    if bad:
                        where = "cell" if view.offset or len(layer_views) > 1 else shot.kind
                        out.append(f"#{index} {aspect} {view.photo_id} {label}: core cut in "
                                   f"{len(bad)}/{len(frames)} sampled frames from "
                                   f"{(shot.visible_in + bad[0]) / fps:.1f}s ({where}, "
                                   f"{view.motion.mode} {view.motion.move})")
    return out


def _labelled_cores(ctx: Context) -> Cores | None:
    """The generator's labelled cores (those the photo's edge cuts left out); None when no
    photo of the order has a labelled face."""
    if not any(p.faces for p in ctx.photos.values()):
        return None

    def cores(pid: str) -> list[tuple[str, tuple[float, ...]]]:
        return [(f"face{k}{' profile' if f.profile else ''}", f.core)
                for k, f in enumerate(ctx.photos[pid].faces) if not f.cut_by_photo]
    return cores


def _found_cores(ctx: Context) -> Cores | None:
    """The cores of the faces the detector found (the subject's ``cores``, else
    :data:`DETECTED_CORE` of its face boxes, for subjects stored before cores); None when it
    found none in the order."""
    facts = ctx.photos
    found = {pid: f.subject for pid, f in facts.items()
             if f.subject is not None and f.subject.source == "faces" and f.subject.faces}
    if not found:
        return None
    a, b, c, d = DETECTED_CORE

    def cores(pid: str) -> list[tuple[str, tuple[float, ...]]]:
        fact, subject = facts[pid], found.get(pid)
        if subject is None:
            return []
        if subject.cores:
            return [(f"found{k}", core.to_pixels(fact.width, fact.height))
                    for k, core in enumerate(subject.cores)]
        out = []
        for k, box in enumerate(subject.faces):
            w, h = box.x1 - box.x0, box.y1 - box.y0
            out.append((f"found{k}", _px([box.x0 + a * w, box.y0 + b * h, box.x0 + c * w,
                                          box.y0 + d * h], fact.width, fact.height)))
        return out
    return cores


def faces_whole(ctx: Context) -> list[str] | None:
    """The labelled faces' eyes-to-mouth cores are never cut by the frame's edge."""
    cores = _labelled_cores(ctx)
    return _face_cuts(ctx, cores) if ctx.planned and cores else None


def detected_faces_whole(ctx: Context) -> list[str] | None:
    """The faces the detector found: their eyes-to-mouth cores never cut."""
    cores = _found_cores(ctx)
    return _face_cuts(ctx, cores) if ctx.planned and cores else None


# --- words over faces --------------------------------------------------------------------------


_WORDS_BOXES: dict[tuple[Any, ...], tuple[int, int, int, int] | None] = {}


def _words_on_frame(card: Any, aspect: Any, at: tuple[float, float, float]
                    ) -> tuple[int, int, int, int] | None:
    """The ink box of ``card``'s words set at ``at`` in ``aspect`` (frame pixels; it is the
    full-strength part of their scrim's band too), laid out once per card, size and place."""
    key = (card, aspect.width, aspect.height, at)
    if key not in _WORDS_BOXES:
        _WORDS_BOXES[key] = words_box(card, aspect.width, aspect.height, 0, at)
    return _WORDS_BOXES[key]


def _words_over_faces(ctx: Context, cores: Cores) -> list[str]:
    """Where a card's words over a photo lie over one of the ``cores``, at the start, middle
    or end of its photo's move, in either aspect."""
    out = []
    for index, places in sorted(ctx.words.items()):
        shot = ctx.timeline.shots[index]
        for aspect in ASPECTS:
            at = places.get(aspect.name)
            box = _words_on_frame(shot.card, aspect, at) if at is not None else None
            if box is None:
                continue
            for view in ctx.views[index].get(aspect.name, []):
                for label, core in cores(view.photo_id):
                    hit = [f for f in (0, shot.frames // 2, max(0, shot.frames - 1))
                           if _covers(box, view.to_screen(f, core), view.box)]
                    if hit:
                        out.append(f"#{index} {aspect.name} {shot.card.kind} over "
                                   f"{view.photo_id} {label} ({len(hit)}/3 of its move, "
                                   f"{view.motion.mode} {view.motion.move})")
    return out


def _covers(words: tuple[int, int, int, int], core: tuple[float, ...],
            frame: tuple[float, float, float, float]) -> bool:
    """True when the ``words`` box overlaps the part of ``core`` on the ``frame`` box (all
    frame pixels) by more than half a pixel each way."""
    x0, y0 = max(core[0], frame[0], words[0]), max(core[1], frame[1], words[1])
    x1, y1 = min(core[2], frame[2], words[2]), min(core[3], frame[3], words[3])
    return x1 - x0 > 0.5 and y1 - y0 > 0.5


def words_clear_of_faces(ctx: Context) -> list[str] | None:
    """A card's words over a photo (their ink, the full-strength part of their scrim's band)
    never lie over a labelled face's eyes-to-mouth core, in both aspects, at the start, middle
    and end of the photo's move."""
    cores = _labelled_cores(ctx)
    return _words_over_faces(ctx, cores) if ctx.planned and cores and ctx.words else None


def detected_words_clear_of_faces(ctx: Context) -> list[str] | None:
    """:func:`words_clear_of_faces` for the faces the detector found (what the render can keep
    the words off)."""
    cores = _found_cores(ctx)
    return _words_over_faces(ctx, cores) if ctx.planned and cores and ctx.words else None


# --- the customer's words ----------------------------------------------------------------------


def _flat(text: str) -> str:
    return " ".join(text.split())


_WORD = re.compile(r"\w+", re.UNICODE)


def _customer_fields(ctx: Context) -> dict[str, str]:
    words = ctx.order.words
    return {"memory": _flat(words["memory"]), "story_note": _flat(words["story_note"]),
            "relationship": _flat(words["relationship"]),
            "recipient": _flat(words["recipient_name"])}


def _card_lines(ctx: Context) -> list[tuple[int, str]]:
    return [(i, _flat(line)) for i, shot in enumerate(ctx.timeline.shots)
            if shot.card is not None for line in shot.card.lines if line.strip()]


def words_verbatim(ctx: Context) -> list[str] | None:
    """Every card line that carries the customer's words carries them as written (a line
    made of a field's words that is not a piece of that field is a rewrite)."""
    if not ctx.planned:
        return None
    fields = {k: v for k, v in _customer_fields(ctx).items() if v and k != "recipient"}
    out = []  # (the name stands in the product's greeting as written: "Happy Birthday, Ann")
    for index, line in _card_lines(ctx):
        if any(line in text for text in fields.values()):
            continue
        words = [w.lower() for w in _WORD.findall(line) if len(w) > 2]
        for name, text in fields.items():
            theirs = {w.lower() for w in _WORD.findall(text)}
            if len(words) >= 4 and sum(w in theirs for w in words) >= REWRITE_SHARE * len(words):
                out.append(f"#{index} {line[:60]!r} rewrites their {name}")
                break
    return out


def _sentences(text: str) -> list[str]:
    parts = [p.strip() for p in re.split(r"(?<=[.!?。！？])\s*|\n", text) if p.strip()]
    return parts or [text]


def words_shown(ctx: Context) -> list[str] | None:
    """A film of 45 s or more shows the memory and the story line, a shorter one at least
    one (each whole, or one of its sentences whole), for its reading time, at a size a phone
    reads (capitals at least :data:`media.design.reading.CAP_HEIGHT_MIN_PX` tall)."""
    words = ctx.order.words
    if not ctx.planned:
        return None
    wanted = {k: words[k] for k in ("memory", "story_note") if words[k].strip()}
    if not wanted:
        return None
    shown: dict[str, list[str]] = {}
    fps = ctx.timeline.fps
    for name, text in wanted.items():
        pieces = {_flat(text), *(_flat(s) for s in _sentences(text))}
        problems = []
        for index, shot in enumerate(ctx.timeline.shots):
            card = shot.card
            if card is None:
                continue
            lines = [_flat(line) for line in card.lines if line.strip()]
            hit = next((line for line in lines if line in pieces), None)
            if hit is None:
                continue
            seconds = (shot.cut_out - shot.cut_in) / fps
            need = message_hold_s(hit)
            small = _smallest_cap(card, hit)
            if seconds + 1e-6 < need:
                problems.append(f"#{index} for {seconds:.1f}s of {need:.1f}s")
            elif small is not None:
                problems.append(f"#{index} capitals {small}")
            else:
                problems = []
                shown[name] = []
                break
        if name not in shown:
            shown[name] = problems or ["never on screen"]
    ok = [name for name, problems in shown.items() if not problems]
    need_both = ctx.timeline.length_sec >= BOTH_WORDS_FROM_S
    if (need_both and len(ok) == len(wanted)) or (not need_both and ok):
        return []
    return [f"their {name} ({len(_flat(wanted[name]))} chars): {'; '.join(problems)}"
            for name, problems in shown.items() if problems]


_CAPS: dict[tuple[Any, ...], dict[str, float]] = {}


def _unquoted(text: str) -> str:
    return _flat(text).strip("\"“”„«»‘’'「」『』")


def _smallest_cap(card: Any, line: str) -> str | None:
    """``None`` when ``line`` of ``card`` reads on a phone in both aspects, else how small
    its capitals are there."""
    key = (card, line)
    if key not in _CAPS:
        caps = {}
        for aspect in ASPECTS:
            sizes = [b.size for b in text_layout(card, aspect.width, aspect.height)
                     if b.role != "rule" and _unquoted(b.text) and _unquoted(b.text) in line]
            caps[aspect.name] = cap_height_on_phone_px(min(sizes), aspect.width,
                                                       aspect.height) if sizes else -1.0
        _CAPS[key] = caps
    missing = [a for a, v in _CAPS[key].items() if v < 0]
    if missing:
        return f"not laid out in {', '.join(missing)}"
    small = {a: v for a, v in _CAPS[key].items() if v < CAP_HEIGHT_MIN_PX}
    return ", ".join(f"{v:.1f}px in {a}" for a, v in small.items()) if small else None


# --- repeats -----------------------------------------------------------------------------------


def _showings(ctx: Context, clips: bool = False) -> list[tuple[int, set[str]]]:
    """Each shot with a picture and the duplicate groups of the photos it shows (with
    ``clips``, a clip made from a photo of the order shows that photo's picture too)."""
    out = []
    for index, views in enumerate(ctx.views):
        photos = {v.photo_id for layer in views.values() for v in layer}
        shot = ctx.timeline.shots[index]
        picture = ctx.order.clip_pictures.get(shot.source_id or "") if clips else None
        if picture and shot.kind == "clip":
            photos |= {p for p, photo in ctx.photos.items() if photo.picture == picture}
        if photos:
            out.append((index, {ctx.groups[p] for p in photos}))
    return out


def _round_groups(ctx: Context) -> dict[str, str]:
    """Each usable photo's group for the first round's completeness: its duplicate group, and
    in a film of :data:`media.plan.pacing.FEW_PHOTOS` source pictures or fewer its source
    picture (there the film spreads its showings by picture: it could not show a photo and a
    crop of it both before the other pictures again without one picture twice in a row)."""
    sources = {ctx.photos[p].source for p in ctx.usable}
    if len(sources) > FEW_PHOTOS or not all(sources):
        return ctx.groups
    first: dict[str, str] = {}
    by_source = {p: first.setdefault(ctx.photos[p].source, ctx.groups[p]) for p in ctx.usable}
    return {p: by_source.get(p, group) for p, group in ctx.groups.items()}


def first_round(ctx: Context) -> list[str] | None:
    """No photo is shown a second time before every usable photo was shown once (copies of
    one picture are one photo; in a film of few pictures, every picture shown once will do:
    :func:`_round_groups`; a clip made from a photo shows it)."""
    if not ctx.planned or len(ctx.usable) < 2:
        return None
    round_groups = _round_groups(ctx)
    usable = {round_groups[p] for p in ctx.usable}
    seen: set[str] = set()
    seen_rounds: set[str] = set()
    for index, groups in _showings(ctx, clips=True):
        again = groups & seen
        if again and not usable <= seen_rounds:
            missing = sorted(usable - seen_rounds)
            return [f"#{index} shows {sorted(again)[0]} again before {len(missing)} unseen "
                    f"({', '.join(missing[:4])})"]
        seen |= groups
        seen_rounds |= {round_groups.get(g, g) for g in groups}
    return []


def no_back_to_back(ctx: Context) -> list[str] | None:
    """Never the same photo in two consecutive shots (cards over photos count)."""
    if not ctx.planned:
        return None
    if len({ctx.groups[p] for p in ctx.usable}) < 2:
        return None  # one picture: every shot shows it
    showings = _showings(ctx)
    out = []
    for (a, ga), (b, gb) in itertools.pairwise(showings):
        if b == a + 1 and ga & gb:
            out.append(f"#{a}->#{b} {sorted(ga & gb)[0]} "
                       f"({ctx.timeline.shots[a].kind}->{ctx.timeline.shots[b].kind})")
    return out


def sources_apart(ctx: Context) -> list[str] | None:
    """Never two photos cut from one source picture in consecutive shots (a photo and a
    close-up cropped from it, two crops of one picture; cards over photos count)."""
    if not ctx.planned:
        return None
    sources = {p: ctx.photos[p].source for p in ctx.usable}
    if len(set(sources.values())) < 2:
        return None  # one source picture: every shot shows it
    out = []
    for a, b in itertools.pairwise(range(len(ctx.views))):
        shown_a, shown_b = (_photos_shown(ctx, a), _photos_shown(ctx, b))
        twins = sorted((x, y) for x in shown_a for y in shown_b
                       if x != y and sources.get(x) and sources.get(x) == sources.get(y))
        if twins:
            out.append(f"#{a}->#{b} {twins[0][0]}~{twins[0][1]} ({sources[twins[0][0]]})")
    return out


def _photos_shown(ctx: Context, index: int) -> set[str]:
    """The photos shot ``index`` shows in any aspect."""
    return {v.photo_id for layer in ctx.views[index].values() for v in layer}


def subject_share(ctx: Context) -> list[str] | None:
    """With four or more usable photos the subject photo takes at most about a quarter of
    the photo time (a layout's cells share their shot)."""
    subject = ctx.timeline.subject_photo_id if ctx.planned else None
    if subject is None or len({ctx.groups[p] for p in ctx.usable}) < SUBJECT_SHARE_FROM:
        return None
    total = mine = 0.0
    for shot, views in zip(ctx.timeline.shots, ctx.views, strict=True):
        layer = views.get(ASPECTS[0].name, [])
        if not layer or shot.kind != "photo":
            continue
        frames = shot.cut_out - shot.cut_in
        total += frames
        mine += frames * sum(ctx.groups[v.photo_id] == ctx.groups[subject]
                             for v in layer) / len(layer)
    share = mine / total if total else 0.0
    return [] if share <= SUBJECT_SHARE_MAX else [f"subject {subject} on {share:.0%} of the "
                                                  "photo time"]


def few_photo_repeats(ctx: Context) -> list[str] | None:
    """With one to three photos a repeat is a new framing that holds a face whole when the
    photo has faces (never a zoom into skin or texture) and differs from its earlier ones."""
    if not ctx.planned or not 1 <= len(ctx.usable) <= 3:
        return None
    out = []
    for aspect in ASPECTS:
        earlier: dict[str, list[Any]] = {}
        for index, views in enumerate(ctx.views):
            for view in views.get(aspect.name, []):
                shot = ctx.timeline.shots[index]
                mid = view.rect(shot.frames // 2)
                cores = [f.core for f in ctx.photos[view.photo_id].faces
                         if not f.cut_by_photo]
                before = earlier.setdefault(view.photo_id, [])
                if before:
                    whole = [c for c in cores if _inside(c, mid)]
                    if cores and not whole:
                        out.append(f"#{index} {aspect.name} {view.photo_id}: repeat shows no "
                                   f"face whole ({view.motion.mode} {view.motion.move})")
                    elif any(_same_move(view.motion, m) for m in before):
                        out.append(f"#{index} {aspect.name} {view.photo_id}: repeat framed "
                                   f"as before ({view.motion.mode} {view.motion.move})")
                before.append(view.motion)
    return out


def _same_move(a: Any, b: Any) -> bool:
    """The same framing: a move between nearly the same rectangles, whatever it is called (a
    pan and a tilt between the same two crops show one picture)."""
    return _iou(a.start, b.start) > 0.9 and _iou(a.end, b.end) > 0.9


def _inside(box: tuple[float, ...], rect: Any) -> bool:
    return (box[0] >= rect.x - 0.5 and box[1] >= rect.y - 0.5 and box[2] <= rect.x + rect.w
            + 0.5 and box[3] <= rect.y + rect.h + 0.5)


def _iou(a: Any, b: Any) -> float:
    ix = max(0.0, min(a.x + a.w, b.x + b.w) - max(a.x, b.x))
    iy = max(0.0, min(a.y + a.h, b.y + b.h) - max(a.y, b.y))
    inter = ix * iy
    return inter / (a.w * a.h + b.w * b.h - inter)


# --- dissolves, 9:16, blank photos ---------------------------------------------------------------


FaceBoxes = Callable[[str], list[tuple[float, ...]]]
"""A photo id -> its faces' whole boxes (pixels of its working copy)."""


def _labelled_boxes(ctx: Context) -> FaceBoxes:
    return lambda pid: [face.box for face in ctx.photos[pid].faces]


def _detected_boxes(ctx: Context) -> FaceBoxes:
    def boxes(pid: str) -> list[tuple[float, ...]]:
        photo = ctx.photos[pid]
        subject = photo.subject
        if subject is None or subject.source != "faces":
            return []
        return [b.to_pixels(photo.width, photo.height) for b in subject.faces]
    return boxes


def _faces_on_screen(ctx: Context, index: int, aspect: str, frame: int,
                     boxes: FaceBoxes) -> list[tuple[float, ...]]:
    """The faces (whole ``boxes``) of shot ``index`` on the frame at its ``frame``."""
    out = []
    for view in ctx.views[index].get(aspect, []):
        for face_box in boxes(view.photo_id):
            x0, y0, x1, y1 = view.to_screen(frame, face_box)
            bx = view.box
            box = (max(x0, bx[0]), max(y0, bx[1]), min(x1, bx[2]), min(y1, bx[3]))
            if box[2] > box[0] and box[3] > box[1]:
                out.append(box)
    return out


def no_ghost_faces(ctx: Context) -> list[str] | None:
    """No dissolve lays a face over another face."""
    if not ctx.planned or not any(p.faces for p in ctx.photos.values()):
        return None
    return _ghosts(ctx, _labelled_boxes(ctx))


def detected_no_ghost_faces(ctx: Context) -> list[str] | None:
    """No dissolve lays a face the detector found over another one it found (the planner's
    part of :func:`no_ghost_faces`: it can keep apart only the faces it is told of)."""
    found = _detected_boxes(ctx)
    if not ctx.planned or not any(found(pid) for pid in ctx.photos if ctx.photos[pid].width):
        return None
    return _ghosts(ctx, found)


def _ghosts(ctx: Context, boxes: FaceBoxes) -> list[str]:
    """Where a dissolve lays one of the faces ``boxes`` gives over another."""
    out = []
    shots = ctx.timeline.shots
    for index in range(1, len(shots)):
        transition = shots[index].transition_in
        if not transition_kind(transition.kind).lays_over or transition.frames <= 0:
            continue
        start = transition.start(shots[index].cut_in)
        for aspect in (a.name for a in ASPECTS):
            for film_frame in (start, start + transition.frames // 2,
                               start + transition.frames - 1):
                old = _faces_on_screen(ctx, index - 1, aspect,
                                       film_frame - shots[index - 1].visible_in, boxes)
                new = _faces_on_screen(ctx, index, aspect, film_frame - shots[index].visible_in,
                                       boxes)
                if any(_overlap(a, b) >= OVERLAP_MIN for a in old for b in new):
                    out.append(f"#{index - 1}->#{index} {aspect} at "
                               f"{film_frame / ctx.timeline.fps:.1f}s")
                    break
    return out


def _overlap(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return ix * iy / smaller if smaller > 0 else 0.0


def full_bleed_portrait(ctx: Context) -> list[str] | None:
    """9:16 fills the frame (a crop) whenever the photo's subject fits a crop magnified at
    most 2x (its faces, else what the analysis keeps whole, else its focus); but for a card
    whose photo is set whole above its words on its soft ground (no crop keeps its faces
    clear of them: :func:`media.analysis.words.framings_for_words`), and for a repeat of a
    photo whose possible face no crop shows whole
    (:func:`media.analysis.safe_crops.uncroppable_possible`: a tilted close-up's profile)
    after a crop of it was shown alone: the whole photo is then the new framing."""
    if not ctx.planned:
        return None
    out = []
    facts = ctx.photos
    cropped: set[str] = set()  # photos shown alone in 9:16 as a crop so far
    for index, views in enumerate(ctx.views):
        layer = views.get(PORTRAIT.name, [])
        if len(layer) == 1 and layer[0].motion.mode == "crop":
            cropped.add(layer[0].photo_id)
        if len(layer) != 1 or layer[0].motion.mode == "crop" or _above_words(ctx, index,
                                                                             layer[0]):
            continue
        view = layer[0]
        fact = facts[view.photo_id]
        if view.photo_id in cropped and fact.subject is not None and uncroppable_possible(
                (fact.width, fact.height), keep_whole(fact.subject), PORTRAIT):
            continue
        crop_w, crop_h = largest_crop(fact.width, fact.height, PORTRAIT)
        if PORTRAIT.width / crop_w > FULL_BLEED_UPSCALE_MAX or fact.subject is None:
            continue
        subject = keep_whole(fact.subject)
        box = union(subject.faces) if subject.faces else subject.focus
        x0, y0, x1, y1 = box.to_pixels(fact.width, fact.height)
        if x1 - x0 <= crop_w and y1 - y0 <= crop_h:
            out.append(f"#{index} {view.photo_id} {view.motion.mode} "
                       f"({fact.width}x{fact.height}, subject fits a "
                       f"{PORTRAIT.width / crop_w:.2f}x crop)")
    return out


def _above_words(ctx: Context, index: int, view: View) -> bool:
    """True when shot ``index`` is a card whose photo (``view``, in 9:16) lies wholly above
    its words over the whole move."""
    at = ctx.words.get(index, {}).get(PORTRAIT.name)
    shot = ctx.timeline.shots[index]
    box = _words_on_frame(shot.card, PORTRAIT, at) if at is not None else None
    if box is None:
        return False
    fact = ctx.photos[view.photo_id]
    return all(view.to_screen(f, (0.0, 0.0, fact.width, fact.height))[3] <= box[1] + 0.5
               for f in (0, shot.frames // 2, max(0, shot.frames - 1)))


def blanks_left_out(ctx: Context) -> list[str] | None:
    """Blank, near-blank and degenerate photos are left out with a recorded reason."""
    bad = {pid: p for pid, p in ctx.photos.items() if p.unusable}
    if not bad:
        return None
    spec = ctx.order.spec
    left_out = {r.id for r in spec.left_out} if spec is not None else set(bad)
    return [f"{pid} ({p.kind}, {p.width}x{p.height}) kept" for pid, p in bad.items()
            if pid not in left_out]


def unusable_order_held(ctx: Context) -> list[str] | None:
    """An order left with no usable photo ends held (the gate's decision on prep's result,
    recorded when the fixture was made)."""
    if ctx.usable:
        return None
    if ctx.order.expected == HELD_NO_USABLE:
        return []
    if ctx.order.expected.startswith("held:"):
        return [f"{ctx.order.expected}, not for no usable photo"]
    return [f"not held: {len(ctx.order.spec.photos) if ctx.order.spec else 0} unusable "
            "photo(s) go on to the render"]


HELD_STILL_MOST_S = 0.75 * MAX_FROZEN_S
"""The longest a shot may hold its photos still: held longer, verify's frozen-picture check
(:data:`media.base.spec.MAX_FROZEN_S`) may refund the film, depending on what else moves."""


def never_frozen(ctx: Context) -> list[str] | None:
    """No shot holds its photos still (every view's rectangle the same at both ends) longer
    than :data:`HELD_STILL_MOST_S`, in either aspect."""
    if not ctx.planned:
        return None
    out = []
    for index, (shot, views) in enumerate(zip(ctx.timeline.shots, ctx.views, strict=True)):
        seconds = (shot.cut_out - shot.cut_in) / ctx.timeline.fps
        for aspect, layer in views.items():
            if layer and seconds > HELD_STILL_MOST_S and all(
                    view.motion.start == view.motion.end for view in layer):
                out.append(f"#{index} {shot.kind} {aspect} held still {seconds:.1f} s")
    return out


CHECKS: dict[str, Callable[[Context], list[str] | None]] = {
    "faces_whole": faces_whole,
    "detected_faces_whole": detected_faces_whole,
    "words_clear_of_faces": words_clear_of_faces,
    "detected_words_clear_of_faces": detected_words_clear_of_faces,
    "words_verbatim": words_verbatim,
    "words_shown": words_shown,
    "first_round": first_round,
    "no_back_to_back": no_back_to_back,
    "sources_apart": sources_apart,
    "subject_share": subject_share,
    "few_photo_repeats": few_photo_repeats,
    "no_ghost_faces": no_ghost_faces,
    "detected_no_ghost_faces": detected_no_ghost_faces,
    "full_bleed_portrait": full_bleed_portrait,
    "blanks_left_out": blanks_left_out,
    "unusable_order_held": unusable_order_held,
    "never_frozen": never_frozen,
}
"""Every invariant by name, in the report's order."""


INVARIANTS = ("plans", *CHECKS)
"""Every invariant's name: ``plans`` (the order is planned without an error), then
:data:`CHECKS`."""


def check_order(order: CorpusOrder, photos: dict[str, CorpusPhoto]
                ) -> dict[str, list[str] | None]:
    """Every invariant's failures on ``order`` (None: not applicable); an error while planning
    fails ``plans`` and leaves the others unchecked."""
    if order.expected.startswith("failed:"):  # the spec could not be made
        return {"plans": [order.expected.removeprefix("failed:")], **dict.fromkeys(CHECKS)}
    try:
        ctx = context_for(order, photos)
    except Exception as error:  # the render stage would fail the run: a finding, not a crash
        message = " ".join(str(error).split())[:300]
        return {"plans": [f"{type(error).__name__}: {message}"], **dict.fromkeys(CHECKS)}
    return {"plans": [] if ctx.planned else None,
            **{name: check(ctx) for name, check in CHECKS.items()}}
