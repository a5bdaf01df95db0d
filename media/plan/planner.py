"""The planner: a film spec in, its timeline out (pure; nothing here reads a file or a pixel).

:func:`plan` lays a film of ``length_sec`` seconds over exactly ``round(length_sec * fps)``
frames, in the order a viewer meets it: the title (a sequence of leads in a signature film,
:mod:`media.plan.title_sequence`), the cards' boundaries on the song's bars
(:mod:`media.plan.beat_snap`), the interludes (:mod:`media.plan.interludes`), the middle's
pictures, cuts and layouts (:mod:`media.plan.slots`), the chorus montages
(:mod:`media.plan.montage`), then every shot's transition, motion and move
(:mod:`media.plan.shots`).
"""

from __future__ import annotations

from dataclasses import replace

from media.plan.beat_snap import card_bounds
from media.plan.film import Film, film_of
from media.plan.interludes import InterludeSpan, place_interludes
from media.plan.montage import LightLeak, chorus_montage
from media.plan.pacing import card_dissolve_s
from media.plan.shot_order import closing_photo
from media.plan.shots import build_shots, even_frames, faces_apart
from media.plan.slots import plan_middle
from media.plan.spec import FilmSpec
from media.plan.timeline import Shot, Timeline
from media.plan.title_sequence import Title, over_photos, title_of, title_sequence

CLIP_SOUND_NOTE = "clip sound is mixed under the song by the render stage (media.song.soundtrack)"


def plan(spec: FilmSpec) -> Timeline:
    """The timeline of the film ``spec`` describes.

    Opening card (over the subject photo), photo and clip shots, closing card (over the subject
    photo again, or over a photo the middle had no room for or left to it so that no photo is
    shown twice, :func:`media.plan.slots.plan_middle`), each card as long as reading its
    words needs (:mod:`media.design.reading`). Cuts land on the song's beats (card boundaries
    prefer its bars, and inside a chorus only bars count) where the grid allows; every photo is
    shown once before any is shown again, never in two consecutive shots (see
    :func:`media.plan.shot_order.showing_order`; a clip made from a photo it replaced comes
    before the repeats, and an interlude before the first round ends stands over a photo left
    out for room); clips are spread through the film; photos
    hold up to the pacing's ``hold_s`` and then
    repeat (framed anew by the render, see :mod:`media.analysis.detail`) when there are too few,
    and when there are too many each still lasts at least the style's minimum (about 2 s) and
    the rest are listed in ``dropped_photo_ids``. The recipe's ``motion_shots`` photo shots
    per 30 s of film (the subject's first) get full Ken Burns moves, the others a push that
    still reads; a ``premium`` recipe gives some of them parallax instead (at most
    :data:`media.plan.shots.PARALLAX_MAX_SHARE` of the film), the subject moving on its own
    layer, cuts the choruses into montages and the title into a sequence. Each photo shot's
    move and each transition follow the photo and the song's sections (see
    :mod:`media.plan.moves`); without sections every transition is the look's. Near-duplicates
    are dropped or kept apart (see :func:`media.plan.shot_order.drop_twins`,
    :func:`media.plan.shot_order.separate`). The interludes carry the customer's words through
    a long film, between runs of pictures. No dissolve lays a face over another
    (:func:`media.plan.shots.faces_apart`). ValueError for a film under 3 s."""
    film = film_of(spec)
    title, bounds, spans = _cards(film, title_of(film))
    if title.leads and len(spans) < spec.words.required:  # the opener yields to their words
        title, bounds, spans = _cards(film, Title())
    middle, dropped = plan_middle(film, bounds, spans, title.leads)
    if spec.recipe.premium and middle.slots:  # the signature chorus: a montage on the beat
        middle = chorus_montage(middle, film.song, film.photo_by_id, film.subject_id,
                                film.look.montage.beats, film.fps, spec.apart)
    shots, leaks = build_shots(film, middle)
    title_photo = film.photos[0].id if film.photos and middle.slots else None
    by_id = film.photo_by_id
    closing = closing_photo([by_id[p] for p in dropped if p in by_id], title_photo)
    dropped = [p for p in dropped if p != closing]
    shots = over_photos(shots, title_photo, closing)
    if title.leads and middle.slots:
        shots = title_sequence(shots, film, replace(title, photos=middle.leads))
    shots = faces_apart(shots, film)
    return _timeline(film, shots, leaks, (*film.twins_dropped, *dropped))


def _cards(film: Film, title: Title) -> tuple[Title, tuple[int, int], list[InterludeSpan]]:
    """``title``, the frames where the opening ends and the closing starts (on the song's
    bars), and the interludes placed between them."""
    bounds = card_bounds(film.opening_s + title.lead_s, film.closing_s, film.fps, film.frames,
                         film.song.beats, film.song.bars)
    spans = place_interludes(film.spec.words.interludes, film.spec.length_sec, bounds,
                             film.song, film.fps, card_dissolve_s(film.pacing, film.spec.gentle),
                             film.spec.words.required)
    return title, bounds, spans


def _timeline(film: Film, shots: list[Shot], leaks: tuple[LightLeak, ...],
              dropped: tuple[str, ...]) -> Timeline:
    """The :class:`Timeline` of ``film``'s ``shots``: no fade in from black (the opening
    card's first frame is already its title, so a messenger's thumbnail of frame 0 is never
    black), the look's fade out, and the subject's other photos with where it is in them."""
    spec, subject = film.spec, film.subject_id
    shown_with = [p for p in film.photos if p.with_subject and p.id != subject]
    return Timeline(spec.fps, film.frames, float(spec.length_sec), spec.style, spec.gentle,
                    tuple(shots), 0, even_frames(film.pacing.fade_s * spec.fps),
                    film.song.beats, dropped, (CLIP_SOUND_NOTE,), subject,
                    spec.grade or film.look.grade, leaks, tuple(p.id for p in shown_with),
                    tuple((p.id, *p.subject_box) for p in shown_with if p.subject_box))
