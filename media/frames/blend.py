"""The film frame from the shots on screen: their opacities through the transitions and the
film's fades (:func:`layer_weights`), and their weighted sum (:func:`mix`: linear blends,
``cv2.addWeighted``, computed in float and rounded; what the weights leave is black); through a
swipe, where each shot sits (:func:`layer_shifts`) and the frame they make side by side
(:func:`side_by_side`).
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from media.base import yuv
from media.plan.timeline import Timeline, Transition
from media.plan.transitions import Weights, transition_kind


def _weights(transition: Transition, cut: int, frame: int) -> Weights:
    """The incoming and the outgoing shot's opacities (0..1) at ``frame`` through
    ``transition`` around the cut frame ``cut`` (:mod:`media.plan.transitions`); with no frames,
    a cut."""
    if transition.frames <= 0:
        return (1.0, 0.0) if frame >= cut else (0.0, 1.0)
    u = (frame - transition.start(cut) + 0.5) / transition.frames
    return transition_kind(transition.kind).weights(u)


def incoming_weight(transition: Transition, cut: int, frame: int) -> float:
    """Opacity (0..1) of the shot coming in through ``transition`` at the cut frame ``cut``."""
    return _weights(transition, cut, frame)[0]


def outgoing_weight(transition: Transition, cut: int, frame: int) -> float:
    """Opacity (0..1) of the shot going out through ``transition`` at the cut frame ``cut``."""
    return _weights(transition, cut, frame)[1]


def layer_weights(timeline: Timeline, frame: int) -> list[tuple[int, float]]:
    """The shots on screen at ``frame`` with their opacities (shot index, 0..1); whatever the
    opacities leave uncovered is black (fades)."""
    shots = timeline.shots
    film = _film_fade(timeline, frame)
    layers = []
    for i, shot in enumerate(shots):
        if not shot.visible_in <= frame < shot.visible_out:
            continue
        weight = film
        if i > 0:
            weight *= incoming_weight(shot.transition_in, shot.cut_in, frame)
        if i + 1 < len(shots):
            nxt = shots[i + 1]
            weight *= outgoing_weight(nxt.transition_in, nxt.cut_in, frame)
        if weight > 1e-4:
            layers.append((i, weight))
    return layers


def layer_shifts(timeline: Timeline, frame: int, on_screen: Sequence[int]) -> dict[int, float]:
    """Where each of the shots ``on_screen`` at ``frame`` (indices) sits along the frame's long
    side, as a share of it (0: in place; 0.3: 30 % of the frame further along, -0.3: back),
    through a transition that moves the shots (a swipe, :mod:`media.plan.transitions`): the
    incoming shot comes from beyond the far edge, the outgoing one leaves by the near one.
    Shots that do not move are left out (an empty dict most frames)."""
    shifts: dict[int, float] = {}
    shots = timeline.shots
    for i in on_screen:
        if i == 0:
            continue
        shot, transition = shots[i], shots[i].transition_in
        travel = transition_kind(transition.kind).travel
        start = transition.start(shot.cut_in)
        if travel is None or not start <= frame < start + transition.frames:
            continue
        gone = travel((frame - start + 0.5) / transition.frames)
        shifts[i - 1], shifts[i] = shifts.get(i - 1, 0.0) - gone, 1.0 - gone
    return shifts


def side_by_side(layers: Sequence[tuple[np.ndarray, float, float]], out_w: int,
                 out_h: int) -> np.ndarray:
    """I420 frames ``(frame, weight, shift)`` laid side by side along the frame's long side
    (across a landscape frame, down a portrait one), each ``shift`` of it along (see
    :func:`layer_shifts`, rounded to even pixels for the chroma), at ``weight`` (0..1: the
    film's fades; what is left is black). Always new memory."""
    out = yuv.black(out_w, out_h)
    across = out_w >= out_h
    length = out_w if across else out_h
    for image, weight, shift in layers:
        offset = 2 * round(shift * length / 2)
        for src, dst in zip(yuv.planes(image), yuv.planes(out), strict=True):
            scale = src.shape[1] / out_w if across else src.shape[0] / out_h
            step, size = round(offset * scale), dst.shape[1] if across else dst.shape[0]
            lo, hi = max(0, step), min(size, size + step)
            if hi <= lo:
                continue
            if across:
                target, source = dst[:, lo:hi], src[:, lo - step:hi - step]
            else:
                target, source = dst[lo:hi], src[lo - step:hi - step]
            if weight >= 0.9999:
                target[:] = source
            else:
                cv2.addWeighted(source, weight, target, 1.0 - weight, 0.0, target)
    return out


def _film_fade(timeline: Timeline, frame: int) -> float:
    """Fade in from black at the start and out to black at the end of the film."""
    weight = 1.0
    if timeline.fade_in_frames > 0:
        weight = min(weight, (frame + 0.5) / timeline.fade_in_frames)
    if timeline.fade_out_frames > 0:
        weight = min(weight, (timeline.total_frames - frame - 0.5) / timeline.fade_out_frames)
    return min(max(weight, 0.0), 1.0)


def mix(layers: Sequence[tuple[np.ndarray, float]], out_w: int, out_h: int) -> np.ndarray:
    """Weighted sum of I420 frames (weights 0..1, summing to <= 1; the rest is black: Y 16,
    U and V 128, see :func:`media.base.yuv.black`). May return an input frame itself (one layer at
    full weight); never writes to the inputs."""
    layers = [(img, w) for img, w in layers if w > 1e-4]
    if not layers:
        return yuv.black(out_w, out_h)
    if len(layers) == 1 and layers[0][1] >= 0.9999:
        return layers[0][0]
    rest = max(0.0, 1.0 - sum(w for _, w in layers))
    out = np.empty(yuv.frame_shape(out_w, out_h), np.uint8)
    for rows, black in ((yuv.luma_rows, yuv.BLACK_Y), (yuv.chroma_rows, yuv.NEUTRAL_C)):
        dst, gamma = rows(out), black * rest  # black's share, as a constant
        if len(layers) == 1:
            (img, w), = layers
            cv2.convertScaleAbs(rows(img), dst, alpha=w, beta=gamma)
        elif len(layers) == 2:
            (a, wa), (b, wb) = layers
            cv2.addWeighted(rows(a), wa, rows(b), wb, gamma, dst)
        else:
            acc = np.full(dst.shape, gamma + 0.5, np.float32)
            for img, w in layers:
                acc += rows(img).astype(np.float32) * w
            dst[:] = np.clip(acc, 0, 255).astype(np.uint8)
    return out
