"""vision.face_centre.fit_face_edge: a faint face's centre from its edge, and the reader's use of it.

The disc filter's peak on a faint face beside another lies off the face's
centre, away from it; a white face partly under a red one was found 2.01
token radii from it (1.77 true) and the overlap was read as an outcome
(fresh forced overlap 342939 at 1280x720).  Two faces now overlap when
either their peaks or their edges' centres are closer than 1.8 radii.  Blob
faces are fitted too: the half of a split blob that lies under a leaning
token has its centroid off its face's centre (fresh leaning overlap 613453).

Checklist: smoke and known values on drawn residuals (a whole disc, a disc
beside another, a disc partly under another, the two halves of one blob),
the empty case, the bad input table, the result type's own checks, and real
pixels (those overlap scenes; right outcomes of touching pairs still read).
"""
from __future__ import annotations

import dataclasses
import math

import cv2
import numpy as np
import pytest

from vision.face_centre import NO_FIT, EdgeFit, fit_face_edge
from vision import reader
from vision.reader import read_frame
from vision.synth import render_scene

S = 320
R = 14.0
PALE = (9.0, -1.0, -3.0)  # a faint white face's difference from the plate (Lab units)
RED = (-12.0, 30.0, 14.0)
SCALE = 8  # sub-pixel drawing: cv2 shift bits


def draw_disc(res: np.ndarray, cx: float, cy: float, radius: float, colour) -> None:
    cv2.circle(res, (int(round(cx * SCALE)), int(round(cy * SCALE))), int(round(radius * SCALE)), colour,
               thickness=cv2.FILLED, lineType=cv2.LINE_AA, shift=3)


def blank() -> np.ndarray:
    return np.zeros((S, S, 3), np.float32)


def test_whole_disc_from_an_offset_peak():
    res = blank()
    draw_disc(res, 160.3, 158.6, R, PALE)
    fit = fit_face_edge(res, 163.0, 157.0, R)
    assert fit.fitted and fit.n_edges >= 40
    assert math.hypot(fit.x - 160.3, fit.y - 158.6) < 0.3
    assert fit.radius_px == pytest.approx(R, abs=0.6)
    assert fit.rms_px < 0.5


def test_beside_another_face_its_rays_are_left_out():
    """A red face touching the white one: rays towards it are skipped."""
    res = blank()
    draw_disc(res, 150.0, 160.0, R, PALE)
    draw_disc(res, 150.0 + 2.0 * R, 160.0, R, RED)
    peak = (146.0, 160.0)  # found away from the red face, as the filter does
    fit = fit_face_edge(res, *peak, R, others=[(150.0 + 2.0 * R, 160.0)])
    assert fit.fitted
    assert math.hypot(fit.x - 150.0, fit.y - 160.0) < 0.5


def test_partly_under_another_face_its_far_edge_gives_the_centre():
    """A white face 1.6 radii from a red one drawn over it: its visible part
    is a disc with a bite; the peak lies out in that part."""
    res = blank()
    draw_disc(res, 150.0, 160.0, R, PALE)
    red = (150.0 + 1.6 * R, 160.0)
    draw_disc(res, *red, R, RED)
    peak = (144.0, 160.0)
    fit = fit_face_edge(res, *peak, R, others=[red])
    assert fit.fitted
    assert math.hypot(fit.x - 150.0, fit.y - 160.0) < 1.0
    # nearer the red face than the peak is: the pair measures closer
    assert math.hypot(fit.x - red[0], fit.y - red[1]) < math.hypot(peak[0] - red[0], peak[1] - red[1]) - 4.0


def test_empty_residual_is_no_fit():
    fit = fit_face_edge(blank(), 160.0, 160.0, R)
    assert fit is NO_FIT
    assert not fit.fitted and math.isnan(fit.x) and fit.n_edges == 0


def test_no_edge_within_reach_is_no_fit():
    """A region much larger than a face: no ray falls to half contrast within 1.8 radii."""
    res = blank()
    draw_disc(res, 160.0, 160.0, 4 * R, PALE)
    assert not fit_face_edge(res, 160.0, 160.0, R).fitted


def test_every_ray_towards_neighbours_is_no_fit():
    res = blank()
    draw_disc(res, 160.0, 160.0, R, PALE)
    around = [(160.0 + 2 * R * math.cos(a), 160.0 + 2 * R * math.sin(a)) for a in np.linspace(0, 2 * math.pi, 4,
                                                                                             endpoint=False)]
    assert not fit_face_edge(res, 160.0, 160.0, R, others=around).fitted


def test_face_at_the_canvas_edge():
    res = blank()
    draw_disc(res, 8.0, 160.0, R, PALE)
    fit = fit_face_edge(res, 9.0, 160.0, R)
    # the rays off the canvas find no edge; the rest still fit the circle
    assert fit.fitted
    assert math.hypot(fit.x - 8.0, fit.y - 160.0) < 1.0


@pytest.mark.parametrize("kwargs, name", [
    ({"radius_px": 0.0}, "radius_px"),
    ({"radius_px": math.nan}, "radius_px"),
    ({"x": math.nan}, "x, y"),
    ({"residual": np.zeros((S, S), np.float32)}, "residual"),
    ({"residual": [[0.0]]}, "residual"),
])
def test_bad_input(kwargs, name):
    args = {"residual": blank(), "x": 160.0, "y": 160.0, "radius_px": R}
    args.update(kwargs)
    with pytest.raises(ValueError, match=name):
        fit_face_edge(**args)


def test_edge_fit_checks_itself():
    with pytest.raises(ValueError, match="n_edges"):
        EdgeFit(1.0, 2.0, 3.0, -1, 0.1)
    with pytest.raises(ValueError, match="finite"):
        EdgeFit(math.nan, 2.0, 3.0, 12, 0.1)
    assert EdgeFit(1.0, 2.0, 3.0, 12, 0.1).fitted


def test_overlap_found_as_touching_is_not_an_outcome():
    """Real pixels: fresh forced overlap 342939 at 1280x720, a white face
    partly under a red one on celadon (true centres 1.77 radii apart), read
    "four flat tokens" before; the white's edge puts it 1.67 radii from the red."""
    scene = render_scene(342939, "overlap", size=(1280, 720))
    reading = read_frame(scene.image)
    assert reading.verdict == "rearrange", reading.reason


@pytest.mark.parametrize("seed", [344427, 344731])
def test_touching_pairs_are_not_overlaps(seed, monkeypatch):
    """Real pixels: forced touching scenes at 1280x720 whose faint face's edge
    puts it 1.82-1.84 radii from its neighbour (peaks 2.06-2.12): touching,
    not overlapping (the bound is the clear faces' 1.8), so no rearrange.

    Since the seventeenth round (2026-12-04) a faint face that near another by its edge stops an
    outcome (``FAINT_PAIR_MIN_EDGE_DIST_RADII``: a face partly under a
    leaning token measures the same), so these two are among that rule's
    cost: `uncertain`, and the right outcome without that rule."""
    scene = render_scene(seed, "touching", size=(1280, 720))
    reading = read_frame(scene.image)
    assert reading.verdict == "uncertain", reading.reason
    # (344731's token size comes from its one clear disc, the face touching
    # the faint one; since the nineteenth round such a size counts as not
    # measured, which stops it first: set aside to show this rule)
    monkeypatch.setattr(reader, "SIZE_FACE_MIN_CLEAR_RADII", 0.0)
    reading = read_frame(scene.image)
    assert "by their edges, one of them faint" in reading.reason
    monkeypatch.setattr(reader, "FAINT_PAIR_MIN_EDGE_DIST_RADII", 0.0)
    reading = read_frame(scene.image)
    assert reading.verdict == "outcome", reading.reason
    assert reading.red == scene.label["red"]


def test_halves_of_one_blob_are_fitted_by_their_edges_too():
    """Known values: two red faces 1.75 radii apart drawn as one region, as the
    blob search sees a face partly under another.  The 2-means halves'
    centroids lie off the faces' centres, away from each other (the part
    under lies off its face's centre, away from the bite), past the overlap
    bound (1.81 radii apart); the faces' edges put them back where they are
    drawn.  A blob measured whole, as one face, keeps its own centre."""
    from vision.blobshape import _two_means
    from vision.reader import OVERLAP_MAX_CENTRE_DIST_RADII, _edge_centres
    from vision.tokens import Candidate

    res = blank()
    centres = [(150.0, 160.0), (150.0 + 1.75 * R, 160.0)]
    for c in centres:
        draw_disc(res, *c, R, RED)
    _, _, means = _two_means(np.linalg.norm(res, axis=2) > 0.5 * np.linalg.norm(RED))
    halves = [Candidate(float(x), float(y), R, "disc", math.pi * R * R, 1.0, 0.95, 35.0, angle_deg=math.nan)
              for x, y in sorted(means.tolist())]
    apart = math.hypot(halves[0].x - halves[1].x, halves[0].y - halves[1].y) / R
    assert apart > OVERLAP_MAX_CENTRE_DIST_RADII
    edged = _edge_centres(res, halves, halves, R)
    for (ex, ey), (tx, ty) in zip(edged, centres):
        assert math.hypot(ex - tx, ey - ty) < 0.5
    by_edges = math.hypot(edged[0][0] - edged[1][0], edged[0][1] - edged[1][1]) / R
    assert by_edges == pytest.approx(1.75, abs=0.05) and by_edges < OVERLAP_MAX_CENTRE_DIST_RADII
    # a face with no other candidate near, or a blob measured whole (its own
    # angle), keeps its own centre
    alone = halves[0]
    assert _edge_centres(res, [alone], [alone], R) == [(alone.x, alone.y)]
    whole = [dataclasses.replace(h, angle_deg=0.0) for h in halves]
    assert _edge_centres(res, whole, whole, R) == [(h.x, h.y) for h in whole]


def test_a_red_face_under_a_leaning_red_is_not_an_outcome(monkeypatch):
    """Real pixels: fresh leaning overlap 613453 at 640x480, seen from straight
    above: a red token leaning on a red one hides 8 % of it.  Their one blob
    split into two halves whose centroids lie 1.86 radii apart (past the
    split bound, 1.85) and it read as four tokens, a wrong outcome; fitted by
    their edges the two faces are 1.78 radii apart, under the overlap bound."""
    from vision import reader

    scene = render_scene(613453, "overlap", size=(640, 480), conditions={"overlap_style": "leaning"})
    assert scene.label["verdict"] == "rearrange"
    under = next(t for t in scene.label["tokens"] if t["state"] == "under")
    assert under["hidden_share"] > 0.05
    reading = read_frame(scene.image)
    assert reading.verdict == "rearrange", reading.reason
    monkeypatch.setattr(reader, "EDGE_FIT_NEIGHBOUR_RADII", 0.0)  # no face fitted by its edge
    # the halves' waist stops it too (reader.SPLIT_HALVES_MAX_WAIST_RADII, eighteenth round) ...
    without_fit = read_frame(scene.image)
    assert without_fit.verdict == "uncertain" and "cut from blobs" in without_fit.reason, without_fit.reason
    # ... and so does their distance by their edges (without the fits, by
    # their centroids: 1.86; reader.SPLIT_HALVES_MIN_EDGE_DIST_RADII, nineteenth round) ...
    monkeypatch.setattr(reader, "SPLIT_HALVES_MAX_WAIST_RADII", math.inf)
    without_waist = read_frame(scene.image)
    assert without_waist.verdict == "uncertain" and "by their edges" in without_waist.reason, without_waist.reason
    # ... and with none of them, it is the wrong outcome it was
    monkeypatch.setattr(reader, "SPLIT_HALVES_MIN_EDGE_DIST_RADII", 0.0)
    assert read_frame(scene.image).verdict == "outcome"


def _leaning_720196():
    return render_scene(720196, "overlap", size=(640, 480), conditions={"overlap_style": "leaning"})


def test_720196_is_a_leaning_overlap_of_two_whites():
    """The scene of the open class below is what it is said to be (known
    values of its label): a white token leaning on a white one, hiding 9.7 %
    of it, so its verdict is rearrange."""
    label = _leaning_720196().label
    assert label["verdict"] == "rearrange"
    under = next(t for t in label["tokens"] if t["state"] == "under")
    over = next(t for t in label["tokens"] if t["state"] == "overlapped")
    assert under["face"] == over["face"] == "white"
    assert under["hidden_share"] == pytest.approx(0.097, abs=0.001)


def test_a_white_face_under_a_leaning_white_is_not_an_outcome(monkeypatch):
    """Real pixels: fresh leaning overlap 720196 at 640x480 (camera tilted
    17 degrees; the scene is checked above).  The two blobs are whole, so
    each keeps its centroid, 1.857 radii apart, past the overlap bound; the
    lower face's blob is bitten towards the upper one (its hull adds 0.050 of
    a face, 0.32 radii off its centre, at cosine 1.00), so it is partly under
    it (``bites._bitten_blob_faces``).  Without that rule: four flat tokens
    with the right red count, a wrong outcome.  (``vision.overlap_edges``
    catches it too: 1.76 of the faces' own edge radii apart; it is switched
    off here as well, so the counterfactual stays the bites rule's.)"""
    from vision import bites, overlap_edges

    scene = _leaning_720196()
    reading = read_frame(scene.image)
    assert reading.verdict == "rearrange", reading.reason
    monkeypatch.setattr(bites, "BLOB_BITE_MIN_AREA", math.inf)  # no blob face taken for bitten
    assert read_frame(scene.image).verdict == "rearrange"  # by the faces' edges
    monkeypatch.setattr(overlap_edges, "EDGE_OVERLAP_RULE", False)
    assert read_frame(scene.image).verdict == "outcome"
