"""Over-exposure cleared by outlines: a white token at the ceiling still shows its edge.

Where the plate is at the sensor's ceiling a white face does not differ from
it in colour, and :func:`vision.exposure.saturated_room` makes the reader
abstain when such a region could hold one.  The face's edge is another
matter: its side wall and its shadow darken the plate beside it, and the
outline filter (:mod:`vision.outline`) measures that as a thin circle darker
than both its sides.  One light lights every token of a frame, so when the
white faces found in or beside the clipped region show their outline
clearly, a white token hidden in that region would show one too.  This
module measures both: the faintest such found white's shadow-side contrast
(the reference) and the strongest shadow-side contrast of any circle centred
in the clipped region; the region is cleared only when the second is a small
fraction of the first.  With no found white at the ceiling, or one whose own
outline is faint, nothing is cleared.
"""
from __future__ import annotations

import cv2
import numpy as np

from .exposure import SATURATED_WELL_FRAC, at_ceiling
from .outline import OUTLINE_RADIUS_FACTORS, outline_response, shadow_side_contrast

#: Switch of the rule (:func:`ceiling_cleared_by_outlines`): False keeps every
#: over-exposure abstention, as before the rule.  Off since the twenty-ninth
#: round: its premise, that a white hidden in the clipped region shows its
#: outline as strongly as the found ones do, fails.  What the camera sees of a
#: token's edge on a clipped plate is mostly its side wall, whose width grows
#: with the token's distance from the point under the camera, and its shadow,
#: which a plate far over the ceiling erases.  Fresh five-token scenes 1909166
#: (white porcelain, +0.91 stop, 640x480) and 1983025 (+0.64 stop) read
#: outcome 3 red with a white token hidden in the clipped well: its circle 0.17
#: of the reference white's (1.15 against 6.9 L; the reference twice as far from
#: the camera's axis), under the clearing share of 0.2; a share of 0.1 closed
#: both but a hidden white at 0.056 was seen (1987302, stopped by the
#: washed-out-white rule only).  Cost of off, against the share 0.1 (fresh,
#: 640x480, four flat): 245 vs 248 of 400 right (1995000-1995399), 49 vs 69 of
#: 300 at +0.5 to +1.2 stops (1995500-1995799), 0 wrong either side.  The rule
#: could come back with a reference scaled by each place's distance from the
#: camera's axis (not built).
CEILING_OUTLINE_CLEAR = False
#: A found white face is a reference for the clipped region when at least this
#: share of the plate around it (the ring 1.05-1.6 token radii out, other
#: tokens left out) is at the ceiling: it lies in or beside that region, so
#: its edge is seen against the same clipped plate a hidden one would be.
CEILING_REF_MIN_CLIPPED_SHARE = 0.5
#: The ring around a reference white whose clipped share is measured, token radii.
CEILING_REF_RING_RADII = (1.05, 1.6)
#: Every reference white's outline must be at least this dark on its shadow
#: side (:func:`vision.outline.shadow_side_contrast`, L units): fainter, the
#: light leaves whites' edges too weak to promise that a hidden one shows.
CEILING_REF_MIN_CONTRAST_L = 4.0
#: At least this many found whites must be references.
CEILING_REF_MIN_WHITES = 1
#: The region is cleared when no circle centred in it is darker on its shadow
#: side than this share of the faintest reference's (whites of one frame at
#: the ceiling measured down to about 0.25 of the strongest of their frame).
CEILING_CLEAR_MAX_SHARE = 0.2
#: Found tokens are left out of the lightness to this many token radii (their
#: own wall and shadow), as the outline search does; so is the plate beyond
#: ``SATURATED_WELL_FRAC`` of its radius (the well's wall, whose shading rings
#: draw dark arcs as strong as a white's edge: fresh scene 1444100, 3.5 L
#: beside the clipped region on a pale-blue plate).
CEILING_HIDE_RADII = 1.3
#: Circles are searched centred no nearer than this many token radii to a
#: found token (a hidden token is at least touching distance away; nearer,
#: the found token's own shadow draws the circle).
CEILING_SEARCH_MIN_DIST_RADII = 1.8
#: ... and within this many token radii of the clipped region (a token half
#: at the ceiling hides there too).
CEILING_SEARCH_REACH_RADII = 0.5
#: Of the outline filter's local maxima in the searched area, this many of
#: the strongest are measured on their shadow side (a one-sided outline has
#: half its contrast on the whole circle).
CEILING_SEARCH_PEAKS = 40


def clipped_mask(bgr: np.ndarray) -> np.ndarray:
    """Pixels at the sensor's ceiling, as :func:`vision.exposure.saturated_room` counts them.

    Parameters
    ----------
    bgr : ndarray, uint8, (S, S, 3)
        The canonical view's colour image, BGR.

    Returns
    -------
    ndarray, bool, (S, S)
        True where ``SATURATED_MIN_CHANNELS`` channels of the
        ``SATURATED_MEDIAN_PX`` median are at least ``SATURATED_MIN_LEVEL``
        (:func:`vision.exposure.at_ceiling`).
    """
    if not (isinstance(bgr, np.ndarray) and bgr.dtype == np.uint8 and bgr.ndim == 3 and bgr.shape[2] == 3):
        raise ValueError(f"bgr: expected uint8 (S, S, 3), got {getattr(bgr, 'dtype', type(bgr))} "
                         f"{getattr(bgr, 'shape', '')}")
    return at_ceiling(bgr)


def _disc(shape: tuple[int, int], centres: list[tuple[float, float]], radius_px: float) -> np.ndarray:
    """Bool mask of filled discs of ``radius_px`` around ``centres``."""
    mask = np.zeros(shape, np.uint8)
    for x, y in centres:
        cv2.circle(mask, (int(round(x)), int(round(y))), int(round(radius_px)), 1, thickness=cv2.FILLED)
    return mask.astype(bool)


def ceiling_outline_evidence(lightness: np.ndarray, bgr: np.ndarray, radius_px: np.ndarray,
                             plate_radius_px: float, found: list[tuple[float, float]],
                             whites: list[tuple[float, float]], token_r: float,
                             clipped: np.ndarray | None = None) -> tuple[float, float, int]:
    """The outlines of found whites at the ceiling, and the strongest in the clipped region.

    Parameters
    ----------
    lightness : ndarray, float32, (S, S)
        L* of the canonical view minus the plate model, L units.
    bgr : ndarray, uint8, (S, S, 3)
        The canonical view's colour image, BGR.
    radius_px : ndarray, float, (S, S)
        Each pixel's distance from the plate centre, canonical pixels.
    plate_radius_px : float
        Plate radius, canonical pixels (> 0).
    found : list of (x, y)
        Centres of every token found, canonical pixels.
    whites : list of (x, y)
        Centres of the found faces read white (a subset of ``found``).
    token_r : float
        Token radius, canonical pixels (> 2).
    clipped : ndarray, bool, (S, S), or None
        The pixels at the ceiling, when the caller has them: only those in
        the well (within ``SATURATED_WELL_FRAC`` of the plate radius) are
        read, so :func:`clipped_mask` of ``bgr`` and
        :func:`vision.exposure.well_at_ceiling` give the same result.  None:
        :func:`clipped_mask` of ``bgr``.

    Returns
    -------
    reference : float
        The faintest shadow-side contrast (L units) of the found whites whose
        surround is ``CEILING_REF_MIN_CLIPPED_SHARE`` clipped (inf when none).
    strongest : float
        The strongest shadow-side contrast (L units) of a circle centred in
        or beside the clipped part of the well, away from found tokens (0
        when nothing is searched).
    n_references : int
        How many found whites are references.
    """
    if not plate_radius_px > 0:
        raise ValueError(f"plate_radius_px: expected > 0, got {plate_radius_px}")
    if not token_r > 2:
        raise ValueError(f"token_r: expected > 2, got {token_r}")
    if np.shape(lightness) != bgr.shape[:2] or np.shape(radius_px) != bgr.shape[:2]:
        raise ValueError(f"lightness, radius_px: expected shape {bgr.shape[:2]}, got {np.shape(lightness)}, "
                         f"{np.shape(radius_px)}")
    shape = bgr.shape[:2]
    if clipped is None:
        clipped = clipped_mask(bgr)
    elif np.shape(clipped) != shape:
        raise ValueError(f"clipped: expected shape {shape}, got {np.shape(clipped)}")
    # clipped is read only in the well: every ring below lies in it (hidden covers ~well)
    well = radius_px < SATURATED_WELL_FRAC * plate_radius_px
    references = []
    for i, (x, y) in enumerate(whites):
        others = [p for p in found if (p[0] - x) ** 2 + (p[1] - y) ** 2 > 1e-6]
        hidden = _disc(shape, others, CEILING_HIDE_RADII * token_r) | ~well
        ring = (_disc(shape, [(x, y)], CEILING_REF_RING_RADII[1] * token_r)
                & ~_disc(shape, [(x, y)], CEILING_REF_RING_RADII[0] * token_r) & ~hidden)
        if not ring.any() or clipped[ring].mean() < CEILING_REF_MIN_CLIPPED_SHARE:
            continue
        own = np.where(hidden, np.float32(0), lightness).astype(np.float32)
        references.append(max(shadow_side_contrast(own, int(round(x)), int(round(y)), f * token_r, hidden)
                              for f in OUTLINE_RADIUS_FACTORS))
    reference = min(references, default=float("inf"))
    # the searched centres: the well's clipped part and a little beside it,
    # away from every found token
    near = cv2.distanceTransform((~(clipped & well)).view(np.uint8), cv2.DIST_L2, cv2.DIST_MASK_PRECISE)
    centres = well & (near <= CEILING_SEARCH_REACH_RADII * token_r) \
        & ~_disc(shape, found, CEILING_SEARCH_MIN_DIST_RADII * token_r)
    if not centres.any():
        return reference, 0.0, len(references)
    hidden = _disc(shape, found, CEILING_HIDE_RADII * token_r) | ~well
    blanked = np.where(hidden, np.float32(0), lightness).astype(np.float32)
    peaks = []
    kernel = np.ones((3, 3), np.uint8)
    for f in OUTLINE_RADIUS_FACTORS:
        response = outline_response(blanked, f * token_r)
        local = (response >= cv2.dilate(response, kernel)) & centres
        ys, xs = np.nonzero(local)
        peaks += [(float(response[y, x]), int(x), int(y), f) for y, x in zip(ys, xs)]
    peaks.sort(reverse=True)
    strongest = max((shadow_side_contrast(blanked, x, y, f * token_r, hidden)
                     for _, x, y, f in peaks[:CEILING_SEARCH_PEAKS]), default=0.0)
    return reference, float(strongest), len(references)


def ceiling_cleared_by_outlines(lightness: np.ndarray, bgr: np.ndarray, radius_px: np.ndarray,
                                plate_radius_px: float, found: list[tuple[float, float]],
                                whites: list[tuple[float, float]], token_r: float,
                                clipped: np.ndarray | None = None) -> bool:
    """Whether the found whites' outlines show that no white token hides at the ceiling.

    True only when ``CEILING_OUTLINE_CLEAR`` is set, at least
    ``CEILING_REF_MIN_WHITES`` found whites lie at the ceiling, the faintest
    of them is ``CEILING_REF_MIN_CONTRAST_L`` dark on its shadow side, and no
    circle centred in the clipped region reaches ``CEILING_CLEAR_MAX_SHARE``
    of that (:func:`ceiling_outline_evidence`, same parameters).

    Returns
    -------
    bool
    """
    if not CEILING_OUTLINE_CLEAR or len(whites) < CEILING_REF_MIN_WHITES:
        return False
    reference, strongest, n_refs = ceiling_outline_evidence(lightness, bgr, radius_px, plate_radius_px, found,
                                                            whites, token_r, clipped)
    return (n_refs >= CEILING_REF_MIN_WHITES and reference >= CEILING_REF_MIN_CONTRAST_L
            and strongest < CEILING_CLEAR_MAX_SHARE * reference)
