"""Stage 2, the third detector: pale faces found by their dark outline alone.

Where neither the blobs nor the disc filter of :mod:`vision.tokens` saw a
token, a white face on a white plate may show only its edge: a thin circle
darker than both its sides on L* (measured by :mod:`vision.outline`).
:func:`_outline_faces` looks for such circles near the token radius, away
from every blob and every candidate already kept, and judges each: a face
when it passes the outline rule (at one of the radii searched, or with the
sectors a kept token hides left out), or when it is dark in most sectors and
the face inside it differs from the plate all round; a suspect when it is an
uneven arc with a pale face's shadow side, a whole circle too faint to count,
a faint circle by the well's edge, or one overlapping a stronger outline.

The settings it shares with the rest of the token search stay in
:mod:`vision.tokens` and are passed in by :func:`vision.tokens.find_tokens`
(this module does not import that one).  Distances are canonical pixels
unless a name ends in ``_radii`` (token radii) or ``_frac`` (a fraction of
the plate radius); outline contrasts are on the L* residual (L* units), a
face's difference from the plate on the Lab residual of
:class:`vision.canonical.CanonicalView` (Lab units).
"""
from __future__ import annotations

import math

import cv2
import numpy as np

from .candidates import Candidate, _blank, _face_differs
from .canonical import CanonicalView
from .discs import SUPPORT_SECTORS, _peaks, sector_support
from .faint_faces import _zeroed_where
from .outline import (DEFAULT_OUTLINE_RULE, OUTLINE_KEPT_MASK_RADII, OUTLINE_MAX_UNMEASURED_SECTORS,
                      OUTLINE_MIN_CENTRE_DIST_RADII, OUTLINE_RADIUS_FACTORS, OUTLINE_SIDES_FRAC,
                      OUTLINE_SUSPECT_MIN_CONTRAST_L, OutlineRule, best_outline_z, outline_contrast, outline_support,
                      shadow_side_contrast)
from .painted_lines import PaintedLines, outline_across_line

#: An outline dark in at least this many of OUTLINE_SECTORS sectors but too
#: uneven for the outline rule (the shadow side much darker than the lit side)
#: still counts when the face inside it differs from the plate in all eight
#: sectors of the disc filter, in one colour direction (see ``_outline_faces``).
OUTLINE_FACED_MIN_SECTORS = 14
#: For that test, kept tokens and other such outlines are taken out of the
#: residual to this many token radii.
FACED_MASK_RADII = 1.1
#: An outline peak dark in at least this many of 16 sectors (half the circle:
#: the shadow side of a pale face lit from one side) and at least
#: ``OUTLINE_SUSPECT_MIN_CONTRAST_L`` strong over the whole circle or over its
#: darker half (:func:`vision.outline.shadow_side_contrast`), inside the
#: well, is a suspect even when no outline counted (fresh scene 18088: a
#: fifth, white token on white porcelain, outline z 100, 11 sectors, 4.8 L,
#: dropped; four red blobs read as an outcome; fresh scene 28115 at 640x480:
#: an ivory face on celadon, 10 sectors, 2.4 L over the whole circle).
OUTLINE_SHADOW_SUSPECT_MIN_SECTORS = 8
#: Once a frame's pale faces are counted by their outlines, a dark arc that
#: fails the outline rule but is at least this share of the faintest counted
#: outline's contrast is reported as a suspect (a pale face lit from one side).
OUTLINE_REL_ARC_CONTRAST = 0.5
#: A whole circle (the rule's sectors and evenness) that fails the outline
#: rule on contrast alone is a suspect even when no outline counted, when it
#: stands at least this many times the rule's ``min_z`` above the plate's
#: noise and is at least ``FAINT_CIRCLE_MIN_CONTRAST_SHARE`` of the rule's
#: ``min_contrast_l`` dark: a pale face on a smooth plate whose outline is
#: clear but faint (fresh scene 42635: a fifth, white token on overexposed
#: white porcelain, outline z 17, 16 sectors, 1.2 L; four red blobs read as
#: an outcome).
FAINT_CIRCLE_MIN_Z_FACTOR = 2.0
FAINT_CIRCLE_MIN_CONTRAST_SHARE = 0.5
#: An outline whose circle reaches past ``FAINT_SEARCH_RADIUS_FRAC`` of the
#: plate radius reads the well's edge, where the glaze's shading draws arcs of
#: its own (a pixel off the ring model, and on a steep camera stretched into
#: streaks): there it counts as a face only when this many times the rule's
#: ``min_contrast_l`` dark; fainter, it is a suspect (fresh scenes 43149 and
#: 43907 at 640x480, cameras tilted 31-34 degrees over gold glaze: the wall's
#: streaks passed as a pale face's outline of 1.5-1.6 L beside three tokens
#: and the three were read as an outcome of four; true faces counted by their
#: outline there measured 4.6-12 L on synthesized scenes 1000-1799 and
#: 43000-43999).
WALL_OUTLINE_CONTRAST_FACTOR = 2.0
#: An uneven outline (an arc, or a circle too uneven or faint to count)
#: within ``SUSPECT_EXCLUSION_RADII`` of a face counted by its outline alone
#: is that face's own wall or shadow only when it is no darker, over its own
#: circle, than that face's outline: the face's circle runs through the whole
#: of its shadow side, so an arc of it seen from another centre cannot average
#: darker.  A darker one stays a suspect (fresh leaning overlap 814400 at
#: 640x480: a white face under a leaning white missed, its edge drawing an
#: arc of 2.43 L, 15 of 16 sectors, 1.64 radii from a phantom outline of
#: 1.69 L counted in its place; the arc dropped beside it, four read).  False:
#: every such arc is dropped, as before.
ARC_DARKER_THAN_OUTLINE_STAYS = True
#: An uneven outline from ``vision.tokens.TOUCHING_SUSPECT_MIN_RADII`` (1.8)
#: up to ``SUSPECT_EXCLUSION_RADII`` (2.0) token radii from a face (as far
#: as touching faces are, within the error of the centres) is not taken for
#: that face's own wall or shadow when it still passes the suspect rule with
#: that face hidden to ``KEPT_HIDE_RADII`` (:func:`_uneven_clear_of_kept`:
#: its darkness lies on its own far side, beyond that face's shadow).  Fresh
#: scene 1372558 at 1280x720 (five tokens, the fifth placed touching: a
#: faint grey-white face on white porcelain touching another counted by its
#: outline): its arc (3.0 L) 1.88 radii from that face was dropped and four
#: read as an outcome.  False (or ``vision.tokens.TOUCHING_SUSPECTS_STAY``
#: off): every uneven outline that near is dropped, as before.
TOUCHING_OUTLINE_CLEAR = True
#: Once pale faces are counted by their outlines, a peak of the outline
#: filter below the rule's ``min_z`` but at least this share of it is judged
#: too: a circle there that passes the rule's sectors, contrast and evenness
#: and is at least ``OUTLINE_REL_ARC_CONTRAST`` of the faintest counted
#: outline's contrast is a suspect (never counted).  The z is the filter over
#: its own noise on the plate; a painted plate (speckle, rings, motifs) raises
#: that noise, so a pale face whose circle is as dark and as whole as the
#: counted ones' can stay just under ``min_z`` (fresh scenes 1210206 and
#: 1210275 at 1000x1000, five tokens on white porcelain with painted decor:
#: a fifth, white face's outline z 6.7 and 7.0 as searched, 16 and 15 of 16
#: sectors, 5.8 and 6.3 L, evenness 0.83 and 0.79, beside counted outlines of
#: 6.2-7.7 L; never examined, four read as an outcome).
LOW_Z_CIRCLE_MIN_Z_SHARE = 0.5
#: Switch for that look; False: peaks below ``min_z`` are never examined, as before.
LOW_Z_CIRCLE_SUSPECT = True
#: An outline peak that fails the outline rule is judged again with the
#: pixels of a painted line of the plate left out (the plate model's narrow
#: concentric bands, :func:`vision.painted_lines.painted_line_mask`), its
#: centre within ``PAINTED_LINE_REACH_RADII`` of the peak; a circle that
#: then passes the rule is a suspect (never counted), by the well's edge or
#: not.  The ring model follows a painted line only to a ring bin, so the
#: residual keeps it as a light and a dark band 10 L or more each; a pale
#: face whose edge runs along the line has those bands across its outline's
#: ring and sides there, and those sectors fail (fresh scene 1261179 at
#: 1280x720, five tokens on white porcelain with a painted red ring at 0.758
#: of the plate radius: a fifth, grey-white face 0.622 out, its edge on the
#: line, measured 14 of 16 sectors, 6.2 L; its circle reaches past
#: ``FAINT_SEARCH_RADIUS_FRAC``, so an uneven arc there is no suspect, no
#: outline counted to set an arc's floor, and four reds were read as an
#: outcome; with the line's pixels left out: 16 of 16 sectors, 5.8-6.2 L).
#: Only a peak dark as measured in all but ``OUTLINE_MAX_UNMEASURED_SECTORS``
#: of the rule's sectors is judged so: a line hides no more of a circle than
#: a kept token may.  A/B on fresh seeds (five sets of 400: five tokens with
#: painted decor at 1280x720, 1290000-1290399; five tokens on white porcelain
#: with rings at 1000x1000, 1291000-1291399, and 1280x720, 1294000-1294399;
#: four flat on painted plates at 1024x768, 1292000-1292399; a plain natural
#: mix at 1280x720, 1293000-1293399): no verdict changed, 0 wrong either side.
#: False: no outline is judged across a line, as before.
PAINTED_LINE_OUTLINE_SUSPECT = True


def _outline_faces(view: CanonicalView, claimed: np.ndarray, allowed: np.ndarray, token_r: float,
                   cands: list[Candidate], blob_centres: list[tuple[float, float]],
                   rule: OutlineRule = DEFAULT_OUTLINE_RULE, trace: list | None = None, *,
                   blob_threshold_lab: float, faint_min_blob_dist_radii: float, faint_search_radius_frac: float,
                   suspect_exclusion_radii: float, kept_hide_radii: float, suspect_min_core_share: float,
                   touching_suspect_min_radii: float | None = None
                   ) -> tuple[list[Candidate], list[tuple[float, float, float]]]:
    """Faint faces found by a dark outline near the token's radius, away from
    every blob and every candidate already kept.

    An outline counts when it passes ``rule`` at one of the radii searched
    (``OUTLINE_RADIUS_FACTORS``); or, next to a token already counted, when it
    passes with the sectors that token hides left out (:func:`outline_support`
    with ``hidden``: the claimed blobs and every token taken out); or when it is dark in at least
    ``OUTLINE_FACED_MIN_SECTORS`` sectors and the face inside it differs from
    the plate all round (:func:`_pale_face_inside`): a pale face lit from one
    side, its shadow arc much darker than its lit rim.

    Returns the new candidates, and as suspects (never counted, never
    ignored): outlines that count but overlap a stronger one (a shadow's
    edge, or a face partly under another), strong outlines too uneven to
    count, and, once any outline counted, the rejected arcs at least
    ``OUTLINE_REL_ARC_CONTRAST`` of the faintest counted outline's contrast
    (and at least ``rule.min_contrast_l``): a pale face whose shadow alone
    shows; or a whole circle that passes the rule's sectors and evenness but
    not its contrast: a pale face fainter than the others.

    ``blob_threshold_lab`` is the frame's blob threshold (Lab units: a face
    counted by the faced test differs from the plate by less).  The settings
    of :mod:`vision.tokens` this search shares are passed in by
    :func:`vision.tokens.find_tokens`, each named after its setting there:
    ``faint_min_blob_dist_radii``
    (``FAINT_MIN_BLOB_DIST_RADII``: a peak this far from every candidate and
    blob), ``faint_search_radius_frac`` (``FAINT_SEARCH_RADIUS_FRAC``: a circle
    reaching past it is by the well's edge), ``suspect_exclusion_radii``
    (``SUSPECT_EXCLUSION_RADII``: an uneven outline closer to a kept token is
    its wall or shadow), ``kept_hide_radii`` (``KEPT_HIDE_RADII``, see
    :func:`_uneven_clear_of_kept`) and ``suspect_min_core_share``
    (``SUSPECT_MIN_CORE_SHARE``, see :func:`_pale_face_inside`);
    ``touching_suspect_min_radii`` (``TOUCHING_SUSPECT_MIN_RADII``, None
    when ``TOUCHING_SUSPECTS_STAY`` is off: an uneven outline from this far
    out stays when it passes the suspect rule with that token hidden, see
    ``TOUCHING_OUTLINE_CLEAR``).
    """
    if token_r <= 2 / min(OUTLINE_RADIUS_FACTORS):
        return [], []
    # Every blob and every token already kept, with its edge and shadow, is
    # taken out: a dark edge beside it must not become a second circle.  What
    # is taken out is hidden (``outline_support``): a face touching it is
    # judged on the rest of its outline.
    hidden = claimed.astype(bool)
    lightness = view.residual[..., 0].copy()
    lightness[hidden] = 0.0
    for c in cands:
        _take_out(lightness, hidden, c.x, c.y, OUTLINE_KEPT_MASK_RADII * token_r)
    region = allowed & (claimed == 0)
    if not region.any():
        return [], []
    # Each radius's response in units of its own robust noise; keep the best
    # (``best_k``: index into OUTLINE_RADIUS_FACTORS).
    best_z, best_k = best_outline_z(lightness, region, tuple(f * token_r for f in OUTLINE_RADIUS_FACTORS))
    found: list[Candidate] = []
    shadows: list[tuple[float, float, float]] = []
    uneven: list[tuple[float, float, float]] = []
    radius_of: dict[tuple[float, float], float] = {}  # each uneven outline's circle radius, canonical pixels
    arcs: list[tuple[float, float, float]] = []

    def note(into: list[tuple[float, float, float]], x: int, y: int, radius: float, contrast: float) -> None:
        # keep a peak judged a suspect or an arc (``into``), with its circle's radius
        radius_of[(float(x), float(y))] = radius
        into.append((float(x), float(y), contrast))

    taken = [(c.x, c.y) for c in cands] + list(blob_centres)
    peaks = [(x, y) for x, y in _peaks(best_z, region, rule.min_z, 1.5 * token_r)
             if all(math.hypot(x - tx, y - ty) >= faint_min_blob_dist_radii * token_r for tx, ty in taken)]
    # The peaks dark in OUTLINE_FACED_MIN_SECTORS on the lightness before any
    # face was accepted (computed when first needed): pale faces that may
    # touch the one being judged.
    before = lightness.copy()
    near_closed: list[tuple[int, int]] | None = None
    # how far from a centre the outline test reads (its outer side at the largest radius)
    reach = int(math.ceil(OUTLINE_SIDES_FRAC[1] * max(OUTLINE_RADIUS_FACTORS) * token_r + 1))
    lines: PaintedLines | None = None  # the plate's painted lines, found when first needed
    for x, y in peaks:
        radius = OUTLINE_RADIUS_FACTORS[best_k[y, x]] * token_r
        n_sectors, contrast, evenness = outline_support(lightness, x, y, radius)
        closed = _closed_outline(rule, n_sectors, contrast, evenness)
        if not closed:
            # the radius that answers most strongly may be one where a shadow's
            # arc dominates: the circle counts if it passes at any radius
            # searched; then, for a face touching one already counted, on
            # the part of its outline that token does not hide
            tries = [(f, None) for k, f in enumerate(OUTLINE_RADIUS_FACTORS) if k != best_k[y, x]]
            if hidden[max(0, y - reach):y + reach + 1, max(0, x - reach):x + reach + 1].any():
                tries += [(f, hidden) for f in OUTLINE_RADIUS_FACTORS]
            for factor, mask in tries:
                got = outline_support(lightness, x, y, factor * token_r, mask)
                if _closed_outline(rule, *got):
                    (n_sectors, contrast, evenness), radius, closed = got, factor * token_r, True
                    break
        if not closed and n_sectors >= OUTLINE_FACED_MIN_SECTORS and contrast >= rule.min_contrast_l:
            if near_closed is None:
                near_closed = [(px, py) for px, py in peaks if outline_support(
                    before, px, py, OUTLINE_RADIUS_FACTORS[best_k[py, px]] * token_r)[0] >= OUTLINE_FACED_MIN_SECTORS]
            others = [(c.x, c.y) for c in cands + found] + [q for q in near_closed if q != (x, y)]
            closed = _pale_face_inside(view.residual, claimed, others, x, y, token_r,
                                       (rule.min_contrast_l, blob_threshold_lab), suspect_min_core_share)
        if trace is not None:  # calibration: every outline peak examined, strongest first
            trace.append({"x": float(x), "y": float(y), "radius": float(radius), "z": float(best_z[y, x]),
                          "sectors": n_sectors, "contrast_l": contrast, "evenness": evenness})
        # the circle reaches the well's edge, whose shading draws arcs of its own
        by_edge = view.radius_px[y, x] + token_r > faint_search_radius_frac * view.plate_radius_px
        if closed and by_edge and contrast < WALL_OUTLINE_CONTRAST_FACTOR * rule.min_contrast_l:
            # by the well's edge, a faint circle may be the glaze's own arcs
            note(uneven, x, y, radius, contrast)
            continue
        if (not closed and PAINTED_LINE_OUTLINE_SUSPECT
                and n_sectors >= rule.min_sectors - OUTLINE_MAX_UNMEASURED_SECTORS):
            # a circle whose failing sectors lie on a painted line of the plate
            # (see ``PAINTED_LINE_OUTLINE_SUSPECT``): a suspect, never a face
            # (a line hides at most the sectors a kept token may)
            if lines is None:
                lines = PaintedLines(view, token_r)
            # (the mask painted only where the test reads it for this peak)
            if lines.any() and outline_across_line(lightness, hidden, lines.around(x, y, token_r), x, y, token_r,
                                                   rule) is not None:
                note(uneven, x, y, radius, contrast)
                continue
        if not closed:
            # (an uneven circle reaching the well's edge is not a suspect on
            # its own: the plate's own edge, a pixel off the ring model, draws
            # such an arc there; it may still be one of the arcs below)
            if (n_sectors >= OUTLINE_SHADOW_SUSPECT_MIN_SECTORS and not by_edge
                    and (contrast >= OUTLINE_SUSPECT_MIN_CONTRAST_L
                         or shadow_side_contrast(lightness, x, y, radius) >= OUTLINE_SUSPECT_MIN_CONTRAST_L)
                    and _uneven_clear_of_kept(lightness, hidden, x, y, radius, token_r, cands + found,
                                              kept_hide_radii)):
                note(uneven, x, y, radius, contrast)
            elif n_sectors >= rule.min_sectors and evenness >= rule.min_evenness and (
                    best_z[y, x] >= FAINT_CIRCLE_MIN_Z_FACTOR * rule.min_z
                    and contrast >= FAINT_CIRCLE_MIN_CONTRAST_SHARE * rule.min_contrast_l):
                # a whole circle, as even as a face's and clear of the plate's
                # noise, only too faint: a suspect on its own
                note(uneven, x, y, radius, contrast)
            elif contrast >= rule.min_contrast_l or (n_sectors >= rule.min_sectors
                                                     and evenness >= rule.min_evenness):
                # a dark arc; or a whole circle, as even as a face's, only too
                # faint: below, a suspect if as dark as a share of a counted face
                note(arcs, x, y, radius, contrast)
            continue
        if any(math.hypot(x - c.x, y - c.y) < OUTLINE_MIN_CENTRE_DIST_RADII * token_r for c in found):
            shadows.append((float(x), float(y), contrast))
            continue
        found.append(Candidate(float(x), float(y), token_r, "outline", math.pi * token_r ** 2, 1.0, 1.0, contrast,
                               found_by="outline"))
        # Strongest first: blank each accepted face so that the arcs of a
        # circle drawn partly through its edge no longer count for another.
        _take_out(lightness, hidden, x, y, OUTLINE_KEPT_MASK_RADII * token_r)
    # Once pale faces are counted by their outlines, a whole circle as dark as
    # a share of the faintest of them whose z stayed under the rule's (a
    # painted plate's noise) is a suspect (see ``LOW_Z_CIRCLE_SUSPECT``).
    if found and LOW_Z_CIRCLE_SUSPECT:
        uneven.extend(_low_z_circles(lightness, best_z, best_k, region, token_r, rule, taken,
                                     faint_min_blob_dist_radii,
                                     OUTLINE_REL_ARC_CONTRAST * min(c.contrast for c in found)))
    # Once pale faces are counted by their outlines, an arc as dark as a
    # share of the faintest of them may be a pale face whose shadow alone shows.
    if found:
        floor = OUTLINE_REL_ARC_CONTRAST * min(c.contrast for c in found)
        uneven.extend((x, y, c) for x, y, c in arcs if c >= floor)
    # An uneven outline right beside a face is that face's own wall or shadow;
    # beside a face counted by its outline, only when no darker than that
    # outline (see ``ARC_DARKER_THAN_OUTLINE_STAYS``).
    def beyond(x: float, y: float, k: Candidate) -> bool:
        """Whether the uneven outline at (x, y) is not ``k``'s own wall or
        shadow by distance alone (see ``TOUCHING_OUTLINE_CLEAR``)."""
        d = math.hypot(x - k.x, y - k.y)
        if d >= suspect_exclusion_radii * token_r:
            return True
        return (TOUCHING_OUTLINE_CLEAR and touching_suspect_min_radii is not None
                and d >= touching_suspect_min_radii * token_r
                and _uneven_clear_of_kept(lightness, hidden, int(x), int(y), radius_of.get((x, y), token_r),
                                          token_r, [k], kept_hide_radii))

    shadows.extend((x, y, c) for x, y, c in uneven
                   if all(beyond(x, y, k) for k in cands)
                   and all(beyond(x, y, k) or (ARC_DARKER_THAN_OUTLINE_STAYS and c > k.contrast) for k in found))
    return found, shadows


def _low_z_circles(lightness: np.ndarray, best_z: np.ndarray, best_k: np.ndarray, region: np.ndarray,
                   token_r: float, rule: OutlineRule, taken: list[tuple[float, float]],
                   faint_min_blob_dist_radii: float, min_contrast_l: float) -> list[tuple[float, float, float]]:
    """Whole circles at the outline filter's peaks from ``LOW_Z_CIRCLE_MIN_Z_SHARE``
    of ``rule.min_z`` up to (not including) ``rule.min_z``.

    Parameters
    ----------
    lightness : ndarray, float32, (S, S), L units
        The outline search's lightness (kept tokens and counted outlines blanked).
    best_z, best_k : ndarray
        :func:`vision.outline.best_outline_z` on the search's region.
    region : ndarray, bool, (S, S)
        Where a centre may lie.
    token_r : float
        Token radius, canonical pixels.
    rule : OutlineRule
        Its sectors, contrast and evenness must pass (not its ``min_z``).
    taken : list of (float, float)
        Candidates' and blobs' centres: a peak within
        ``faint_min_blob_dist_radii`` token radii of one is skipped.
    faint_min_blob_dist_radii : float
    min_contrast_l : float
        The circle's contrast must reach this too, L units.

    Returns
    -------
    list of (x, y, contrast_l)
    """
    out: list[tuple[float, float, float]] = []
    for x, y in _peaks(best_z, region, LOW_Z_CIRCLE_MIN_Z_SHARE * rule.min_z, 1.5 * token_r):
        if best_z[y, x] >= rule.min_z or any(math.hypot(x - tx, y - ty) < faint_min_blob_dist_radii * token_r
                                             for tx, ty in taken):
            continue  # examined already, or by a token
        radius = OUTLINE_RADIUS_FACTORS[best_k[y, x]] * token_r
        # its contrast alone first (the same number outline_support gives):
        # most of these peaks are plate texture, too faint for either floor
        if outline_contrast(lightness, x, y, radius) < max(rule.min_contrast_l, min_contrast_l):
            continue
        n_sectors, contrast, evenness = outline_support(lightness, x, y, radius)
        if _closed_outline(rule, n_sectors, contrast, evenness) and contrast >= min_contrast_l:
            out.append((float(x), float(y), contrast))
    return out


def _uneven_clear_of_kept(lightness: np.ndarray, hidden: np.ndarray, x: int, y: int, radius_px: float,
                          token_r: float, kept: list[Candidate], kept_hide_radii: float) -> bool:
    """Whether an uneven outline at (x, y) still passes the suspect rule with
    the kept tokens near it hidden to ``kept_hide_radii`` token radii
    (``vision.tokens.KEPT_HIDE_RADII``: their shadow and
    side wall): True when no kept token is that near.  The light is one for
    every token: the shadow of a fifth face lies on its own far side from
    the light and stays seen; an arc that was a kept token's shadow goes."""
    reach = kept_hide_radii * token_r + radius_px * OUTLINE_SIDES_FRAC[1]
    near = [k for k in kept if math.hypot(x - k.x, y - k.y) < reach]
    if not near:
        return True
    more = hidden.copy()
    for k in near:
        _mark_disc(more, k.x, k.y, kept_hide_radii * token_r)
    n_sectors, contrast, _ = outline_support(lightness, x, y, radius_px, more)
    return n_sectors >= OUTLINE_SHADOW_SUSPECT_MIN_SECTORS and (
        contrast >= OUTLINE_SUSPECT_MIN_CONTRAST_L
        or shadow_side_contrast(lightness, x, y, radius_px, more) >= OUTLINE_SUSPECT_MIN_CONTRAST_L)


def _take_out(lightness: np.ndarray, hidden: np.ndarray, x: float, y: float, radius_px: float) -> None:
    """Blank the disc of ``radius_px`` around (x, y) in ``lightness`` (see
    :func:`_blank`) and mark it in ``hidden`` (bool, same shape), in place
    (arrays :func:`_outline_faces` owns)."""
    _blank(lightness, x, y, radius_px)
    _mark_disc(hidden, x, y, radius_px)


def _mark_disc(hidden: np.ndarray, x: float, y: float, radius_px: float) -> None:
    """Set the disc of ``radius_px`` around (x, y) True in ``hidden`` (bool),
    in place (an array the caller owns for this purpose)."""
    cv2.circle(hidden.view(np.uint8), (int(round(x)), int(round(y))), int(round(radius_px)), color=1,
               thickness=cv2.FILLED)


def _pale_face_inside(residual: np.ndarray, claimed: np.ndarray, others: list[tuple[float, float]],
                      x: int, y: int, radius_px: float, contrast_range: tuple[float, float],
                      min_core_share: float) -> bool:
    """True when the face inside an outline at (x, y) differs from the plate
    all round: in all ``SUPPORT_SECTORS`` sectors of :func:`sector_support`,
    in one colour direction, by a contrast within ``contrast_range`` (Lab
    units: at least what an outline must show, less than a blob), with its
    core differing by at least ``min_core_share`` of it
    (``vision.tokens.SUSPECT_MIN_CORE_SHARE``).

    Its surround is judged on the plate alone: ``claimed`` pixels and discs of
    ``FACED_MASK_RADII`` around ``others`` (kept tokens, pale faces that may
    touch this one) are set to the plate (zero) first.  A neighbour closer
    than two radii is masked into the rim of this face; the sectors facing it
    then compare this face with the plate there.
    """
    face_residual = _zeroed_where(residual, claimed)
    for ox, oy in others:
        _blank(face_residual, ox, oy, FACED_MASK_RADII * radius_px)
    n_sectors, contrast = sector_support(face_residual, float(x), float(y), radius_px)
    return (n_sectors == SUPPORT_SECTORS and contrast_range[0] <= contrast < contrast_range[1]
            and _face_differs(face_residual, x, y, radius_px, contrast, min_core_share))


def _closed_outline(rule: OutlineRule, n_sectors: int, contrast: float, evenness: float) -> bool:
    """Whether an outline's support (:func:`outline_support`) passes ``rule`` on its own."""
    return n_sectors >= rule.min_sectors and contrast >= rule.min_contrast_l and evenness >= rule.min_evenness
