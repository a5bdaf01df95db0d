"""The film's shots from its planned middle: transitions, camera motions and moves, the frames
each shot is seen over, where each clip shot starts, and the chorus's warm lights (pure).

Transitions follow the song's sections (:func:`media.plan.moves.transition_kinds`), or the
look's one transition without sections, each fitted to the shots' lengths. The tier's full
camera moves go to the motion provider's clips first (:mod:`media.plan.motion_clips`), then
the parallax shots (premium), then the subject's and the faces' shots, then the others evenly
(:func:`_motions`); every photo shot's move follows its photo and its section
(:func:`media.plan.moves.choose_moves`). Frames are film frame indices.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from itertools import pairwise

from media.analysis.clip_window import best_window
from media.cards.spec import CardSpec
from media.design.values import parse_hex
from media.plan.film import Film
from media.plan.inputs import PARALLAX_MATTE_MIN, ClipSource, PhotoSource
from media.plan.layouts import Layout
from media.plan.montage import LightLeak, Middle, light_leak
from media.plan.motion_clips import motion_clip_slots
from media.plan.moves import PhotoLook, choose_moves, section_at, transition_kinds
from media.plan.shot_order import Slot, even_pick, shows_subject
from media.plan.timeline import (
    FULL_MOTIONS,
    KEN_BURNS,
    PARALLAX,
    PROVIDER,
    PUSH,
    ROLL,
    STILL,
    Shot,
    Transition,
)
from media.plan.transitions import CROSSFADE, CUT, DIP, SWIPE, transition_kind

PARALLAX_MIN_S = 2.0  # a parallax shot lasts at least this long: its layers' slide must read
# A parallax frame costs about 2.5x a Ken Burns frame to compose: parallax shots take at most
# this share of the film (render time within about 20%); the other motion shots keep Ken Burns.
PARALLAX_MAX_SHARE = 0.3
DIP_MAX_S = 0.8  # a dip between two faces is quicker than the dissolve it replaces
# A premium film swipes between two faces: quick (a swipe slower than this drags), long enough
# to read as a move (below it, a cut), and rare enough to stay a flourish.
SWIPE_MAX_S, SWIPE_MIN_S, SWIPE_GAP_S = 0.5, 0.3, 6.0


def even_frames(frames: float) -> int:
    """Frames rounded to an even count (transitions straddle the cut symmetrically)."""
    return 2 * round(frames / 2)


def build_shots(film: Film, middle: Middle) -> tuple[list[Shot], tuple[LightLeak, ...]]:
    """The shots of ``film``: its opening card, the ``middle``'s slots (the interludes' cards
    over their photos), its closing card, with their transitions, motions, moves, visible
    ranges and layouts; and the warm lights over the montages' downbeats, where the shots
    cut in dissolve under the light (:mod:`media.plan.montage`)."""
    words, fps = film.spec.words, film.fps
    slots, cuts = middle.slots, middle.cuts
    montage = film.look.montage
    lit = middle.downbeats if montage.light_s > 0 and montage.light_strength > 0 else ()
    kinds: list[tuple[str, str | None, CardSpec | None]] = [("card", None, words.opening)]
    kinds += [(s.kind, s.source_id if s.kind == "card" else s.source_id or None,
               middle.cards.get(i)) for i, s in enumerate(slots)]  # a card's "": no photo
    kinds.append(("card", None, words.closing))
    transitions = _transitions(film, [k[0] for k in kinds], cuts)
    for i in range(1, len(kinds)):
        if cuts[i] in lit:
            transitions[i] = _transition(CROSSFADE, montage.light_s, fps,
                                         min(cuts[i] - cuts[i - 1], cuts[i + 1] - cuts[i]))
    paired = {k for k, layout in enumerate(middle.layouts) if layout.kind}
    visible_s = [(_visible_out(transitions[k + 2], cuts[k + 2])
                  - _visible_in(transitions[k + 1], cuts[k + 1])) / fps
                 for k in range(len(slots))]
    provider = motion_clip_slots(slots, visible_s, paired, film.spec.motion_clips)
    motions = [(STILL, 0),
               *_motions(film, slots, [(cuts[k + 2] - cuts[k + 1]) / fps
                                       for k in range(len(slots))], paired, provider),
               (STILL, 0)]
    sections = [section_at(film.song.sections, (cuts[k + 1] + cuts[k + 2]) // 2)
                for k in range(len(slots))]
    shown = [Layout(), *(middle.layouts or [Layout()] * len(slots)), Layout()]
    moves = ["", *choose_moves(_looks(slots, film.photo_by_id), sections, film.spec.gentle,
                               [m in (*FULL_MOTIONS, PROVIDER) for m, _ in motions[1:-1]]), ""]
    shots = []
    for i, (kind, source, card) in enumerate(kinds):
        vis_in = _visible_in(transitions[i], cuts[i])
        vis_out = _visible_out(transitions[i + 1], cuts[i + 1]) if i + 1 < len(kinds) else cuts[-1]
        shots.append(Shot(kind, source, cuts[i], cuts[i + 1], vis_in, vis_out, transitions[i],
                          motions[i][0], motions[i][1], 0.0, card, moves[i],
                          shown[i].kind, shown[i].partner_id, shown[i].second_id))
    shots = _place_clip_segments(shots, film.spec.clips, fps)
    leaks = tuple(light_leak(frame, _lit_frames(shots, frame, montage.light_s, fps),
                             parse_hex(montage.light_colour), montage.light_strength, k)
                  for k, frame in enumerate(lit))
    return shots, leaks


def faces_apart(shots: list[Shot], film: Film) -> list[Shot]:
    """``shots`` of ``film`` (their cards over their photos) with every dissolve between two
    shots that both show a face (or the subject, :func:`media.plan.shot_order.shows_subject`)
    replaced, since a dissolve would lay one face over the other (a ghost): in a gentle film by
    a :data:`media.plan.transitions.DIP` of at most :data:`DIP_MAX_S`; in a premium film by a
    :data:`media.plan.transitions.SWIPE` of at most :data:`SWIPE_MAX_S`, at most one every
    :data:`SWIPE_GAP_S`; else (and between those swipes) by a cut."""
    photos, subject_id = film.photo_by_id, film.subject_id
    out = list(shots)
    last_swipe = -SWIPE_GAP_S * film.fps
    for i in range(1, len(out)):
        transition = out[i].transition_in
        if not (transition_kind(transition.kind).lays_over and transition.frames > 0
                and _shows_face(out[i - 1], photos, subject_id)
                and _shows_face(out[i], photos, subject_id)):
            continue
        apart = _apart(transition, film, out[i].cut_in - last_swipe)
        if apart.kind == SWIPE:
            last_swipe = out[i].cut_in
        cut = out[i].cut_in
        out[i - 1] = replace(out[i - 1], visible_out=_visible_out(apart, cut))
        out[i] = replace(out[i], transition_in=apart, visible_in=_visible_in(apart, cut))
    return out


def _apart(dissolve: Transition, film: Film, since_swipe: int) -> Transition:
    """What replaces ``dissolve`` between two faces in ``film`` (see :func:`faces_apart`),
    ``since_swipe`` frames after its last swipe."""
    if film.spec.gentle:
        frames = even_frames(min(dissolve.frames, DIP_MAX_S * film.fps))
        return Transition(DIP, frames) if frames >= 2 else Transition(CUT, 0)
    frames = 2 * int(min(dissolve.frames, SWIPE_MAX_S * film.fps) // 2)
    if film.spec.recipe.premium and frames >= SWIPE_MIN_S * film.fps \
            and since_swipe >= SWIPE_GAP_S * film.fps:
        return Transition(SWIPE, frames)
    return Transition(CUT, 0)


def _shows_face(shot: Shot, photos: Mapping[str, PhotoSource], subject_id: str | None) -> bool:
    """True when a photo ``shot`` shows (its own, a card's: the subject's when it names none,
    as the render reads it, a layout's partners) has a face (one analysis measured, or one
    its crops must hold, or a possible one) or the subject in it; a clip counts as showing one
    (nothing measures its faces, and the customer's clips are mostly of people)."""
    if shot.kind == "clip":
        return True
    own = subject_id if shot.kind == "card" and shot.source_id is None else shot.source_id
    ids = (own, shot.partner_id, shot.second_partner_id)
    return any(p in photos and (shows_subject(photos[p], subject_id) or photos[p].hold_w > 0
                                or photos[p].possible_face) for p in ids if p)


def _transitions(film: Film, kinds: list[str], cuts: list[int]) -> list[Transition]:
    """The transition into every shot (the first: none): from the song's sections (see
    :func:`media.plan.moves.transition_kinds`), else the look's, each fitted to the shots'
    lengths; a pacing that cuts hard (social) cuts hard everywhere."""
    pacing, sections = film.pacing, film.song.sections
    lengths = [b - a for a, b in pairwise(cuts)]
    if sections and not pacing.cuts_hard:
        planned = transition_kinds(cuts[:-1], kinds, sections, film.spec.gentle,
                                   pacing.transitions)
    else:
        planned = [(pacing.transition, pacing.transition_s)] * (len(kinds) - 1)
    out = [Transition(CUT, 0)]
    for i, (kind, seconds) in enumerate(planned, start=1):
        out.append(_transition(kind, seconds, film.fps, min(lengths[i - 1], lengths[i])))
    return out


def _transition(kind: str, seconds: float, fps: int, room: int) -> Transition:
    """A transition of ``kind`` (registered, :mod:`media.plan.transitions`) lasting about
    ``seconds``, at most ``room`` frames (even)."""
    transition_kind(kind)  # a name no transition is registered under fails the plan here
    if kind == CUT or seconds <= 0:
        return Transition(CUT, 0)
    frames = min(even_frames(seconds * fps), 2 * (room // 4))
    return Transition(kind, frames) if frames >= 2 else Transition(CUT, 0)


def _motions(film: Film, slots: list[Slot], lengths_s: list[float], paired: set[int],
             provider: set[int]) -> list[tuple[str, int]]:
    """(motion, choice) per slot (``lengths_s`` seconds each): the tier's full moves (its
    ``motion_shots`` per :data:`media.plan.spec.RECIPE_FILM_S` of film) go to the slots that
    show the motion provider's clips (``provider``, see
    :func:`media.plan.motion_clips.motion_clip_slots`), then the parallax shots (premium: up
    to :data:`PARALLAX_MAX_SHARE` of the film on the best mattes, see :func:`_parallax_slots`;
    ``paired``: the slots that share the frame with a second photo), then the subject's and
    faces' shots, then the others spread evenly (a low-res photo only pushes). In a premium
    film the subject's full-move shots that got no parallax get the roll push within what the
    parallax left; the other photo shots push (still a move that reads, see
    :data:`media.analysis.framing.PUSH_ZOOM`); repeats of a photo get a different move."""
    photos, spec = film.photo_by_id, film.spec
    order = {p.id: i for i, p in enumerate(film.photos)}
    motion_shots = spec.recipe.full_moves(spec.length_sec)
    parallax_s = PARALLAX_MAX_SHARE * spec.length_sec if spec.recipe.premium else 0.0
    eligible = [i for i, s in enumerate(slots)
                if s.kind == "photo" and not photos[s.source_id].low_res and i not in provider]
    parallax = _parallax_slots(slots, eligible, photos, parallax_s, lengths_s, paired)
    heroes = [i for i in eligible if i not in parallax
              and shows_subject(photos[slots[i].source_id], film.subject_id)]
    others = [i for i in eligible if i not in parallax and i not in heroes]
    room = max(0, motion_shots - len(provider) - len(parallax))
    rest = max(0, room - len(heroes))
    chosen = parallax | set(heroes[:room]) | {others[j] for j in
                                              even_pick(min(rest, len(others)), len(others))}
    left_s = parallax_s - sum(lengths_s[i] for i in parallax)
    roll = _within([i for i in heroes if i in chosen], left_s, lengths_s) if parallax_s else set()
    result = []
    for i, s in enumerate(slots):
        if s.kind != "photo":
            result.append((STILL, 0))
            continue
        choice = (order[s.source_id] + 2 * s.occurrence + s.occurrence // 2) % 4
        motion = (PROVIDER if i in provider else PARALLAX if i in parallax
                  else ROLL if i in roll else KEN_BURNS if i in chosen else PUSH)
        result.append((motion, choice))
    return result


def _parallax_slots(slots: list[Slot], eligible: list[int], photos: dict[str, PhotoSource],
                    budget_s: float, lengths_s: list[float], paired: set[int]) -> set[int]:
    """The photo slots that get parallax: only photos whose subject separates cleanly (a
    matte scoring at least :data:`PARALLAX_MATTE_MIN`), in shots at least
    :data:`PARALLAX_MIN_S` long; a photo's first showing before its repeats, a shot showing it
    alone in both films before one that shares a frame with a second photo in one (``paired``,
    where parallax shows in the other film only), then the best matte first and film order;
    while their seconds on screen (``lengths_s``) fit in ``budget_s``."""
    ranked = sorted((i for i in eligible
                     if photos[slots[i].source_id].matte >= PARALLAX_MATTE_MIN
                     and lengths_s[i] >= PARALLAX_MIN_S),
                    key=lambda i: (slots[i].occurrence, i in paired,
                                   -photos[slots[i].source_id].matte, i))
    return _within(ranked, budget_s, lengths_s)


def _within(ranked: list[int], budget_s: float, lengths_s: list[float]) -> set[int]:
    """The slots of ``ranked`` taken in order while their seconds fit in ``budget_s``."""
    picked, used = set(), 0.0
    for i in ranked:
        if used + lengths_s[i] <= budget_s:
            picked.add(i)
            used += lengths_s[i]
    return picked


def _looks(slots: list[Slot], photos: dict[str, PhotoSource]) -> list[PhotoLook | None]:
    """What the move chooser reads of each slot's photo (None for clips)."""
    looks: list[PhotoLook | None] = []
    for slot in slots:
        p = photos.get(slot.source_id) if slot.kind == "photo" else None
        looks.append(PhotoLook(p.width, p.height, p.focus_x, p.focus_y, p.close, p.low_res)
                     if p is not None else None)
    return looks


def _visible_in(transition: Transition, cut: int) -> int:
    return transition.start(cut) if transition_kind(transition.kind).overlaps else cut


def _visible_out(next_transition: Transition, next_cut: int) -> int:
    if transition_kind(next_transition.kind).overlaps:
        return next_transition.start(next_cut) + next_transition.frames
    return next_cut


def _place_clip_segments(shots: list[Shot], clips: Sequence[ClipSource],
                         fps: int) -> list[Shot]:
    """Choose each clip shot's in-point: the best-scoring stretch of the clip (see
    :func:`media.analysis.clip_window.best_window`; the middle without scores), later uses of a clip
    avoiding the stretches already shown."""
    by_id = {c.id: c for c in clips}
    used: dict[str, list[tuple[float, float]]] = {}
    out = []
    for shot in shots:
        if shot.kind != "clip":
            out.append(shot)
            continue
        clip = by_id[shot.source_id or ""]
        seg = shot.frames / fps
        shown = used.setdefault(clip.id, [])
        start = best_window(clip.scores, clip.score_step_s, clip.duration_s, seg, shown)
        shown.append((start, start + seg))
        out.append(replace(shot, clip_start_s=round(start, 3)))
    return out


def _lit_frames(shots: Sequence[Shot], frame: int, light_s: float, fps: int) -> int:
    """How long the light over the montage's downbeat ``frame`` lasts: the dissolve under it
    where a shot cuts in there, else the light's own ``light_s`` (a flare over the shot)."""
    dissolve = next((s.transition_in.frames for s in shots if s.cut_in == frame), 0)
    return dissolve or even_frames(light_s * fps)
