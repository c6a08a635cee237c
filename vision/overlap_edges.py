"""Two faces that overlap, measured by their own edges.

The close-pair test of :func:`vision.reader.decide` measures two faces'
distance between their blobs' centroids in units of the frame's token
radius, itself measured on blob regions.  Where a pale face lies on a pale
plate (about 20 Lab units apart) and the frame is blurred, the blob
threshold cuts inside the blurred edge: every face's blob, and so the token
radius, comes out small.  And a face partly under another has its centroid
off its own centre, away from the face over it.  Both errors make an overlap
look like two faces merely touching: fresh overlap 1907063 (800x600, a white
token leaning on a white one on a pale-blue plate, motion blur) found its
two faces 1.96 blob radii apart (blob radius 12-17 % under the true one)
and read an outcome.

Here each face of a pair that the close-pair test passes has its centre and
radius from a circle fitted to its own edge, the point where the face's
colour falls to half its core's (:func:`vision.face_centre.fit_face_edge`;
a symmetric blur leaves that point on the true edge), rays towards the faces
beside it left out (so the bite one face takes from the other, and the
joint between them, are not measured).  Two whole faces lying flat cannot
be closer than two of their own radii; two faces whose fitted centres are
closer than ``EDGE_OVERLAP_MAX_DIST_EDGE_RADII`` of their mean fitted radius
overlap.  The case measures 1.75.

Faces measured whole as one blob and fainter than twice the blob
threshold are so judged: there the threshold lies above half the face's
contrast and cuts inside its blurred edge, the bias the fit corrects.  A
stronger face's blob mostly reaches its edge, and its side wall (a red
token's is red) can widen the edge fit instead; but its token radius,
measured at half each clear disc's peak, still runs small where the face's
shaded rim, blur and JPEG put that level inside the edge and a dark side wall
on a dark plate adds nothing outside it, so under ``EDGE_OVERLAP_STRONG_PAIRS``
pairs of whole blobs with a stronger face are judged too (see there; the
case 2025445).  A face not measured whole
(a faint find, a half of a split blob) has its edge fitted by the
close-pair test itself (``vision.reader._edge_centres``).  The rule can only
stop an outcome (``rearrange``), never make one.

Distances are canonical pixels; colours are the Lab residual of
:class:`vision.canonical.CanonicalView` (Lab units).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .face_centre import EdgeFit, fit_face_edge

#: Switch for the rule (read by :func:`vision.reader.decide`), so it can be A/B'd.
EDGE_OVERLAP_RULE = True
#: Two faces whose edge-fitted centres are closer than this many of their
#: mean edge-fitted radius overlap: the close-pair test's own bound
#: (``vision.reader.OVERLAP_MAX_CENTRE_DIST_RADII``), now in the faces' own
#: radius.  Two whole faces touching are 2.0 apart.  Fired on (fresh, the
#: white token leaning on a white one each time): the case 1907063 1.75,
#: 1971462 1.74, 1969153 1.70.  Touching pairs of every kind read right
#: measured 1.87 or more (88 at 640x480, 1966000-1966399, before the
#: contrast gate below); with the gate no touching reading changed in 600
#: fresh scenes (1024x768 and 640x480).
EDGE_OVERLAP_MAX_DIST_EDGE_RADII = 1.8
#: Only faces measured whole as one blob whose contrast (Lab units) is under
#: this many blob thresholds are fitted: there the threshold lies above half
#: the face's contrast, so it cuts inside the blurred edge and the blob (its
#: size and, for a bitten face, its centroid) is biased small.  A face of
#: higher contrast has its blob out at or beyond the half-contrast edge, and
#: its side wall (a red token's is red) widens the edge fit instead: fresh
#: touching red pairs 1970823, 1970827, 1970899 (1024x768, contrast 41-60
#: against a threshold of about 14) measured 1.69-1.77 by their edges.  The
#: case: 18.1 and 19.1 against 14.0 (1.3-1.4 thresholds).
EDGE_OVERLAP_MAX_CONTRAST_THRESHOLDS = 2.0
#: Only pairs whose blob centroids lie within this many token radii are
#: fitted (an overlap whose blobs measure small: the case 1.96; a token
#: radius measured 0.804 of the true one, the least seen for faint faces in
#: ``vision.reader.UNMEASURED_SIZE_MIN_CENTRE_DIST_RADII``'s comment, puts an
#: overlap at 1.8 true radii 2.24 of it apart).
EDGE_OVERLAP_REACH_RADII = 2.3
#: Faces within this many token radii of a fitted face have the rays towards
#: them left out of its fit (their edges, the joint, a bite).
EDGE_OVERLAP_NEIGHBOUR_RADII = 2.6
#: A fit is trusted only with a radius within this range of the token
#: radius (a fit onto a shadow ring or a fragment is not a face's edge):
#: pairs of blob faces measured 0.92-1.12 of it (mean of the pair's two
#: fits, 180 pairs of fresh 640x480 overlap and touching scenes
#: 1965000-1966399; the blob cuts inside a faint face's edge, outside a
#: strong one's).
EDGE_OVERLAP_FIT_RADIUS_RANGE = (0.8, 1.35)
#: Switch (read here, so it can be A/B'd): pairs of whole blobs with a face
#: at or over ``EDGE_OVERLAP_MAX_CONTRAST_THRESHOLDS`` blob thresholds are
#: judged too, in their mean fitted radius (``EDGE_OVERLAP_STRONG_SIZE``).
#: The blob threshold is not the only thing that puts a face's measured edge
#: inside its true one: the token radius is the region at half each clear
#: disc's *peak* (its 90th percentile of colour difference, gloss included),
#: which on a face whose outer fifth is shaded (the bevel), under blur and
#: JPEG's halved chroma resolution (quality 44-46), lies inside the edge; a
#: dark side wall on a dark plate adds nothing outside it.  On black lacquer
#: with dark token bodies the token radius came out 0.89-0.93 of the true one
#: (the least on the scenes below), while the edge fit at half the face
#: core's *mean*, rays towards the neighbour left out, measured 0.99-1.05 of
#: it, and its centres undo the bite's pull on the hidden face's centroid.
#: Wrong outcomes it closes (two whole strong blobs, read as four flat
#: faces): 2025445 (1280x720, a pinkish red leaning on a red, 1.63 true
#: radii offset, tilt 24 deg, JPEG 44: blob centroids 1.83 token radii apart,
#: fitted centres 1.66 fitted radii) and fresh 2057163 (1280x720, a red
#: leaning on a white on black lacquer, dark bodies, tilt 1.4 deg, JPEG 46:
#: 1.98 by blobs, 1.71 fitted).  The faint gate's reason, a side wall of the
#: face's own colour widening the fit of strong touching red pairs, costs
#: rights, never an outcome: the rule only says ``rearrange``.  A/B on
#: fresh scenes (2053000-2058799; on / off, right): no right lost and no
#: wrong outcome either side on touching 1024x768 (300, 89/89; black lacquer
#: 300, 107/107; red bodies 200, 56/56; white bodies 200, 62/62), touching
#: 640x480 (300, 77/77), outcome 640x480 (200, 119/119), five tokens 800x600
#: (200, 167/167), natural mix 1024x768 (200, 143/143), overlap 1280x720
#: (200, 142/142; black lacquer 300, 208/207; dark leaning on black lacquer
#: 200, 149/149) and 800x600 (200, 153/153; black lacquer 300, 215/215).
#: The class is rare: whole strong pairs this close are few.
EDGE_OVERLAP_STRONG_PAIRS = True
#: "fit": strong pairs judged in their mean fitted radius, as faint ones
#: are; "min": in the smaller of that and the token radius (never looser
#: than the close-pair test's own size; closes 2025445, 1.76, not 2057163, 1.87).
EDGE_OVERLAP_STRONG_SIZE = "fit"


@dataclass(frozen=True)
class EdgePair:
    """Two faces (indices into the faces given) and their edge-fitted distance.

    ``dist_edge_radii``: the distance between the fitted centres over the
    mean fitted radius (dimensionless).
    """

    i: int
    j: int
    dist_edge_radii: float


def edge_overlaps(residual: np.ndarray, centres: list[tuple[float, float]], contrasts: list[float],
                  whole: list[bool], neighbours: list[tuple[float, float]], radius_px: float,
                  blob_threshold_lab: float) -> list[EdgePair]:
    """The pairs of faces whose edge-fitted circles are closer than an overlap's bound.

    Parameters
    ----------
    residual : ndarray, float32, (S, S, 3), Lab units
        Colour minus the plate model (:attr:`CanonicalView.residual`).
    centres : list of (float, float)
        The flat faces' centres, canonical pixels.
    contrasts : list of float
        Their contrasts from the plate, Lab units, in ``centres``' order.
    whole : list of bool
        Whether each was measured whole as one blob
        (:attr:`vision.candidates.Candidate.whole_blob`).
    neighbours : list of (float, float)
        Every token candidate's centre, canonical pixels (the faces among
        them too): rays towards those near a face are left out of its fit.
    radius_px : float
        The frame's token radius, canonical pixels (> 0).
    blob_threshold_lab : float
        The blob search's threshold, Lab units (> 0).

    Returns
    -------
    list of EdgePair
        Each pair of whole faint blobs (both whole, both contrasts under
        ``EDGE_OVERLAP_MAX_CONTRAST_THRESHOLDS`` blob thresholds) within
        ``EDGE_OVERLAP_REACH_RADII`` token radii by their given centres,
        both faces fitted with a radius in ``EDGE_OVERLAP_FIT_RADIUS_RANGE``
        of ``radius_px``, and closer than
        ``EDGE_OVERLAP_MAX_DIST_EDGE_RADII`` mean fitted radii; in the order
        ``(i, j)``, ``i < j``.
    """
    if not (isinstance(residual, np.ndarray) and residual.ndim == 3 and residual.shape[2] == 3):
        raise ValueError(f"residual: expected an (S, S, 3) array, got {getattr(residual, 'shape', type(residual))}")
    if not (isinstance(radius_px, (int, float, np.floating)) and math.isfinite(radius_px) and radius_px > 0):
        raise ValueError(f"radius_px: expected a finite value > 0, got {radius_px!r}")
    if not (isinstance(blob_threshold_lab, (int, float, np.floating)) and math.isfinite(blob_threshold_lab)
            and blob_threshold_lab > 0):
        raise ValueError(f"blob_threshold_lab: expected a finite value > 0, got {blob_threshold_lab!r}")
    if len(contrasts) != len(centres) or len(whole) != len(centres):
        raise ValueError(f"contrasts, whole: expected {len(centres)} values each (one per centre), got "
                         f"{len(contrasts)} and {len(whole)}")
    for name, pts in (("centres", centres), ("neighbours", neighbours)):
        if not all(len(p) == 2 and math.isfinite(p[0]) and math.isfinite(p[1]) for p in pts):
            raise ValueError(f"{name}: expected finite (x, y) pairs")
    reach = EDGE_OVERLAP_REACH_RADII * radius_px
    near_px = EDGE_OVERLAP_NEIGHBOUR_RADII * radius_px
    lo, hi = EDGE_OVERLAP_FIT_RADIUS_RANGE
    faint = [bool(w) and c < EDGE_OVERLAP_MAX_CONTRAST_THRESHOLDS * blob_threshold_lab
             for c, w in zip(contrasts, whole)]
    fits: dict[int, EdgeFit | None] = {}

    def fit(k: int) -> EdgeFit | None:
        """Face ``k``'s edge fit (None when not fitted or not of a face's size), once."""
        if k not in fits:
            x, y = centres[k]
            others = [(ox, oy) for ox, oy in neighbours
                      if 0.5 * radius_px < math.hypot(ox - x, oy - y) < near_px]
            f = fit_face_edge(residual, x, y, radius_px, others)
            fits[k] = f if f.fitted and lo * radius_px <= f.radius_px <= hi * radius_px else None
        return fits[k]

    out = []
    for i, (xi, yi) in enumerate(centres):
        for j in range(i + 1, len(centres)):
            xj, yj = centres[j]
            both_faint = faint[i] and faint[j]
            strong = EDGE_OVERLAP_STRONG_PAIRS and whole[i] and whole[j] and not both_faint
            if not (both_faint or strong) or math.hypot(xi - xj, yi - yj) >= reach:
                continue
            fi, fj = fit(i), fit(j)
            if fi is None or fj is None:
                continue
            size = 0.5 * (fi.radius_px + fj.radius_px)
            if strong and EDGE_OVERLAP_STRONG_SIZE == "min":  # (see EDGE_OVERLAP_STRONG_SIZE)
                size = min(size, float(radius_px))
            dist = math.hypot(fi.x - fj.x, fi.y - fj.y) / size
            if dist < EDGE_OVERLAP_MAX_DIST_EDGE_RADII:
                out.append(EdgePair(i, j, dist))
    return out
