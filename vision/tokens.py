"""Stage 2: find token candidates in the canonical view and measure their shape.

Three detectors work together, all on the plate-background residual of
:class:`vision.canonical.CanonicalView` (so the plate's glaze and the rim's
shading are already taken out):

* **Blobs**: regions whose colour differs strongly from the plate (red faces,
  side walls, upright tokens, a stick, the bowl).  Each blob's shape (area,
  ellipse axes, solidity) is compared with one token's face; a thin, even arc
  along the rim or the well's wall is their own highlight or shadow.  The
  shape measurements (rim arcs, the token radius at half contrast, touching
  and overlapping pairs) are in :mod:`vision.blobshape`.
* **Faint discs**: a zero-mean matched filter, the mean residual over a disc
  of the token radius minus the mean over a ring just outside, on all three
  Lab channels, checked in eight sectors.  It finds pale faces; a weaker find
  beside a clear face in that face's colour direction is its halo or
  reflection, and two finds side by side may be a touching pair.
* **Outlines** (:mod:`vision.outline`): a thin circle darker than both its
  sides on L*, for a white face on a white plate that shows only its edge;
  the search for them and its suspects are in :mod:`vision.outline_faces`.

Evidence too weak to count but too strong to ignore is returned as
``suspects``: the reader abstains rather than count four where there may be
five.

Whether a blob's face is partly under a neighbour, told by the bite the
neighbour takes out of its region, is judged in :mod:`vision.bites`.
:class:`Candidate`, what this stage hands on, is defined in
:mod:`vision.candidates` and re-exported here.

All four tokens of a set have the same size, so the token radius is measured
once per frame from the clearest discs.  Distances are canonical pixels unless
a name ends in ``_frac`` (a fraction of the plate radius).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from . import outline_faces
from .bites import _bitten_blob_faces, _weak_overlaps
from .blobshape import (DISC_AREA_RANGE, PAIR_MAX_AREA, PAIR_MAX_DIST_RADII, PAIR_MAX_NECK_RADII, SPECK_MAX_AREA,
                        SPECK_SUSPECT_MIN_AREA, TOUCHING_MIN_DIST_RADII, axis_angle_diff_deg, faces_at_half_contrast,
                        half_max_radius, is_rim_arc, pair_neck_width, split_pair,
                        face_at_half_contrast)
from .grids import open_grid
from .touching_lobes import touching_lobes
from .rim_arc_face import without_rim_arcs
from .dropped_bar import dropped_bars_as_uprights
from .faint_beside_bar import faint_finds_beside_bars
from .upright_in_image import stands_in_image
from .candidates import Candidate, _Blob, _blank, _face_differs, _mean_residual, _patch_around
from .canonical import CanonicalView
from .colour import lab_to_bgr
from .discs import (  # noqa: F401  (re-exported: the disc filter used to live here)
    DISC_FACE_FRAC,
    DISC_SURROUND_FRAC,
    EDGE_SECTOR_SHARE,
    RADIUS_SCAN_STEP,
    SUPPORT_SECTORS,
    _DiscFilter,
    _circular_dft_length,
    _column_means,
    _disc_kernel,
    _disc_window,
    sector_of,
    _peak_kernel_px,
    _peak_neighbourhood,
    _peaks,
    _radius_scan,
    _sector_columns,
    _sector_window,
    _true_box,
    contrast_clear_of,
    disc_response,
    sector_support,
)
from .exposure import SATURATED_MIN_LEVEL, linear_light
from .faint_faces import (  # noqa: F401  (re-exported: these used to live here)
    FAINT_MAX_AREA,
    FAINT_MIN_AXIS_RATIO,
    PAIR_MIN_WIDTH_SHARE,
    RADIUS_MIN_ROUND_FACES,
    _radius_at_half_contrast,
    _radius_from_faint_faces,
    _zeroed_where,
    faint_extent,
)
from .outline import (  # noqa: F401  (the public names re-exported: the outline filter used to live here)
    DEFAULT_OUTLINE_RULE,
    OUTLINE_GAP_PX,
    OUTLINE_HALF_WIDTH_PX,
    OUTLINE_KEPT_MASK_RADII,
    OUTLINE_MIN_CENTRE_DIST_RADII,
    OUTLINE_MIN_CONTRAST_L,
    OUTLINE_MIN_EVENNESS,
    OUTLINE_MIN_SECTORS,
    OUTLINE_MIN_VISIBLE_SHARE,
    OUTLINE_MIN_Z,
    OUTLINE_RADIUS_FACTORS,
    OUTLINE_SECTORS,
    OUTLINE_SIDES_FRAC,
    OUTLINE_SUSPECT_MIN_CONTRAST_L,
    OUTLINE_SUSPECT_MIN_SECTORS,
    OutlineRule,
    _sectors_sorted,
    best_outline_z,
    outline_response,
    outline_responses_in_box,
    strongest_in_window,
    outline_support,
    shadow_side_contrast,
)
from .outline_faces import _closed_outline, _outline_faces
from .faces import DARK_RED_MIN_DELTA_A, RED_MIN_DELTA_A, WHITE_MAX_DELTA_A
from .plate import median_and_noise

#: Disc-like evidence this strong (Lab units, with at least SUSPECT_MIN_SECTORS
#: sectors) that was not accepted as a token is reported, so the reader can
#: abstain rather than count four where there may be five.
SUSPECT_MIN_CONTRAST = 3.0
SUSPECT_MIN_SECTORS = 6
#: The second look for suspects: local maxima of the disc filter this many
#: token radii apart (a face's own peak is the maximum of its face), away from
#: the peaks already examined by as much.
SECOND_PEAK_MIN_DIST_RADII = 1.0
#: Suspects are looked for with their centre inside this fraction of the plate
#: radius: everywhere a token on the plate can lie, beyond the faint search.
SUSPECT_SEARCH_RADIUS_FRAC = 0.92
#: ... unless it lies within this many token radii of a kept token ...
SUSPECT_EXCLUSION_RADII = 2.0
#: ... except a suspect this many token radii or more from every kept token
#: (touching faces' centres are 2.0 radii apart, the kept token's centre
#: found to a tenth of a radius either way) that is a whole round disc of its
#: own (contrast in every sector, ``ROUND_SUSPECT_MIN_CONTRAST``, and
#: token-like: its region one face, not a crescent): a kept token's own
#: shadow or wall is a crescent on its side, never a whole disc beyond it.
#: Fresh scene 1374250 at 800x600 (five tokens, painted rings, the fifth
#: placed touching): a white face a cobalt ring ran past was missed, its
#: round suspect (7.3 Lab, 8 of 8 sectors) 1.89 radii from the red touching
#: it dropped, and four read as an outcome.  (For an uneven outline beside a
#: face counted by its outline, see ``vision.outline_faces``.)  A/B against
#: the rule off on fresh seeds 1390000-1394999 (five tokens, the fifth placed
#: touching: 400 at 640x480, 400 at 1280x720, 300 with painted rings at
#: 1280x720; four flat tokens: 400 at 640x480, 300 with painted rings at
#: 1024x768; touching: 300 at 800x600): no reading changed, 0 wrong either
#: side; on the bench only s0_024_touching scaled to 1920x1080 and 3840x2160
#: (four tokens, one missed) went from reshake to uncertain.  Every suspect
#: from 1.8 radii instead (``SUSPECT_EXCLUSION_RADII`` = 1.8) abstains on 6
#: of the 229 right four-flat readings of seeds 1391000-1391399 at 640x480
#: (a kept token's own shadow or wall).
TOUCHING_SUSPECT_MIN_RADII = 1.8
#: Switch for that rule; False: every suspect within
#: ``SUSPECT_EXCLUSION_RADII`` of a kept token is dropped, as before.
TOUCHING_SUSPECTS_STAY = True
#: Such a round suspect's region (token-like) is measured with the discs
#: (``token_r``) of the kept faint faces (disc-filter finds, whose pixels,
#: unlike a blob's, stay in the residual) within ``SUSPECT_EXCLUSION_RADII``
#: of it blanked, when it is not token-like with them in: on the residual
#: projected on a face's own colour a lighter face touching it joins its
#: region.  Fresh scene 1400185 at 800x600 (five tokens, painted rings, the
#: fifth placed touching; black lacquer, defocus): no blob (threshold 62.9
#: Lab), the four faces found all faint finds; the missed pinkish red's peak
#: (8 of 8 sectors, 20.8 Lab) lay 1.89 radii from the white it touches, but
#: its region took in that white (1.93 face areas, axis ratio 0.68), the
#: suspect was dropped and four read 2 red as an outcome.  With the white's
#: disc blanked its region is one face (1.03 face areas, axis ratio 0.91).
#: The rule only adds suspects.
TOUCHING_SUSPECT_FAINT_BLANKED = True
#: A peak the disc filter's first search suppressed (see
#: :func:`_suppressed_peaks`) within ``SUSPECT_EXCLUSION_RADII`` of a
#: candidate is judged at the centre of its region (:func:`faint_extent` on
#: the residual with the blobs out; a peak beside a face leans toward it), if
#: that centre is at most ``FACING_SUSPECT_MAX_SHIFT_RADII`` from the peak,
#: this many token radii or more from every candidate and within
#: ``SUSPECT_EXCLUSION_RADII`` of clear faces (blob candidates) only.  There
#: the sectors facing those faces' claimed pixels are left unmeasured (as the
#: outline search leaves the sectors a kept token hides,
#: :func:`_support_facing_clear`): it is a suspect (never a token) when at
#: least ``FACING_SUSPECT_MIN_MEASURED`` sectors are measured, every one of
#: them shows the disc's contrast, the contrast over the measured pixels
#: reaches the suspect floor and its core differs from the plate
#: (``SUSPECT_MIN_CORE_SHARE``); it then passes the suspects' other tests,
#: with this distance in place of ``SUSPECT_EXCLUSION_RADII``.  The rule only
#: adds suspects (abstentions).  Fresh scene 1374948 at 800x600 (five tokens,
#: painted rings, the fifth placed touching): the only white face, 5.4 Lab
#: from a cream plate at its centre and crossed by a cobalt ring, lost its
#: peak to a stronger one (its shadow and the ring) that was then dropped;
#: its own peak, 1.69 radii from the red touching it and 9 px off its centre
#: toward the red, had 5 of 8 sectors because the red's claimed pixels blank
#: its ring on that side, and four red read as an outcome.  At its region's
#: centre (1.69 radii from the red) 4 of 4 measured sectors pass, 11.5 Lab.
#: A kept face's own shadow or wall lies nearer than this (a crescent on its
#: side).
FACING_SUSPECT_MIN_RADII = 1.65
FACING_SUSPECT_MIN_MEASURED = 4
FACING_SUSPECT_MAX_SHIFT_RADII = 0.75
#: Switch for that rule; False: such a peak is dropped, as before.
FACING_SUSPECTS_STAY = True
#: ... or is weaker than this share of the weakest kept faint face ...
SUSPECT_REL_CONTRAST = 0.5
#: On a frame where no face is a clear blob (every face counted is faint: white
#: faces on a pale plate), a fifth face can be fainter still: there the two
#: floors above are these (fresh scene 37868: five white faces on an
#: over-exposed celadon plate, the four counted 5-11 Lab, the fifth 2.3).
SUSPECT_MIN_CONTRAST_ALL_FAINT = 2.0
SUSPECT_REL_CONTRAST_ALL_FAINT = 0.4
#: The relative floor holds only for evidence like the faint faces: a find
#: whose core is at least this much redder (a* units) than every faint face's
#: is a face of the other colour (see ``_other_colour``; the bound the face
#: stage asks of a dark red over the plate, ``faces.DARK_RED_MIN_DELTA_A``).
RED_AMONG_FAINT_MIN_DELTA_A = 8.0
#: ... and a white face can differ from the plate by no more lightness than
#: the plate leaves below the sensor's ceiling (L* of this): where the plate
#: is that bright, the floor relative to the faint faces is taken of that
#: room instead (fresh scene 78102 at 640x480: five white faces on an
#: over-exposed pale-blue plate, four 10.9-16.7 Lab where the plate is L* 87-92;
#: the fifth, on the plate's highlight at L* 97.8, 4.2 Lab, under 0.4 of them).
LIGHTNESS_CEILING_L = 100.0
#: On a frame whose clear faces (``disc`` blobs) show both colours, a fifth
#: face of either colour differs from the plate about as much as the counted
#: faces of its colour do (they share its plate and light; shade scales a
#: face's difference, it does not remove it): a suspect weaker than this
#: share of the weakest clear face is plate texture, with the same room
#: below the ceiling taken into account as for the faint faces (see
#: ``_both_colours_contrast``).  Half of ``SUSPECT_REL_CONTRAST``: the clear
#: faces are measured in full light or shade wherever they lie.
BOTH_COLOURS_SUSPECT_REL_CONTRAST = 0.25
#: ... or its region is not token-like: area (face areas) and axis ratio.
SUSPECT_AREA_RANGE = (0.4, 1.6)
SUSPECT_MIN_AXIS_RATIO = 0.5
#: ... or its face part barely differs from the plate (share of its contrast):
#: the contrast came from the surround ring alone (a band of plate shading).
SUSPECT_MIN_CORE_SHARE = 0.3
#: A disc-filter suspect inside the well (its centre within
#: ``ROUND_SUSPECT_MAX_RADIUS_FRAC`` of the plate radius, set below with the
#: faint search's radii) with contrast in all eight sectors and at least this
#: contrast (Lab units) stands even when its region is not token-like (see
#: find_tokens).
ROUND_SUSPECT_MIN_CONTRAST = 6.0
#: ... and so does one of at least this contrast whose core is redder than
#: every candidate's (a face of the other colour; see ``_other_colour``).
OTHER_COLOUR_SUSPECT_MIN_CONTRAST = ROUND_SUSPECT_MIN_CONTRAST
#: ... and at least this much redder than the plate (a*; the face stage's
#: bound for a dark red face, ``faces.DARK_RED_MIN_DELTA_A``): next to white
#: faces that are greener than a warm-lit plate (a* 20 below it on orange-lit
#: lacquer), the plate's own highlights are redder than the faces too (forced
#: four flat tokens 150127: a* 1 and 5.5 above the plate; the red face of
#: 216943: 11-12).
OTHER_COLOUR_SUSPECT_MIN_DELTA_A = DARK_RED_MIN_DELTA_A
#: Tokens in a round: an outcome needs exactly this many flat faces.
TOKENS_PER_ROUND = 4
#: A disc-filter find this close to a clear face (token radii), in the same
#: colour direction (cosine) and at most this share of its difference from
#: the plate, is that face's halo or reflection (see ``_drop_echoes``).
ECHO_MAX_DIST_RADII = 2.5
ECHO_MIN_COSINE = 0.9
ECHO_MAX_REL_CONTRAST = 0.5
#: A disc-filter find (a face or part of one) whose colour difference from
#: the plate points away from every other pale face's (cosine at most this),
#: and is smaller than theirs (``LEAN_MAX_REL_NORM``), is the bare plate where
#: the ring model leans toward those faces (see ``_drop_leans``).
LEAN_MAX_COSINE = -0.7
#: The kinds of find that test applies to.
LEAN_KINDS = ("faint", "partial")
#: How large such a find may be: this fraction of the largest pale face's
#: colour difference.  A ring's median leans at most to the faces' own colour, so a
#: lean is never larger than their difference (a bound of 1); a find nearly as
#: large as the faces may instead be a white face in shade, so the bound is
#: kept below that.  Finds dropped on 6,800 synthesized scenes (14 sets,
#: 2026-12-03) spread evenly up to it: there is no gap to set it in.
LEAN_MAX_REL_NORM = 0.75
#: A face partly under a blob (see ``_partly_under``): sectors of its disc
#: contrast (of 8), distance from the blob's centre (token radii), and the
#: largest cosine between its colour difference and the blob's.
HIDDEN_MIN_SECTORS = 5
#: A faint find this close to another candidate (token radii) whose face
#: differs from the plate by less than this share of its disc contrast may be
#: the plate between tokens (see ``_gaps_between``).
GAP_MAX_DIST_RADII = 2.3
GAP_MAX_CORE_SHARE = 0.5
HIDDEN_MIN_DIST_RADII = 0.8
HIDDEN_MAX_COSINE = 0.5
#: A face partly under a blob found 1.7-1.85 token radii from it (below the
#: face threshold) must differ from the plate in its own core by at least
#: this share of its disc contrast (see ``find_tokens``).
HIDDEN_MIN_CORE_SHARE = 0.5
#: A disc-filter suspect whose ring reaches a kept token is measured again
#: with every kept token left out to this many token radii (the filter's own
#: surround, where a token's shadow and side wall lie): it stays a suspect
#: when it keeps the floor's contrast there, or when less than
#: ``KEPT_CLEAR_MIN_RING_SHARE`` of its ring is left to tell.  A fifth face
#: differs from the plate all round; a token's shadow seen through another
#: disc's ring does not (synthesized scenes 42151, 42450: the plate just
#: beyond four faces' shadows, 2.2 radii out, 1.4-3.1 Lab, 0.5 once the
#: faces were left out).
KEPT_HIDE_RADII = 1.6
KEPT_CLEAR_MIN_RING_SHARE = 0.5
#: A blob is a token's side wall or shadow, not a token (see
#: ``_is_dark_crescent`` and ``_on_rim``), when it covers at most this many face areas, is a crescent
#: (solidity at most this), is this much darker than the plate (L units) and
#: more dark than coloured; it belongs to a face when this share of its
#: pixels lies within this band of token radii around the face's centre.
WALL_MAX_AREA = 0.35
WALL_MAX_SOLIDITY = 0.7
WALL_MIN_DARK_L = 15.0
WALL_MIN_RIM_SHARE = 0.8
WALL_RIM_RADII = (0.5, 1.6)
#: Candidates whose rim can carry a wall: faces seen whole or in part.
WALL_FACE_KINDS = ("disc", "faint", "outline", "partial", "overlap", "upright")
#: A disc-filter or outline find whose face is this much darker than the
#: plate (L units; the faint-disc contrast floor, EDGE_MIN_CONTRAST) and more
#: dark than coloured is the plate's shading when every clear face in the
#: frame is lighter than the plate (see ``_split_shading``) ...
SHADING_FIND_MIN_DARK_L = 5.0
#: ... and no lighter than the plate in the ring this many token radii
#: around it (a face in a local shadow is lighter than that shadow).
SHADING_RING_RADII = (1.2, 1.7)
#: A suspect (a disc-filter peak, an outline beside a counted face, a face
#: against the wall) whose face part is only dark and no lighter than the
#: plate around it is the plate's shading, by the test and bounds
#: :func:`_split_shading` applies to the finds that would be counted
#: (``SHADING_FIND_MIN_DARK_L``, ``SHADING_RING_RADII``), on a frame where
#: every clear face is lighter than the plate
#: (:func:`_plate_darker_than_faces`): a face there, red or white, is
#: lighter than the plate, in shade lighter than the shade around it.
#: Four flat tokens on black lacquer, 640x480 (1340038, 1340083, 1340172,
#: 1340201): the lacquer's dark reflection band beside a counted face, its
#: core 6.9-17.8 L darker than the ring model and more dark than coloured,
#: stopped four right outcomes as "check for a fifth token".  A wall (a dark
#: crescent not on a counted face's rim) is not judged by it: it is a face's
#: shadow side whose face was missed.  A/B against False on fresh seeds
#: (2026-12-05): four flat 1350000-1350399 at 640x480 224 -> 225 right;
#: five tokens 1350400-1350799 at 640x480, 1350800-1351199 at 1280x720 and
#: 1351200-1351599 with painted rings at 800x600 unchanged (336, 331, 233);
#: natural mix 1351600-1351999 at 1280x720 280 -> 282 (an upright and a
#: three-token reshake no longer held by a dark suspect); 0 wrong on either
#: side; a fifth token placed 2.03-2.4 radii from another or at the well's
#: foot on black lacquer (300 scenes, a layout the synthesizer's
#: five_tokens never draws) read the same either way, none an outcome.
#: ``SHADING_SUSPECTS_DROPPED`` False: every such suspect stands, as before.
SHADING_SUSPECTS_DROPPED = True
#: Token face radius range, fraction of the plate radius, when no profile says otherwise.
DEFAULT_TOKEN_RADIUS_FRAC = (0.07, 0.20)
#: A pixel belongs to a blob when it differs from the plate by this much (Lab units) ...
BLOB_MIN_DELTA_E = 14.0
#: ... or by this many times the plate's own residual noise, whichever is larger.
BLOB_NOISE_UNITS = 5.0
#: Blobs are looked for out to this fraction of the plate radius.
BLOB_SEARCH_RADIUS_FRAC = 0.9
#: A blob reaching beyond this fraction of the plate radius crosses the rim.
RIM_CROSSING_FRAC = 0.87
#: Shape of a single flat face: minor/major axis ratio and solidity.
DISC_MIN_AXIS_RATIO = 0.72
DISC_MIN_SOLIDITY = 0.90
#: A blob larger than this many face areas, or longer than this many token
#: radii, that is no pair of faces is an object (a stick, a hand, the bowl).
OBJECT_MIN_AREA = 3.0
OBJECT_MIN_LENGTH_RADII = 4.5
#: A strong blob that is one region at half its contrast, two round lobes of
#: a face each (:func:`vision.touching_lobes.touching_lobes`), is two touching
#: faces, not an object.  False: such a blob stays an object, as before.
TOUCHING_LOBES_SPLIT = True
#: A flat face is this round (minor / major) in the canonical view; the
#: reader abstains on a face less round (a tilted or standing token).
FLAT_FACE_MIN_AXIS_RATIO = 0.85
#: A pale face on a tinted plate is often cut by the blob threshold where its
#: lit or shaded side comes close to the plate, leaving a lopsided part of the
#: disc.  A blob disc less round than ``FLAT_FACE_MIN_AXIS_RATIO`` and at most
#: ``WHOLE_FACE_MAX_BLOB_AREA`` face areas is measured again as the whole
#: region that differs from the plate the way its centre does
#: (:func:`faint_extent`, the other candidates taken out); when that region is
#: one face (``WHOLE_FACE_AREA_RANGE`` face areas) and at least
#: ``WHOLE_FACE_MIN_AXIS_RATIO`` round, that is the face's shape.  A tilted
#: token's face stays an ellipse, and two faces one partly on the other make
#: a region larger than one face.
WHOLE_FACE_MAX_BLOB_AREA = 1.1
WHOLE_FACE_AREA_RANGE = (0.8, 1.2)
WHOLE_FACE_MIN_AXIS_RATIO = 0.9
#: A bar or part of a face becomes the round region around it only when that
#: region is not only dark (:func:`_dark_not_coloured` with this many L units,
#: the plate-shading bound): a token on edge casts a shadow beside its bar.
WHOLE_FACE_SHADOW_MIN_DARK_L = SHADING_FIND_MIN_DARK_L
#: ... nor a shadow in linear light (:func:`_shadow_in_linear_light`): a
#: shadow is the plate dimmed, every channel's light falling by one factor,
#: except that a channel at the sensor's ceiling on the plate (at least
#: ``WHOLE_FACE_SHADOW_CLIPPED_LEVEL``, 8-bit) may fall less, its light past
#: the ceiling unseen.  There the Lab test above is blind: the clipped
#: channel keeps the shadow's colour from falling with its lightness (fresh
#: scene 1128561 at 800x600: a white-faced token with a red body on edge on
#: a gold plate at 2844 K, +0.41 stops, the plate's red at 253 of 255; its
#: bar and soft shadow one round region, core 19.9 L darker and 25.6 a*
#: redder than the plate, read as a red face lying flat: a wrong outcome.
#: In linear light the region's green and blue fell to 0.41 and 0.35 of the
#: plate's, its red only to 0.80).  A region is such a shadow when its every
#: channel keeps at least 1 / ``WHOLE_FACE_SHADOW_MAX_FALL_RATIO`` of the
#: light the unclipped channel that fell least keeps: the unclipped channels
#: fall alike, the clipped ones no further.  A face is not the plate dimmed:
#: a red face on gold keeps a tenth of the plate's green and a third of its
#: blue, a white face more blue than gold has; a red face on a white plate
#: keeps its red.  At least ``WHOLE_FACE_SHADOW_MIN_UNCLIPPED_CHANNELS``
#: channels must be below the ceiling on the plate, for a fall to be alike
#: to another: a red face on a plate whose red and green are at the ceiling
#: keeps about as much green as blue (natural scene 1145137 at 640x480, a
#: face at 0.34 and 0.35 of the plate's; its red 1.0).  Bars and parts
#: turned into a face that was one, natural mix 1145000-1146999 and forced
#: four flat tokens 1147000-1147999 at 640x480, forced upright with decor
#: 1148000-1148599 at 800x600: 10 of 123 darker than the plate by the Lab
#: bound, all red faces; 8 with two channels below the ceiling, one channel
#: keeping 3.6-45 times the light another keeps (the shadow above: 1.16), 2
#: with fewer.
#: ``WHOLE_FACE_SHADOW_LINEAR`` False: the Lab test alone.
WHOLE_FACE_SHADOW_LINEAR = True
WHOLE_FACE_SHADOW_CLIPPED_LEVEL = SATURATED_MIN_LEVEL
WHOLE_FACE_SHADOW_MAX_FALL_RATIO = 1.5
WHOLE_FACE_SHADOW_MIN_UNCLIPPED_CHANNELS = 2
#: An upright token from above: thinner than this axis ratio ...
UPRIGHT_MAX_AXIS_RATIO = 0.62
#: ... smaller than this fraction of a face's area ...
UPRIGHT_MAX_AREA = 0.8
#: ... as long as a face is wide (its diameter, in token radii; a bar longer
#: only in the canonical view is measured again in the camera's image,
#: :mod:`vision.upright_in_image`) ...
UPRIGHT_LENGTH_RADII = (1.3, 2.8)
#: ... and as contrasted as a side wall seen edge-on (Lab units); a bar of
#: lower contrast counts only when it covers at least this many face areas
#: (no speck: SPECK_MAX_AREA) and is this solid (a pale face's fragments are
#: ragged) ...
UPRIGHT_MIN_CONTRAST = 20.0
UPRIGHT_PALE_MIN_AREA = SPECK_MAX_AREA
UPRIGHT_PALE_MIN_SOLIDITY = 0.9
#: A token standing on edge seen as a bar so thin that blur takes its middle
#: below the blob threshold breaks into fragments each smaller than a blob
#: may be (``_blobs``' minimum area): the blob search drops the bar, and the
#: disc filter finds the bar and the token's soft round shadow beside it as
#: one faint face (fresh upright scene 1681587 at 1280x720: a white token on
#: edge on white porcelain, its bar two fragments of 33 and 36.5 px at
#: threshold 15.4 Lab, 0.035 and 0.039 face areas; the faint find 0.42 token
#: radii from the bar's centre; four tokens read, a wrong outcome).  A faint
#: or outline find is that token, counted ``upright``, when pixels of at least
#: ``dropped_bar.DROPPED_BAR_HYSTERESIS`` times the blob threshold, joined to those above
#: it and not claimed by a blob candidate, make a straight bar
#: (:func:`vision.dropped_bar.dropped_bar`) whose centre lies within
#: ``dropped_bar.DROPPED_BAR_REACH_RADII``
#: token radii of the find's.  False: no such bar is looked for, as before.
#: A/B on fresh seeds (900 frames: upright 1690000-1690299 at 1280x720,
#: outcome 1690300-1690599 at 640x480, natural mix 1690600-1690899 at
#: 1280x720): no verdict changed, 0 wrong either side; check_same 0
#: differences, studio 77 right 0 wrong.
DROPPED_BAR_BESIDE_FAINT = True
#: A bar-shaped blob lighter than the plate, its centre beyond this fraction
#: of the plate radius and its long axis within ``SLOPE_HIGHLIGHT_MAX_ANGLE_DEG``
#: of the rim's direction there, is a highlight on the well's slope, not a
#: token on edge (a short piece of what :func:`vision.blobshape.is_rim_arc`
#: takes out when long).  Forced upright scenes 243000-243999 at 640x480: the
#: 719 bars found on the true upright token lay at most 0.733 of the plate
#: radius from its centre; 16 false bars on black lacquer and gold lay at
#: 0.756-0.894, all within 4.1 deg of the rim's direction and 9-63 L lighter
#: than the plate (false uprights of forced four flat tokens 277000-277999:
#: 8 of 20 frames).
SLOPE_HIGHLIGHT_MIN_RADIUS_FRAC = 0.8
SLOPE_HIGHLIGHT_MAX_ANGLE_DEG = 10.0
#: ... and no other candidate's centre is this close (token radii): the
#: visible sliver of a face partly under a token lies within 2.2 radii of
#: that token's centre, and is as thin as a token's side.
SLIVER_MAX_DIST_RADII = 2.2
#: A faint disc counts when face and surround differ by this much (Lab units) ...
EDGE_MIN_CONTRAST = 5.0
#: ... and by this many times the filter's own robust noise level ...
EDGE_NOISE_UNITS = 5.0
#: ... and the difference holds, in the same colour direction, in at least this
#: many of the eight sectors around the centre (a shading gradient or a
#: texture fails this; a real disc passes it all round).
EDGE_MIN_SECTORS = 7
#: A region this round (minor / major) is one face even when it measures up
#: to this many face areas (its halo or shadow included): two faces, one
#: partly on the other, are never this round beyond 1.1 face areas.
FAINT_ROUND_MIN_AXIS_RATIO = 0.92
FAINT_ROUND_MAX_AREA = 1.6
#: Candidates that are one flat face each.
FLAT_KINDS = ("disc", "faint", "outline")
#: Blob pixels are masked out of the faint-disc search, grown by this fraction of the token radius.
BLOB_GUARD_FRAC = 0.25
#: Faint discs are looked for with their centre inside this fraction of the
#: plate radius (the flat of the well: the search's noise level, the outline
#: search and the partly-hidden rule work there) ...
FAINT_SEARCH_RADIUS_FRAC = 0.72
#: ... and a find out to this fraction (a token lying against the well's
#: wall) counts too when its region is one whole round face; any other find
#: there is only a suspect (the wall's shading draws arcs and part-discs).
FAINT_ACCEPT_RADIUS_FRAC = 0.80
#: A disc-filter suspect with contrast all round (``ROUND_SUSPECT_MIN_CONTRAST``)
#: stands with its centre within this fraction of the plate radius: as far out
#: as a face's centre may lie (``FAINT_ACCEPT_RADIUS_FRAC``: a token against
#: the well's wall), not only on the flat of the well
#: (``FAINT_SEARCH_RADIUS_FRAC``).  By the wall the wall's shading joins a
#: face's region, so it is not token-like there all the more (scene 1050276
#: at 640x480: a fifth, dark red face on black lacquer 0.722 of the plate
#: radius out, 18.9 Lab in all eight sectors, its region 1.76 face areas at
#: axis ratio 0.39, was dropped and four tokens were read).  A/B against
#: 0.72: 1 right outcome of 2,000 natural 640x480 scenes fewer, none of
#: 1,000 at 1280x720, 600 four-flat or 1,000 five-token scenes.
ROUND_SUSPECT_MAX_RADIUS_FRAC = FAINT_ACCEPT_RADIUS_FRAC
#: A disc-filter suspect dark in too few sectors to be a face (an edge
#: suspect) whose region is not token-like still stands when a dark outline
#: that passes the outline rule (:func:`_outline_near`) is centred within
#: this many token radii of it: a pale face the plate's own colour shows only
#: its edge and shadow, so the disc filter peaks on the shadow crescent, off
#: the face's centre, and the region around that peak (connected to it, at
#: half its dark contrast) misses the plate-coloured face inside the
#: crescent.  Fresh scene 1192453 at 1000x1000 (five tokens, white porcelain
#: with painted rings, grey white faces, camera tilted 27 deg): a fifth,
#: white face 0.725 of the plate radius out (just beyond the outline search,
#: ``FAINT_SEARCH_RADIUS_FRAC``) showed only its outline (16 of 16 sectors,
#: 9.4 L, evenness 0.36, centred 8 px from the disc filter's peak of 6.4 Lab
#: in 6 sectors on its shadow); the peak's region was empty, the suspect
#: dropped, and four tokens read as an outcome.  One token radius: a face's
#: own edge passes through the disc filter's core only when its centre lies
#: within about that of the peak.  The outline's centre must lie where a
#: face's may (inside ``FAINT_ACCEPT_RADIUS_FRAC``, at least
#: ``SUSPECT_EXCLUSION_RADII`` from every kept token), and the kept tokens
#: are left out of it to ``KEPT_HIDE_RADII`` (their shadow and wall, as for
#: :func:`_stands_clear`): on painted porcelain the well's wall (0.84 of the
#: plate radius) and a red's shadow beside it (1.9 radii away) drew such
#: circles of 3.2-3.9 L (fresh scenes 1214387 and 1214242 at 1024x768, right
#: outcomes that abstained without those bounds).
SHADOWED_FACE_OUTLINE_REACH_RADII = 1.0
#: Switch for that rule; False: an edge suspect that is not token-like is
#: dropped whatever outline surrounds it, as before.
SHADOWED_FACE_OUTLINE_STAYS = True
#: That rule's outline filters are computed only around each suspect it
#: judges (:func:`vision.outline.outline_responses_in_box`: the same values,
#: up to float32 rounding), not over the whole canvas: on the frames where it
#: looks (about one in two of the bench's), the three filters of the canvas
#: cost 1-2 ms at 1080p.  False: the whole canvas's, as before.
SUSPECT_FILTER_CROP = True
#: Blobs this many times above the blob threshold measure the token radius.
RADIUS_MIN_CONTRAST_RATIO = 2.0
#: A faint disc's centre must be this many token radii from any blob's centre.
FAINT_MIN_BLOB_DIST_RADII = 1.7


@dataclass(frozen=True)
class TokenSearch:
    """Result of :func:`find_tokens`.

    Attributes
    ----------
    candidates : tuple of Candidate
        Every candidate kept, empty when nothing was found.
    token_radius_px : float
        The frame's token radius, canonical pixels (0 when unknown).
    radius_source : str
        ``discs`` when measured on clear discs, ``edges`` when from the
        disc-edge filter's best radius, ``prior`` when from the profile only.
    suspects : tuple of (x, y, contrast)
        Disc-like evidence (canonical pixels, Lab units) too weak to be kept
        as a token but too strong to ignore; and marks of a token's colour too
        small to be one.
    radius_faces : tuple of (x, y)
        Centres (canonical pixels) of the clear discs whose median radius is
        ``token_radius_px`` when ``radius_source`` is ``discs``; empty otherwise.
    blob_threshold_lab : float or None
        :func:`blob_threshold` of the view searched (before
        ``find_tokens``' ``min_blob_threshold_lab``), Lab units; None when
        not recorded.
    well_blob_threshold_lab : float or None
        The blob threshold inside the well (Lab units) when the search held
        the plate beyond it to another (``find_tokens``'s
        ``outer_blob_threshold``); None otherwise (one threshold, that of
        :func:`blob_threshold` and the search's floor).
    """

    candidates: tuple[Candidate, ...]
    token_radius_px: float
    radius_source: str
    suspects: tuple[tuple[float, float, float], ...] = ()
    radius_faces: tuple[tuple[float, float], ...] = ()
    blob_threshold_lab: float | None = None
    well_blob_threshold_lab: float | None = None

    def of_kind(self, *kinds: str) -> tuple[Candidate, ...]:
        return tuple(c for c in self.candidates if c.kind in kinds)


def blob_threshold(view: CanonicalView) -> float:
    """Colour difference (Lab units) above which a pixel belongs to a blob:
    ``BLOB_NOISE_UNITS`` robust standard deviations of the plate's ``delta_e``
    (within ``BLOB_SEARCH_RADIUS_FRAC``) above its median, at least
    ``BLOB_MIN_DELTA_E``."""
    return _blob_threshold(view)[1]


def _blob_threshold(view: CanonicalView) -> tuple[np.ndarray, float]:
    r_frac = view.radius_px / view.plate_radius_px
    inside = r_frac < BLOB_SEARCH_RADIUS_FRAC
    de = view.delta_e[inside]
    median, noise = median_and_noise(de)
    return inside, max(BLOB_MIN_DELTA_E, float(median) + BLOB_NOISE_UNITS * noise)


def _blob_mask(view: CanonicalView, min_threshold_lab: float = 0.0,
               measured: tuple[np.ndarray, float] | None = None,
               outer: tuple[float, float] | None = None) -> tuple[np.ndarray, float]:
    """Pixels above the blob threshold (at least ``min_threshold_lab``),
    opened; and that threshold.  ``measured``: :func:`_blob_threshold` of
    ``view`` when the caller has it.  ``outer`` (radius fraction, Lab units):
    from that fraction of the plate radius out, pixels must also exceed that
    threshold."""
    inside, threshold = _blob_threshold(view) if measured is None else measured
    threshold = max(threshold, min_threshold_lab)
    if outer is None:
        mask = ((view.delta_e > threshold) & inside).astype(np.uint8)
    else:
        r_frac = view.radius_px / view.plate_radius_px
        local = np.where(r_frac >= outer[0], max(threshold, outer[1]), threshold)
        mask = ((view.delta_e > local) & inside).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    return mask, threshold


def _blobs(view: CanonicalView, mask: np.ndarray, min_area_px: float) -> list[_Blob]:
    # Fill holes so a ring (side wall around a pale face) becomes a disc.
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    out: list[_Blob] = []
    r_frac = view.radius_px / view.plate_radius_px
    for cnt in contours:
        area = cv2.contourArea(cnt)
        if area < min_area_px or len(cnt) < 5:
            continue
        filled = np.zeros(mask.shape, np.uint8)
        cv2.drawContours(filled, [cnt], -1, color=1, thickness=cv2.FILLED)
        sel = filled.view(bool)  # (0 or 1: a bool array's bytes)
        # its pixels, row-major, from the contour's bounding box: the same
        # values in the same order as ``delta_e[sel]`` on the whole canvas
        bx, by, bw, bh = cv2.boundingRect(cnt)
        box = (slice(by, by + bh), slice(bx, bx + bw))
        sel_box = sel[box]
        hull_area = cv2.contourArea(cv2.convexHull(cnt))
        (ex, ey), (d1, d2), ang = cv2.fitEllipse(cnt)
        m = cv2.moments(cnt)
        cx, cy = (m["m10"] / m["m00"], m["m01"] / m["m00"]) if m["m00"] > 0 else (ex, ey)
        major, minor = max(d1, d2), min(d1, d2)
        angle = ang if d1 >= d2 else ang + 90.0
        out.append(_Blob(
            x=float(cx), y=float(cy), area=float(area), major=float(major), minor=float(minor),
            angle_deg=float(angle % 180.0), solidity=float(area / hull_area) if hull_area > 0 else 0.0,
            contrast=float(view.delta_e[box][sel_box].mean()),
            crosses_rim=bool((r_frac[box][sel_box] > RIM_CROSSING_FRAC).any()), mask=sel))
    return out


def _partly_under(residual: np.ndarray, bare: np.ndarray, x: int, y: int, radius_px: float,
                  near: list["_Blob"], n_sectors: int) -> bool:
    """True when a disc-filter peak beside blobs is a face partly under one:
    its contrast holds in ``n_sectors`` >= ``HIDDEN_MIN_SECTORS`` of 8
    sectors (:func:`sector_support` with the blobs taken out), its centre is at least
    ``HIDDEN_MIN_DIST_RADII`` from every blob's centre, and its visible part
    (on ``bare``) differs from the plate in a direction at most
    ``HIDDEN_MAX_COSINE`` alike to each nearby blob's (another colour, not the
    blob's own halo, wall or shadow)."""
    if n_sectors < HIDDEN_MIN_SECTORS:
        return False
    if any(math.hypot(x - b.x, y - b.y) < HIDDEN_MIN_DIST_RADII * radius_px for b in near):
        return False
    mine = _mean_residual(bare, x, y, DISC_FACE_FRAC * radius_px)
    mn = float(np.linalg.norm(mine))
    if mn <= 0:
        return False
    blob_means = [residual[b.mask].mean(axis=0) for b in near]
    if _dark_not_coloured(mine) and all(float(theirs[0]) > 0.0 for theirs in blob_means):
        # beside tokens lighter than the glaze (a dark plate, on which every
        # face is lighter too), a find only darker than the glaze is a
        # shadow, not a face; beside darker tokens it is judged as before
        return False
    for theirs in blob_means:
        tn = float(np.linalg.norm(theirs))
        if tn > 0 and float(mine @ theirs) / (mn * tn) > HIDDEN_MAX_COSINE:
            return False
    return True


def _is_dark_crescent(residual: np.ndarray, b: "_Blob", face_area: float) -> bool:
    """True when blob ``b`` looks like a token's side wall or shadow rather
    than a token: small (at most ``WALL_MAX_AREA`` face areas), a crescent
    (solidity at most ``WALL_MAX_SOLIDITY``), and more dark than coloured (L*
    at least ``WALL_MIN_DARK_L`` below the plate, and by more than the
    chroma of its difference from the plate).
    A face partly under a token shows its own colour, and a token standing
    on edge is a convex bar, not a crescent."""
    if b.area > WALL_MAX_AREA * face_area or b.solidity > WALL_MAX_SOLIDITY:
        return False
    return _dark_not_coloured(residual[b.mask].mean(axis=0))


def _dark_not_coloured(diff: np.ndarray, min_dark_l: float = WALL_MIN_DARK_L) -> bool:
    """True when a mean Lab difference from the plate (dL, da, db) is a
    shadow's or a dark side wall's: at least ``min_dark_l`` darker (L units,
    default ``WALL_MIN_DARK_L``), and darker by more than its chroma.  A
    white face is not (it is about as light as a pale plate, lighter than a
    dark one); a dark red face on a white plate can be (L* 67 below it,
    chroma 52), so the callers also ask where the find lies (on a counted
    face's rim; beside tokens lighter than the plate)."""
    dl, da, db = (float(v) for v in diff)
    return dl <= -min_dark_l and -dl >= math.hypot(da, db)


def _on_rim(b: "_Blob", x: float, y: float, radius_px: float) -> bool:
    """True when ``WALL_MIN_RIM_SHARE`` of blob ``b``'s pixels lie within
    ``WALL_RIM_RADII`` face radii of (x, y): along that face's rim."""
    rr, cc = np.nonzero(b.mask)
    d = np.hypot(cc - x, rr - y) / radius_px
    return float(((d >= WALL_RIM_RADII[0]) & (d <= WALL_RIM_RADII[1])).mean()) >= WALL_MIN_RIM_SHARE


def _both_colours_contrast(residual: np.ndarray, cands: list[Candidate], token_r: float) -> float:
    """The weakest clear face's disc contrast when the clear faces show both colours, else 0.

    A clear face is a ``disc`` candidate found as a blob.  It is red when its
    core (mean residual over ``FAINT_PAIR_CORE_RADII`` of a token radius) is
    at least ``RED_MIN_DELTA_A`` redder than the plate, white when it is less
    than ``DARK_RED_MIN_DELTA_A`` redder (not even a dark red); a face between
    the two counts as neither.

    Parameters
    ----------
    residual : ndarray, float32, (H, W, 3)
        Lab residual from the plate model with the blobs in, canonical pixels.
    cands : list of Candidate
    token_r : float
        The frame's token radius, canonical pixels.

    Returns
    -------
    float
        Lab units, measured as a suspect's is (:func:`sector_support`); 0.0
        when there is no clear face of one of the colours.
    """
    clear = [c for c in cands if c.kind == "disc" and c.found_by == "blob"]
    core = FAINT_PAIR_CORE_RADII * token_r
    delta_a = [float(_mean_residual(residual, c.x, c.y, core)[1]) for c in clear]
    if not (any(a >= RED_MIN_DELTA_A for a in delta_a) and any(a < DARK_RED_MIN_DELTA_A for a in delta_a)):
        return 0.0
    return min(sector_support(residual, c.x, c.y, token_r)[1] for c in clear)


def _stands_clear(residual: np.ndarray, x: float, y: float, token_r: float, kept: list[Candidate],
                  floor: float) -> bool:
    """Whether a suspect at (x, y) keeps ``floor`` contrast with the kept
    tokens near it left out (``KEPT_HIDE_RADII``); True when no kept token
    reaches its ring, or too little of the ring is left to tell."""
    reach = (DISC_SURROUND_FRAC[1] + KEPT_HIDE_RADII) * token_r
    near = [(k.x, k.y) for k in kept if math.hypot(x - k.x, y - k.y) < reach]
    if not near:
        return True
    contrast, share = contrast_clear_of(residual, x, y, token_r, near, KEPT_HIDE_RADII * token_r)
    return share < KEPT_CLEAR_MIN_RING_SHARE or contrast >= floor


def _outline_near(lightness: np.ndarray, hidden: np.ndarray, responses: tuple[np.ndarray, ...] | None,
                  centres: np.ndarray, x: float, y: float, token_r: float, rule: OutlineRule,
                  reach_radii: float) -> bool:
    """Whether a dark outline that passes ``rule`` is centred within
    ``reach_radii`` token radii of (x, y), where ``centres`` allows.

    The centre (within reach, on ``centres``) and radius (of
    ``OUTLINE_RADIUS_FACTORS`` times ``token_r``) where
    :func:`outline_response` is largest are judged by
    :func:`outline_support` with ``hidden`` (sectors a kept token hides are
    not measured); only when that response (the circle's contrast, diluted
    by the blanked pixels: at most half the circle may be hidden,
    ``OUTLINE_MIN_VISIBLE_SHARE``) reaches that share of ``rule.min_contrast_l``.

    Parameters
    ----------
    lightness : ndarray, float32, (S, S), L units
        L* residual with the claimed blobs and the kept tokens (with their
        shadow and wall) blanked (0).
    hidden : ndarray, bool, (S, S)
        The blanked pixels.
    responses : tuple of ndarray, float32, (S, S), or None
        ``outline_response(lightness, f * token_r)`` for each factor ``f``
        of ``OUTLINE_RADIUS_FACTORS``, in order; None: computed here on the
        box of centres within reach only
        (:func:`vision.outline.outline_responses_in_box`).
    centres : ndarray, bool, (S, S)
        Where the outline's centre may lie.
    x, y : float
        The suspect, canonical pixels.
    token_r : float
        Token radius, canonical pixels.
    rule : OutlineRule
    reach_radii : float

    Returns
    -------
    bool
    """
    reach = reach_radii * token_r
    s = lightness.shape[0]
    x0, x1 = max(0, int(math.floor(x - reach))), min(s, int(math.ceil(x + reach)) + 1)
    y0, y1 = max(0, int(math.floor(y - reach))), min(s, int(math.ceil(y + reach)) + 1)
    if x0 >= x1 or y0 >= y1:
        return False
    rr, cc = open_grid(y0, y1, x0, x1)  # (h, 1) and (1, w): broadcast below
    within = ((cc - x) ** 2 + (rr - y) ** 2 <= reach ** 2) & centres[y0:y1, x0:x1]
    if not within.any():
        return False
    # the strongest circle within reach, over the radii (one judged: the
    # outline search too judges a centre at its best radius first)
    if responses is None:
        windows = outline_responses_in_box(lightness, (y0, y1, x0, x1),
                                           tuple(f * token_r for f in OUTLINE_RADIUS_FACTORS))
    else:
        windows = tuple(resp[y0:y1, x0:x1] for resp in responses)
    value, cy, cx, i = strongest_in_window(windows, within, (y0, x0))
    factor = OUTLINE_RADIUS_FACTORS[i]
    if not value >= OUTLINE_MIN_VISIBLE_SHARE * rule.min_contrast_l:
        return False
    n_sectors, contrast, evenness = outline_support(lightness, cx, cy, factor * token_r, hidden)
    return _closed_outline(rule, n_sectors, contrast, evenness)


def _token_like(residual: np.ndarray, x: float, y: float, radius_px: float, open_px: int = 0) -> bool:
    area, ratio, *_ = faint_extent(residual, x, y, radius_px, open_px)
    rel = area / (math.pi * radius_px ** 2)
    return SUSPECT_AREA_RANGE[0] <= rel <= SUSPECT_AREA_RANGE[1] and ratio >= SUSPECT_MIN_AXIS_RATIO


def _slope_highlight(b: "_Blob", residual: np.ndarray, plate_radius_px: float, token_r: float) -> bool:
    """Whether a blob is a highlight on the well's slope (see
    ``SLOPE_HIGHLIGHT_MIN_RADIUS_FRAC``): bar-shaped and no larger than a
    token on edge (``UPRIGHT_MAX_AXIS_RATIO``, ``UPRIGHT_MAX_AREA``, at most
    ``UPRIGHT_LENGTH_RADII[1]`` long: anything larger, a stick, stays what it
    is), centred beyond that fraction of the plate radius, along the rim
    there, lighter than the plate (mean L* residual over the blob > 0).  The
    canvas centre is the plate's."""
    if (not b.axis_ratio < UPRIGHT_MAX_AXIS_RATIO or math.isnan(b.angle_deg)
            or b.area >= UPRIGHT_MAX_AREA * math.pi * token_r ** 2 or b.major > UPRIGHT_LENGTH_RADII[1] * token_r):
        return False
    centre = (residual.shape[0] - 1) / 2.0
    dx, dy = b.x - centre, b.y - centre
    if math.hypot(dx, dy) < SLOPE_HIGHLIGHT_MIN_RADIUS_FRAC * plate_radius_px:
        return False
    along_rim = (math.degrees(math.atan2(dy, dx)) + 90.0) % 180.0
    if axis_angle_diff_deg(b.angle_deg, along_rim) > SLOPE_HIGHLIGHT_MAX_ANGLE_DEG:
        return False
    return float(residual[..., 0][b.mask].mean()) > 0.0


def _classify_blob(b: "_Blob", face_area: float, token_r: float, threshold: float, cands: list[Candidate],
                   suspects: list[tuple[float, float, float]], weak: list["_Blob"],
                   delta_e: np.ndarray | None = None, long_bar_stands: bool = False) -> None:
    """Append the candidate(s) one blob stands for, by its shape against one
    face of radius ``token_r``; or note it as a suspect speck, or as a weak
    (pale, fragmentary) blob for the disc filter; or drop it (glare).
    ``delta_e`` (the view's, Lab units): where given, a strong blob too large
    for one face or a pair is also tried as two faces cut at half its
    contrast (:func:`faces_at_half_contrast`), or as one face with its
    shadow (:func:`face_at_half_contrast`; given only at a token size
    measured on clear discs).  ``long_bar_stands``: the blob, too long for
    a token on edge here, is one in the camera's image (see
    :mod:`vision.upright_in_image`)."""
    rel_area = b.area / face_area
    common = dict(axis_ratio=b.axis_ratio, solidity=b.solidity, contrast=b.contrast, crosses_rim=b.crosses_rim,
                  angle_deg=b.angle_deg)
    bar_shape = (b.axis_ratio < UPRIGHT_MAX_AXIS_RATIO and rel_area < UPRIGHT_MAX_AREA
                 and (UPRIGHT_LENGTH_RADII[0] * token_r <= b.major <= UPRIGHT_LENGTH_RADII[1] * token_r
                      or long_bar_stands))
    # A bar of low contrast is an upright token too when it is no speck and
    # solid (a pale face's fragments are ragged): the contrast floor is what
    # keeps glare and chips, not a token's side, from counting.
    thin_bar = bar_shape and (b.contrast >= UPRIGHT_MIN_CONTRAST
                              or (rel_area >= UPRIGHT_PALE_MIN_AREA and b.solidity >= UPRIGHT_PALE_MIN_SOLIDITY))
    if rel_area < SPECK_MAX_AREA and not thin_bar:
        if rel_area >= SPECK_SUSPECT_MIN_AREA and b.contrast >= UPRIGHT_MIN_CONTRAST:
            suspects.append((b.x, b.y, b.contrast))
        return  # speck: glare, a chip in the glaze
    if b.crosses_rim and rel_area > DISC_AREA_RANGE[1]:
        cands.append(Candidate(b.x, b.y, b.equiv_radius, "object", b.area, **common))
    elif (b.axis_ratio >= DISC_MIN_AXIS_RATIO and b.solidity >= DISC_MIN_SOLIDITY
          and DISC_AREA_RANGE[0] <= rel_area <= DISC_AREA_RANGE[1]):
        cands.append(Candidate(b.x, b.y, b.equiv_radius, "disc", b.area, **common))
    elif thin_bar:
        cands.append(Candidate(b.x, b.y, b.equiv_radius, "upright", b.area, **common))
    elif (pair := split_pair(b.mask, token_r)) is not None:
        if pair_neck_width(b.mask, pair[0][0], pair[1][0], token_r) >= PAIR_MAX_NECK_RADII:
            # joined by more than a point: one face partly on the other
            cands.append(Candidate(b.x, b.y, b.equiv_radius, "overlap", b.area, **common))
        else:
            # Two faces side by side, as far apart as touching faces are.
            for (px, py), area, ratio in pair:
                cands.append(Candidate(px, py, token_r, "disc", area,
                                       **dict(common, axis_ratio=ratio, angle_deg=math.nan)))
    elif (delta_e is not None and b.contrast >= RADIUS_MIN_CONTRAST_RATIO * threshold
          and (rel_area > DISC_AREA_RANGE[1] or b.major > OBJECT_MIN_LENGTH_RADII * token_r)
          and (two := (faces_at_half_contrast(b.mask, delta_e, token_r)
                       or (touching_lobes(b.mask, delta_e, token_r) if TOUCHING_LOBES_SPLIT else None))) is not None):
        # two strong faces a little apart, joined by their blurred edges or
        # shadows; or touching, one region at half contrast of two round lobes
        for (px, py), area, ratio in two:
            cands.append(Candidate(px, py, token_r, "disc", area,
                                   **dict(common, axis_ratio=ratio, angle_deg=math.nan)))
    elif (delta_e is not None and b.contrast >= RADIUS_MIN_CONTRAST_RATIO * threshold
          and DISC_AREA_RANGE[1] < rel_area <= OBJECT_MIN_AREA
          and (one := face_at_half_contrast(b.mask, delta_e, token_r)) is not None):
        # one strong face whose blob takes in its shadow or side wall (forced
        # four flat tokens 640038 at 1280x720: dark red faces on white
        # porcelain, camera tilted 34 deg, blobs of 1.5-1.6 faces read as
        # overlaps); a face on another leaves a second region or a crescent
        # beyond half a radius of the first
        (px, py), area, ratio = one
        cands.append(Candidate(px, py, token_r, "disc", area, **dict(common, axis_ratio=ratio, angle_deg=math.nan)))
    elif rel_area > OBJECT_MIN_AREA or b.major > OBJECT_MIN_LENGTH_RADII * token_r:
        cands.append(Candidate(b.x, b.y, b.equiv_radius, "object", b.area, **common))
    elif (b.contrast < RADIUS_MIN_CONTRAST_RATIO * threshold
          and not (b.solidity >= DISC_MIN_SOLIDITY and b.axis_ratio < FAINT_MIN_AXIS_RATIO)):
        # A pale face barely above the threshold breaks into fragments;
        # let the disc filter judge it as a whole.
        weak.append(b)
    elif rel_area > DISC_AREA_RANGE[1]:
        cands.append(Candidate(b.x, b.y, b.equiv_radius, "overlap", b.area, **common))
    else:
        cands.append(Candidate(b.x, b.y, b.equiv_radius, "partial", b.area, **common))



def _plate_darker_than_faces(residual: np.ndarray, cands: list[Candidate]) -> bool:
    """True when the frame has a clear face (a blob disc) and every clear
    face is lighter than the plate (mean L* residual of its face part > 0):
    then any face would be, and a find that is only dark is shading (see
    :func:`_split_shading`)."""
    clear = [c for c in cands if c.kind == "disc" and c.found_by == "blob"]
    return bool(clear) and all(float(_mean_residual(residual, c.x, c.y, DISC_FACE_FRAC * c.radius)[0]) > 0.0
                               for c in clear)


def _split_shading(residual: np.ndarray, cands: list[Candidate], token_r: float
                   ) -> tuple[list[Candidate], list[Candidate]]:
    """``cands`` split into those kept and the disc-filter and outline finds
    that are the plate's own shading (a dark band the ring model leaves, a
    shadow), on a plate darker than the frame's faces
    (:func:`_plate_darker_than_faces`, asked by the caller).

    A find is shading when its face part is only dark
    (:func:`_dark_not_coloured` with ``SHADING_FIND_MIN_DARK_L``) and no
    lighter than the plate around it (the median L* residual of the ring
    ``SHADING_RING_RADII`` token radii out, pixels closer to the plate than
    ``BLOB_MIN_DELTA_E``).  A face in a local shadow (a hand's, the bowl's)
    is darker than the plate model but lighter than the shadow around it:
    kept; so is a find whose ring has no plate pixels."""
    kept, shading = [], []
    for c in cands:
        if c.found_by != "blob":
            face = _mean_residual(residual, c.x, c.y, DISC_FACE_FRAC * token_r)
            if _dark_not_coloured(face, SHADING_FIND_MIN_DARK_L):
                ring_l = _ring_lightness(residual, c.x, c.y, token_r)
                if ring_l is not None and float(face[0]) - ring_l <= 0.0:
                    shading.append(c)
                    continue
        kept.append(c)
    return kept, shading


def _shading_dropped(residual: np.ndarray, suspects: list[tuple[float, float, float]], token_r: float
                     ) -> list[tuple[float, float, float]]:
    """``suspects`` (x, y, contrast) without those that are the plate's shading
    by :func:`_split_shading`'s test (see ``SHADING_SUSPECTS_DROPPED``; the
    caller asks that the plate be darker than every clear face)."""
    probes = [Candidate(float(x), float(y), token_r, "faint", 0.0, 1.0, 1.0, float(c), found_by="disc_filter")
              for x, y, c in suspects]
    _, shading = _split_shading(residual, probes, token_r)
    dropped = {id(p) for p in shading}
    return [t for t, p in zip(suspects, probes) if id(p) not in dropped]


def _ring_lightness(residual: np.ndarray, x: float, y: float, token_r: float) -> float | None:
    """Median L* residual of the plate pixels (closer to the plate model than
    ``BLOB_MIN_DELTA_E``) in the ring ``SHADING_RING_RADII`` token radii
    around (x, y); None when the ring has none."""
    patch, rr, cc = _patch_around(residual, x, y, SHADING_RING_RADII[1] * token_r)
    d = np.hypot(cc - x, rr - y) / token_r
    sel = (d >= SHADING_RING_RADII[0]) & (d <= SHADING_RING_RADII[1]) & (
        np.linalg.norm(patch, axis=-1) < BLOB_MIN_DELTA_E)
    if not sel.any():
        return None
    return float(np.median(patch[sel][:, 0]))


def _slivers_beside_faces(cands: list[Candidate], token_r: float) -> list[Candidate]:
    """A bar below ``UPRIGHT_MIN_CONTRAST`` counted upright (see
    :func:`_classify_blob`) within ``SLIVER_MAX_DIST_RADII`` of another
    blob's candidate is a sliver of a face partly under that one, as thin as
    an upright token's side: it becomes ``partial`` (rearrange).  Alone on
    the plate it stays upright."""
    out = []
    for c in cands:
        if (c.kind == "upright" and c.contrast < UPRIGHT_MIN_CONTRAST
                and any(o is not c and o.kind != "object"
                        and math.hypot(o.x - c.x, o.y - c.y) < SLIVER_MAX_DIST_RADII * token_r for o in cands)):
            c = replace(c, kind="partial")
        out.append(c)
    return out


def _whole_face_shape(residual: np.ndarray, cand: Candidate, cands: list[Candidate], token_r: float,
                      partial: bool = True, background: np.ndarray | None = None) -> Candidate:
    """The axis ratio of a blob disc's whole face, when its blob is a lopsided
    part of one (see ``WHOLE_FACE_MAX_BLOB_AREA``); a blob bar (``upright``)
    whose region is one round face was that face's lit or shaded edge and
    becomes the face, a ``disc`` centred on the region.

    Parameters
    ----------
    residual : ndarray, float32, (S, S, 3), Lab units
        The view's residual (not modified).
    cand : Candidate
    cands : list of Candidate
        Every candidate of the frame (``cand`` among them); the others are
        taken out to ``vision.outline_faces.FACED_MASK_RADII`` before measuring.
    token_r : float
        Token radius, canonical pixels.
    partial : bool
        Whether a ``partial`` blob (part of a face: the lit side of a pale
        face above the blob threshold) is judged too; it then becomes the
        face around it like a bar.
    background : ndarray, float32, (S, S, 3), Lab units, optional
        The view's plate model, for the shadow test in linear light
        (``WHOLE_FACE_SHADOW_LINEAR``); None: the Lab test alone.

    Returns
    -------
    Candidate
        A copy of ``cand`` with the whole face's ``axis_ratio`` (and for a
        bar or a part, its kind, centre, radius and area) when it is one round
        face, else ``cand`` itself.
    """
    face_area = math.pi * token_r ** 2
    if not (cand.found_by == "blob" and cand.area_px <= WHOLE_FACE_MAX_BLOB_AREA * face_area
            and ((partial and cand.kind == "partial")
                 or (cand.kind in ("disc", "upright") and cand.axis_ratio < FLAT_FACE_MIN_AXIS_RATIO))):
        return cand
    others = residual.copy()
    for c in cands:
        if c is not cand:
            _blank(others, c.x, c.y, outline_faces.FACED_MASK_RADII * token_r)
    area, ratio, _, (gx, gy), _ = faint_extent(others, cand.x, cand.y, token_r)
    if (WHOLE_FACE_AREA_RANGE[0] * face_area <= area <= WHOLE_FACE_AREA_RANGE[1] * face_area
            and ratio >= WHOLE_FACE_MIN_AXIS_RATIO):
        if cand.kind in ("upright", "partial"):
            # the bar was the lit (or the shaded) edge of a flat face, the part
            # the lit side of a pale face above the blob threshold: the face is
            # the region around it, centred on the region.  Unless that region
            # is only dark: then it is the shadow a token standing on edge
            # casts beside its own bar (fresh scene 177532: a white token on
            # edge on a cream plate, its bar and shadow one round region 13 L
            # darker than the plate, chroma 5, read as a fourth flat face);
            # the faces found this way measure lighter than the plate or
            # coloured (forced four flat tokens 150000-151499: 25 of 25).
            core = _mean_residual(residual, gx, gy, DISC_FACE_FRAC * token_r)
            if _dark_not_coloured(core, WHOLE_FACE_SHADOW_MIN_DARK_L):
                return cand
            if (WHOLE_FACE_SHADOW_LINEAR and background is not None
                    and _shadow_in_linear_light(_mean_residual(background, gx, gy, DISC_FACE_FRAC * token_r), core)):
                return cand
            return replace(cand, kind="disc", x=gx, y=gy, radius=token_r, area_px=area, axis_ratio=ratio,
                           angle_deg=math.nan)
        return replace(cand, axis_ratio=ratio, angle_deg=math.nan)
    return cand


def _shadow_in_linear_light(plate: np.ndarray, diff: np.ndarray) -> bool:
    """True when a region whose mean Lab is ``plate + diff`` (Lab units) is the
    plate ``plate`` dimmed, in linear light: at least
    ``WHOLE_FACE_SHADOW_MIN_DARK_L`` darker, and every channel keeping at least
    1 / ``WHOLE_FACE_SHADOW_MAX_FALL_RATIO`` of the share of its light (region
    over plate) that the channel below ``WHOLE_FACE_SHADOW_CLIPPED_LEVEL`` on
    the plate keeping most keeps.  False when fewer than
    ``WHOLE_FACE_SHADOW_MIN_UNCLIPPED_CHANNELS`` channels of the plate are below
    the ceiling (no two falls to compare).  Levels are the camera's
    (:func:`vision.colour.lab_to_bgr`), light is levels with the display gamma
    (:func:`vision.exposure.linear_light`)."""
    if float(diff[0]) > -WHOLE_FACE_SHADOW_MIN_DARK_L:
        return False
    both = np.stack([plate, plate + diff]).astype(np.float32).reshape(2, 1, 3)
    levels = lab_to_bgr(both).reshape(2, 3).astype(np.float64)
    plate_levels = np.maximum(levels[0], 1.0)
    kept = linear_light(np.maximum(levels[1], 1.0)) / linear_light(plate_levels)
    unclipped = plate_levels < WHOLE_FACE_SHADOW_CLIPPED_LEVEL
    if int(unclipped.sum()) < WHOLE_FACE_SHADOW_MIN_UNCLIPPED_CHANNELS:
        return False
    return float(kept.min()) * WHOLE_FACE_SHADOW_MAX_FALL_RATIO >= float(kept[unclipped].max())


def _other_colour(core: np.ndarray, face_means: list[np.ndarray]) -> bool:
    """True when a find is a face of another colour than the faint faces: its
    core's difference from the plate (dL, da, db, Lab units) is at least
    ``RED_AMONG_FAINT_MIN_DELTA_A`` redder (a*) than each of ``face_means``
    (the faint faces' core differences).  Then the faint faces' contrast
    says nothing of its own: four white faces 30-48 L above black lacquer,
    faint only because the lacquer's shading raised the blob threshold, and
    a fifth, dark red face 11.7 and 17.3 Lab from the plate, 11-19 a* redder
    than the whites (fresh scenes 75209, 77297 at 640x480), which the floor
    relative to the whites took for texture."""
    if not face_means:
        return False
    return all(float(core[1]) - float(m[1]) >= RED_AMONG_FAINT_MIN_DELTA_A for m in face_means)


def _suppressed_peaks(resp: np.ndarray, allowed: np.ndarray, min_value: float, token_r: float,
                      examined: list[tuple[int, int]], cands: list[Candidate],
                      second: list[tuple[int, int]] | None = None) -> list[tuple[int, int]]:
    """Local maxima of the disc filter's response that the first peak search
    (maxima ``1.5 * token_r`` apart) suppressed: maxima ``SECOND_PEAK_MIN_DIST_RADII``
    token radii apart, at least that far from every peak in ``examined`` and
    ``SUSPECT_EXCLUSION_RADII`` from every candidate.

    Parameters
    ----------
    resp : ndarray, float32, (S, S), Lab units
        :func:`disc_response` of the masked residual.
    allowed : ndarray, bool, (S, S)
        Where a peak may lie.
    min_value : float
        Smallest peak value, Lab units.
    token_r : float
        Token radius, canonical pixels.
    examined : list of (x, y)
        Peaks of the first search, canonical pixels.
    cands : list of Candidate
    second : list of (x, y) or None
        :func:`_second_peaks` of the same arguments, when the caller has
        them already (None: found here).

    Returns
    -------
    list of (x, y), canonical pixels, strongest first; empty when there is none.
    """
    if second is None:
        second = _second_peaks(resp, allowed, min_value, token_r, examined)
    return [(x, y) for x, y in second
            if not any(math.hypot(x - c.x, y - c.y) < SUSPECT_EXCLUSION_RADII * token_r for c in cands)]


def _second_peaks(resp: np.ndarray, allowed: np.ndarray, min_value: float, token_r: float,
                  examined: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Local maxima of ``resp`` ``SECOND_PEAK_MIN_DIST_RADII`` token radii
    apart and at least that far from every peak in ``examined``, whatever
    their distance from the candidates (the parameters as
    :func:`_suppressed_peaks`'s); strongest first, empty when there is none.
    :func:`_suppressed_peaks` keeps those away from the candidates, the
    ``FACING_SUSPECTS_STAY`` look those near them."""
    sep = SECOND_PEAK_MIN_DIST_RADII * token_r
    return [(x, y) for x, y in _peaks(resp, allowed, min_value, sep)
            if not any(math.hypot(x - px, y - py) < sep for px, py in examined)]


def _support_facing_clear(residual: np.ndarray, claimed: np.ndarray, x: float, y: float, token_r: float
                          ) -> tuple[int, int, float]:
    """:func:`sector_support` at (x, y) with every sector whose face or ring
    part holds a pixel of ``claimed`` (bool, (S, S)) left unmeasured, and the
    overall difference taken over the unclaimed pixels only.

    Returns
    -------
    n_measured : int
        Sectors with no claimed pixel (and pixels of both parts).
    n_pass : int
        Of those, the sectors whose difference reaches ``EDGE_SECTOR_SHARE``
        of the overall one along its colour direction.
    contrast : float
        Norm of the overall difference, Lab units; 0 when nothing is measured.
    """
    patch, rr, cc, face, ring = _disc_window(residual, x, y, token_r)
    taken = claimed[rr, cc]
    sector = sector_of(cc - x, rr - y)
    free = np.ones(patch.shape[:2], bool)
    measured = []
    for k in range(SUPPORT_SECTORS):
        part = (face | ring) & (sector == k)
        if (taken & part).any():
            free &= ~(sector == k)
        elif (face & part).any() and (ring & part).any():
            measured.append(k)
    f, g = face & free, ring & free
    if not measured or not f.any() or not g.any():
        return 0, 0, 0.0
    overall = patch[f].mean(axis=0) - patch[g].mean(axis=0)
    norm = float(np.linalg.norm(overall))
    if norm <= 0:
        return len(measured), 0, 0.0
    u = overall / norm
    n_pass = 0
    for k in measured:
        d = patch[face & (sector == k)].mean(axis=0) - patch[ring & (sector == k)].mean(axis=0)
        n_pass += int(float(d @ u) >= EDGE_SECTOR_SHARE * norm)
    return len(measured), n_pass, norm


def _gaps_between(residual: np.ndarray, cands: list[Candidate], token_r: float
                  ) -> tuple[list[Candidate], list[tuple[float, float, float]]]:
    """Take out faint finds that may be the plate between tokens.

    The disc filter compares a disc with the ring around it, so the bare
    plate between two or more tokens answers like a faint face when the
    tokens fill its ring.  A faint find whose face differs from the plate by
    less than ``GAP_MAX_CORE_SHARE`` of its disc contrast, with another
    candidate within ``GAP_MAX_DIST_RADII``, is not read as a face: it is
    returned as a suspect (x, y, contrast), which stops an outcome.
    """
    kept: list[Candidate] = []
    gaps: list[tuple[float, float, float]] = []
    for c in cands:
        if (c.kind == "faint"
                and any(k is not c and math.hypot(k.x - c.x, k.y - c.y) < GAP_MAX_DIST_RADII * token_r for k in cands)
                and not _face_differs(residual, c.x, c.y, token_r, c.contrast, GAP_MAX_CORE_SHARE)):
            gaps.append((c.x, c.y, c.contrast))
            continue
        kept.append(c)
    return kept, gaps


def _drop_echoes(residual: np.ndarray, cands: list[Candidate], token_r: float) -> list[Candidate]:
    """Drop disc-filter finds that are a face's echo: within ``ECHO_MAX_DIST_RADII``
    of a clear face (a ``disc`` blob), differing from the plate in the same
    colour direction as that face (cosine at least ``ECHO_MIN_COSINE``) but by
    at most ``ECHO_MAX_REL_CONTRAST`` of its difference: the face's halo in a
    soft image, or its reflection in a glossy glaze.  A second token next to
    it would differ from the plate as much as it does (same colour) or in
    another direction (the other colour)."""
    discs = [c for c in cands if c.kind == "disc"]
    if not discs:
        return cands
    core = DISC_FACE_FRAC * token_r
    disc_means = [_mean_residual(residual, d.x, d.y, core) for d in discs]
    out = []
    for c in cands:
        if c.kind in ("faint", "overlap", "partial") and c.found_by == "disc_filter":
            m = _mean_residual(residual, c.x, c.y, core)
            mn = float(np.linalg.norm(m))
            echo = False
            for d, dm in zip(discs, disc_means):
                dn = float(np.linalg.norm(dm))
                if (dn > 0 and mn > 0 and math.hypot(c.x - d.x, c.y - d.y) <= ECHO_MAX_DIST_RADII * token_r
                        and float(m @ dm) / (mn * dn) >= ECHO_MIN_COSINE and mn <= ECHO_MAX_REL_CONTRAST * dn):
                    echo = True
                    break
            if echo:
                continue
        out.append(c)
    return out


def _drop_leans(residual: np.ndarray, cands: list[Candidate], token_r: float) -> list[Candidate]:
    """Drop disc-filter finds (``faint`` or ``partial``) that are the plate's
    own colour mirrored by the ring model's lean toward the faces.

    The plate model is a median per ring; pale faces that cover part of a
    ring pull its median toward their colour (too little for
    :func:`vision.canonical.make_canonical_view` to measure the ring again
    without them: they differ from the plate by less than its token bound),
    so the bare plate between them differs from the model the *opposite* way,
    by a fraction of their own difference, and the disc filter answers there
    as for a face or a part of one.  A token's face differs from the plate
    the way a face does: a red one by its a* (a find at least
    ``DARK_RED_MIN_DELTA_A`` redder than the plate is kept), a white one like
    the frame's other white faces, which share its light and plate (a shadow
    darkens a face; it does not turn its colour difference round).  So a find
    whose core (the mean residual over ``FAINT_PAIR_CORE_RADII`` of a token
    radius: a faint find lies off its face's centre, and its core keeps clear
    of the edge) has a cosine of at most ``LEAN_MAX_COSINE`` with the core of every other
    flat face that could be white (a ``disc`` or ``faint`` candidate at most
    ``WHITE_MAX_DELTA_A`` redder than the plate, not itself dropped; at least
    one), and differs from the plate by at most ``LEAN_MAX_REL_NORM`` of the
    largest of their differences, is dropped, until no more is; every other
    candidate is kept in its order.

    Parameters
    ----------
    residual : ndarray, float32, (H, W, 3)
        Lab residual from the plate model, canonical pixels.
    cands : list of Candidate
    token_r : float
        The frame's token radius, canonical pixels.

    Returns
    -------
    list of Candidate
        ``cands`` without the dropped finds (the same list when none is).
    """
    finds = [c for c in cands if c.kind in LEAN_KINDS and c.found_by == "disc_filter"]
    if not finds:
        return cands
    core = FAINT_PAIR_CORE_RADII * token_r
    measured = [c for c in cands if c.kind in ("disc", "faint") or c.kind in LEAN_KINDS and c.found_by == "disc_filter"]
    means = {id(c): _mean_residual(residual, c.x, c.y, core) for c in measured}
    norms = {k: float(np.linalg.norm(m)) for k, m in means.items()}
    pale = [id(c) for c in cands if c.kind in ("disc", "faint") and float(means[id(c)][1]) <= WHITE_MAX_DELTA_A
            and norms[id(c)] > 0]
    dropped: set[int] = set()
    # a find dropped is no face to measure the others against: until none more is dropped
    changed = True
    while changed:
        changed = False
        for c in finds:
            k = id(c)
            m, mn = means[k], norms[k]
            others = [o for o in pale if o != k and o not in dropped]
            if k in dropped or not others or mn <= 0 or float(m[1]) >= DARK_RED_MIN_DELTA_A:
                continue
            if mn <= LEAN_MAX_REL_NORM * max(norms[o] for o in others) and all(
                    float(m @ means[o]) <= LEAN_MAX_COSINE * mn * norms[o] for o in others):
                dropped.add(k)
                changed = True
    return [c for c in cands if id(c) not in dropped] if dropped else cands


#: Where :func:`faint_pair_waist` reads each face's colour: the mean residual
#: over a disc of this many token radii around its centre (its core, clear of
#: the edge a faint face is found off).
FAINT_PAIR_CORE_RADII = 0.6
#: How far around the two centres :func:`faint_pair_waist` looks, token radii:
#: a waist wider than ``PAIR_MAX_NECK_RADII`` shows well inside it.
FAINT_PAIR_MARGIN_RADII = 2.5


def faint_pair_waist(residual: np.ndarray, c0: tuple[float, float], c1: tuple[float, float],
                     radius_px: float, *, shadow_colour: bool = False) -> float:
    """Width of what joins two faces at half their value, in token radii.

    The residual is projected on the two faces' mean colour (the sum of their
    core means, ``FAINT_PAIR_CORE_RADII``); the region above half the fainter
    face's value around them is cut, and where both centres lie in one piece
    of it the piece's waist between them is measured
    (:func:`vision.blobshape.pair_neck_width`).  Two faint faces side by side
    meet at their edges; a faint face resting on another is joined to it by a
    waist as wide as one blob's.  Where the two faces' mean colour is a
    shadow's (darker than the plate by more than its chroma), their shadows
    share it and join any two touching faces widely (two grey whites
    touching, synthesized scene 1183: 1.73), so no waist is measured unless
    ``shadow_colour`` says to.

    Parameters
    ----------
    residual : ndarray, float32, (S, S, 3), Lab units
        The plate-background residual (:class:`vision.canonical.CanonicalView`).
    c0, c1 : (float, float)
        The two faces' centres, canonical pixels (x, y), on the canvas.
    radius_px : float
        The frame's token radius, canonical pixels (> 0).
    shadow_colour : bool
        Measure the waist even when the faces' mean colour is a shadow's:
        for two strong faces (halves of one blob, dark reds among them), whose
        colour is their own, not a shadow's.

    Returns
    -------
    float
        The waist / ``radius_px``; 0 when the faces share no colour direction,
        when either centre is below the level, or when they lie in different
        pieces; NaN when their mean colour is a shadow's and ``shadow_colour``
        is False.

    Raises
    ------
    ValueError
        ``residual`` not (S, S, 3); ``c0`` or ``c1`` not a finite point on
        the canvas; ``radius_px`` not finite and > 0.
    """
    if not (math.isfinite(radius_px) and radius_px > 0):
        raise ValueError(f"radius_px: expected a finite value > 0, got {radius_px}")
    if residual.ndim != 3 or residual.shape[2] != 3 or residual.shape[0] != residual.shape[1]:
        raise ValueError(f"residual: expected shape (S, S, 3), got {residual.shape}")
    h, w = residual.shape[:2]
    for name, c in (("c0", c0), ("c1", c1)):
        if len(c) != 2 or not (0 <= c[0] < w and 0 <= c[1] < h):
            raise ValueError(f"{name}: expected a point (x, y) on the {w}x{h} canvas, got {tuple(c)}")
    # the region's pixels are whole: a centre in the last half pixel lies on the last one
    c0, c1 = ((min(float(c[0]), w - 1.0), min(float(c[1]), h - 1.0)) for c in (c0, c1))
    m0 = _mean_residual(residual, c0[0], c0[1], FAINT_PAIR_CORE_RADII * radius_px)
    m1 = _mean_residual(residual, c1[0], c1[1], FAINT_PAIR_CORE_RADII * radius_px)
    both = (m0 + m1).astype(np.float64)
    norm = float(np.linalg.norm(both))
    if norm <= 0:
        return 0.0
    if not shadow_colour and _dark_not_coloured(both, 0.0):
        return math.nan
    direction = both / norm
    level = 0.5 * min(float(m0 @ direction), float(m1 @ direction))
    if level <= 0:
        return 0.0
    margin = FAINT_PAIR_MARGIN_RADII * radius_px
    x0 = max(0, int(math.floor(min(c0[0], c1[0]) - margin)))
    x1 = min(w, int(math.ceil(max(c0[0], c1[0]) + margin)) + 1)
    y0 = max(0, int(math.floor(min(c0[1], c1[1]) - margin)))
    y1 = min(h, int(math.ceil(max(c0[1], c1[1]) + margin)) + 1)
    above = (residual[y0:y1, x0:x1] @ direction.astype(np.float32)) > level
    _, labels = cv2.connectedComponents(above.astype(np.uint8), connectivity=8)
    l0, l1 = (labels[int(round(y)) - y0, int(round(x)) - x0] for x, y in (c0, c1))
    if l0 == 0 or l0 != l1:
        return 0.0
    return pair_neck_width(labels == l0, (c0[0] - x0, c0[1] - y0), (c1[0] - x0, c1[1] - y0), radius_px)


def _touching_faint_pairs(cands: list[Candidate], token_r: float) -> list[Candidate]:
    """Two disc-filter peaks whose shared region was too large for one face
    are two touching faces when their centres are as far apart as touching
    faces are (``TOUCHING_MIN_DIST_RADII`` to ``PAIR_MAX_DIST_RADII`` radii;
    a face resting on another is at most 1.5 radii from it), each has a
    disc's contrast all round (it passed the sector test), and their region
    is no larger than two faces.  Both become ``faint``; anything else is
    left as it was."""
    face_area = math.pi * token_r ** 2
    big = [i for i, c in enumerate(cands) if c.kind == "overlap" and c.found_by == "disc_filter"
           and c.area_px <= PAIR_MAX_AREA * face_area]
    partner: dict[int, list[int]] = {i: [] for i in big}
    for n, i in enumerate(big):
        for j in big[n + 1:]:
            d = math.hypot(cands[i].x - cands[j].x, cands[i].y - cands[j].y)
            if TOUCHING_MIN_DIST_RADII * token_r <= d <= PAIR_MAX_DIST_RADII * token_r:
                partner[i].append(j)
                partner[j].append(i)
    # only an unambiguous pair (each the other's only partner) is split
    out = list(cands)
    for i in big:
        if len(partner[i]) == 1 and len(partner[partner[i][0]]) == 1:
            c = cands[i]
            # the region is two faces, so its shape says nothing of either: each
            # passed the sector test, a disc all round
            out[i] = Candidate(c.x, c.y, c.radius, "faint", c.area_px / 2, 1.0, c.solidity, c.contrast,
                               found_by=c.found_by)
    return out


def find_tokens(view: CanonicalView, *, token_radius_frac: tuple[float, float] = DEFAULT_TOKEN_RADIUS_FRAC,
                outline_rule: OutlineRule = DEFAULT_OUTLINE_RULE, outline_trace: list | None = None,
                min_blob_threshold_lab: float = 0.0,
                outer_blob_threshold: tuple[float, float] | None = None) -> TokenSearch:
    """Find token candidates on the plate.

    Parameters
    ----------
    view : CanonicalView
    token_radius_frac : (float, float)
        Smallest and largest plausible face radius, fractions of the plate radius.
    outline_rule : OutlineRule
        When a dark outline alone counts as a pale face.
    outline_trace : list or None
        Calibration only: when a list, one dict per outline peak examined
        (strongest first) is appended: x, y, radius, z, sectors, contrast_l,
        evenness.  Does not change the result.
    min_blob_threshold_lab : float
        The blob threshold (:func:`blob_threshold`) is at least this, Lab
        units: the reader passes the threshold of the view before its angular
        shading was taken out (:mod:`vision.shading`), so plate gloss that the
        shading model does not explain is no more a blob than it was.
    outer_blob_threshold : (float, float) or None
        (radius fraction, Lab units): from that fraction of the plate radius
        out a pixel is a blob's only when it also exceeds that threshold (the
        reader's smooth plate model, :mod:`vision.smooth_plate`, fits the
        well, not the rim's bands; there the threshold stays the rings').
        None: one threshold everywhere.

    Returns
    -------
    TokenSearch
        Candidates in canonical pixels; empty when the plate is bare.
    """
    if not isinstance(outline_rule, OutlineRule):
        raise TypeError(f"outline_rule: expected OutlineRule, got {type(outline_rule).__name__}")
    lo_frac, hi_frac = token_radius_frac
    if not (0 < lo_frac < hi_frac < 0.5):
        raise ValueError(f"token_radius_frac: expected 0 < lo < hi < 0.5, got {token_radius_frac}")
    R = view.plate_radius_px
    lo_px, hi_px = lo_frac * R, hi_frac * R
    measured = _blob_threshold(view)
    mask, threshold = _blob_mask(view, min_blob_threshold_lab, measured, outer_blob_threshold)
    blobs = _blobs(view, mask, min_area_px=0.15 * math.pi * lo_px ** 2)

    # 1. The token radius, from blobs that look like one flat face.
    disc_like = [b for b in blobs if b.axis_ratio >= DISC_MIN_AXIS_RATIO and b.solidity >= DISC_MIN_SOLIDITY
                 and lo_px <= b.equiv_radius <= hi_px and not b.crosses_rim]
    # The faint-disc search works on the residual with every blob masked out,
    # so a red face does not make rings of false discs around itself.
    guard_px = max(1, int(round(BLOB_GUARD_FRAC * (lo_px + hi_px) / 2)))
    grow = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * guard_px + 1, 2 * guard_px + 1))
    allowed = view.radius_px < FAINT_SEARCH_RADIUS_FRAC * R
    accept = view.radius_px < FAINT_ACCEPT_RADIUS_FRAC * R
    if disc_like:
        # Two touching or overlapping faces can pass as one disc only if much
        # larger; the smallest clear discs give the size.
        # A blob's area is cut at the threshold, so a faint face measures
        # small; faces well above the threshold give the true size.
        strong = [b for b in disc_like if b.contrast >= RADIUS_MIN_CONTRAST_RATIO * threshold] or disc_like
        token_r = float(np.median([half_max_radius(view.delta_e, b.mask) for b in strong]))
        radius_source = "discs"
        radius_faces = tuple((b.x, b.y) for b in strong)
    else:
        clear = np.zeros(mask.shape, np.uint8)
        for b in blobs:
            if b.contrast >= RADIUS_MIN_CONTRAST_RATIO * threshold:
                clear[b.mask] = 1
        token_r = _radius_from_faint_faces(view.residual, clear, mask, grow, allowed, lo_px, hi_px)
        radius_source = "edges" if token_r > 0 else "prior"
        radius_faces = ()
        if token_r <= 0:
            token_r = math.sqrt(lo_px * hi_px)
    face_area = math.pi * token_r ** 2
    r_frac = view.radius_px / R  # (once, not per blob)
    # a face joined to the well wall's glaze arc is judged without the arc (vision.rim_arc_face)
    blobs = without_rim_arcs(blobs, r_frac, R, token_r, lambda m: _blobs(view, m, 0.0))

    # 2. Classify each blob by its shape.
    cands: list[Candidate] = []
    suspects: list[tuple[float, float, float]] = []
    weak: list[_Blob] = []
    used: set[int] = set()
    walls: list[_Blob] = []
    for b in blobs:
        if is_rim_arc(b.mask, r_frac, token_r / R):
            continue  # the rim's or the well wall's glaze, highlight or shadow
        if _slope_highlight(b, view.residual, R, token_r):
            continue  # a short light arc on the well's slope
        if ((b.area >= SPECK_MAX_AREA * face_area or b.axis_ratio < UPRIGHT_MAX_AXIS_RATIO)
                and _is_dark_crescent(view.residual, b, face_area)):
            # A side wall or shadow (of the blobs that would otherwise be a
            # candidate: specks stay specks): taken out of the disc filter's
            # residual so the face beside it is found without it, but not a
            # token; it must lie on a counted face's rim (see the end).
            walls.append(b)
            continue
        n_before = len(cands)
        _classify_blob(b, face_area, token_r, threshold, cands, suspects, weak,
                       view.delta_e if radius_source == "discs" else None,
                       stands_in_image(b, view.to_canonical, token_r, R,
                                       length_radii=UPRIGHT_LENGTH_RADII, max_axis_ratio=UPRIGHT_MAX_AXIS_RATIO,
                                       max_area_faces=UPRIGHT_MAX_AREA))
        if len(cands) > n_before:
            used.add(id(b))
    cands = _slivers_beside_faces(cands, token_r)
    # a part of a face (``partial``) may be judged as a whole face only at a
    # token size measured on clear discs: at a size from edges (which can be
    # too small) the visible part of a face partly under another can pass for
    # a whole one (fresh overlap scene 60079)
    cands = [_whole_face_shape(view.residual, c, cands, token_r, partial=radius_source == "discs",
                               background=view.background) for c in cands]

    # 3. Faint discs, where no blob already is.
    # Only blobs that became candidates claim the plate: specks and pale
    # fragments are left for the disc filter to judge as a whole.
    blobs = [b for b in blobs if id(b) in used]
    keep = np.zeros(mask.shape, np.uint8)
    for b in blobs:
        keep[b.mask] = 1
    claimed = cv2.dilate(keep, grow)
    for b in walls:  # not grown: the face it borders keeps its whole disc
        claimed[b.mask] = 1
    residual = _zeroed_where(view.residual, claimed)
    resp = disc_response(residual, token_r)
    vals = resp[allowed]
    med, noise = median_and_noise(vals)
    min_resp = max(EDGE_MIN_CONTRAST, float(med) + EDGE_NOISE_UNITS * noise)
    # Faces are accepted only inside the well; the search for leftover
    # evidence (suspects) reaches everywhere a token can lie.
    search = (view.radius_px < SUSPECT_SEARCH_RADIUS_FRAC * R) & (claimed == 0)
    blob_centres = [(b.x, b.y) for b in blobs]
    # For measuring a faint face's extent: only the blobs' own pixels removed,
    # so a pale face beside a red one keeps its whole outline.
    bare_residual = _zeroed_where(view.residual, keep)  # ``keep``: every blob's pixels
    # A suspect inside the well with the disc's contrast all round (every
    # sector) is kept even when its region is not token-like: a face on a
    # shaded or glossy plate
    # can leak into the plate around it, and unexplained disc evidence must
    # stop an outcome rather than be explained away.
    # no clear face (no blob candidate): every face is faint, a fifth may be fainter
    all_faint = not any(c.found_by == "blob" for c in cands)
    suspect_min = SUSPECT_MIN_CONTRAST_ALL_FAINT if all_faint else SUSPECT_MIN_CONTRAST
    suspect_rel = SUSPECT_REL_CONTRAST_ALL_FAINT if all_faint else SUSPECT_REL_CONTRAST
    round_suspects: set[tuple[float, float]] = set()
    edge_suspects: set[tuple[float, float]] = set()

    def hidden_face(x: int, y: int) -> Candidate:
        """A face partly under a blob, at a disc-filter peak: counted as partly hidden."""
        return Candidate(float(x), float(y), token_r, "partial", face_area, 0.0, 1.0, float(resp[y, x]),
                         found_by="disc_filter")

    def note_suspect(x: int, y: int, n_sectors: int, contrast: float) -> None:
        if n_sectors >= SUSPECT_MIN_SECTORS and contrast >= suspect_min:
            suspects.append((float(x), float(y), contrast))
            edge_suspects.add((float(x), float(y)))
            if (n_sectors == 8 and view.radius_px[y, x] < ROUND_SUSPECT_MAX_RADIUS_FRAC * R
                    and contrast >= ROUND_SUSPECT_MIN_CONTRAST):
                round_suspects.add((float(x), float(y)))

    examined = _peaks(resp, search, min(min_resp, suspect_min), 1.5 * token_r)
    for x, y in examined:
        near = [b for b in blobs if math.hypot(x - b.x, y - b.y) < FAINT_MIN_BLOB_DIST_RADII * token_r]
        if near:
            # A blob's own shadow or wall; or a face partly under it, which
            # is a face (not a halo) of another colour, as far from the blob
            # as one face resting on another is: counted as partly hidden,
            # so the reader asks for a rearrange (or abstains), never reads it.
            # (its visible part is partly masked with the blob: the suspect
            # floor, not the face threshold, applies)
            if allowed[y, x] and _partly_under(view.residual, bare_residual, x, y, token_r, near,
                                               sector_support(residual, float(x), float(y), token_r)[0]):
                cands.append(hidden_face(x, y))
            continue
        if resp[y, x] < min_resp or not accept[y, x]:
            n_sectors, contrast = sector_support(residual, float(x), float(y), token_r)
            # Closer to a blob than touching faces are, with its contrast all
            # round and a face of its own: a face partly under that blob.
            beside = [b for b in blobs if math.hypot(x - b.x, y - b.y) < TOUCHING_MIN_DIST_RADII * token_r]
            if (allowed[y, x] and beside and n_sectors == SUPPORT_SECTORS
                    and _face_differs(bare_residual, x, y, token_r, contrast, HIDDEN_MIN_CORE_SHARE)
                    and _partly_under(view.residual, bare_residual, x, y, token_r, beside, n_sectors)):
                cands.append(hidden_face(x, y))
                continue
            note_suspect(x, y, n_sectors, contrast)
            continue
        n_sectors, contrast = sector_support(residual, float(x), float(y), token_r)
        if n_sectors < EDGE_MIN_SECTORS:
            # its ring runs under a blob next to it: perhaps a face partly under that blob
            beside = [b for b in blobs if math.hypot(x - b.x, y - b.y) < SUSPECT_EXCLUSION_RADII * token_r]
            if allowed[y, x] and beside and _partly_under(view.residual, bare_residual, x, y, token_r, beside,
                                                          n_sectors):
                cands.append(hidden_face(x, y))
                continue
            note_suspect(x, y, n_sectors, contrast)
            continue
        area, ratio, pair, (gx, gy), theta = faint_extent(bare_residual, float(x), float(y), token_r)
        one_round_face = ((area <= FAINT_MAX_AREA * face_area and ratio >= FAINT_MIN_AXIS_RATIO)
                          or (area <= FAINT_ROUND_MAX_AREA * face_area and ratio >= FAINT_ROUND_MIN_AXIS_RATIO))
        if not allowed[y, x] and not one_round_face:
            # by the well's wall only a whole round face counts; the wall's
            # own shading draws arcs and parts of discs there
            note_suspect(x, y, n_sectors, contrast)
            continue
        if one_round_face:
            cands.append(Candidate(float(x), float(y), token_r, "faint", area, ratio, 1.0, contrast,
                                   found_by="disc_filter"))
        elif pair >= TOUCHING_MIN_DIST_RADII * token_r and area <= PAIR_MAX_AREA * face_area:
            # two faint faces side by side, as far apart as touching faces are
            for sgn in (-1.0, 1.0):
                px, py = gx + sgn * pair / 2 * math.cos(theta), gy + sgn * pair / 2 * math.sin(theta)
                if any(c.kind == "faint" and math.hypot(c.x - px, c.y - py) < token_r for c in cands):
                    continue
                cands.append(Candidate(px, py, token_r, "faint", area / 2, 1.0, 1.0, contrast,
                                       found_by="disc_filter"))
        elif area > FAINT_MAX_AREA * face_area:
            cands.append(Candidate(float(x), float(y), token_r, "overlap", area, ratio, 1.0, contrast,
                                   found_by="disc_filter"))
        else:
            # one face's size but not round: an upright or steeply tilted token
            cands.append(Candidate(float(x), float(y), token_r, "partial", area, ratio, 1.0, contrast,
                                   found_by="disc_filter"))
    # A peak can be suppressed by a stronger one that is then rejected: the
    # response between a bright faint face and a fifth face climbs higher than
    # the fifth's own peak (fresh scene 113387).  Local maxima at the scale of
    # one face, away from the peaks examined and the candidates, are judged as
    # suspects too (never counted).
    second = _second_peaks(resp, search, suspect_min, token_r, examined)
    for x, y in _suppressed_peaks(resp, search, suspect_min, token_r, examined, cands, second=second):
        n_sectors, contrast = sector_support(residual, float(x), float(y), token_r)
        note_suspect(x, y, n_sectors, contrast)
    # ... and those nearer a clear face than that, its sectors facing the
    # face's claimed pixels left unmeasured (``FACING_SUSPECTS_STAY``)
    facing_suspects: set[tuple[float, float]] = set()
    if FACING_SUSPECTS_STAY:
        claimed_mask = claimed.astype(bool)
        for px, py in second:
            if not any(math.hypot(px - c.x, py - c.y) < SUSPECT_EXCLUSION_RADII * token_r for c in cands):
                continue  # judged above (_suppressed_peaks)
            # judged at the centre of its region: its peak leans toward the face beside it
            _, _, _, (x, y), _ = faint_extent(bare_residual, float(px), float(py), token_r)
            if math.hypot(x - px, y - py) > FACING_SUSPECT_MAX_SHIFT_RADII * token_r:
                continue
            near = [c for c in cands if math.hypot(x - c.x, y - c.y) < SUSPECT_EXCLUSION_RADII * token_r]
            if (not near or any(c.found_by != "blob" for c in near)
                    or any(math.hypot(x - c.x, y - c.y) < FACING_SUSPECT_MIN_RADII * token_r for c in near)):
                continue
            n_measured, n_pass, contrast = _support_facing_clear(residual, claimed_mask, x, y, token_r)
            if (n_measured >= FACING_SUSPECT_MIN_MEASURED and n_pass == n_measured and contrast >= suspect_min
                    and _face_differs(bare_residual, x, y, token_r, contrast, SUSPECT_MIN_CORE_SHARE)):
                suspects.append((x, y, contrast))
                facing_suspects.add((x, y))
    cands = _touching_faint_pairs(cands, token_r)
    cands = _weak_overlaps(cands, weak, token_r)
    cands = _drop_echoes(view.residual, cands, token_r)
    cands = _drop_leans(view.residual, cands, token_r)
    cands, gaps = _gaps_between(view.residual, cands, token_r)
    # On a plate darker than every clear face, finds that are only dark are
    # its shading (blob discs never are, so the test holds for the outlines too).
    dark_plate = _plate_darker_than_faces(view.residual, cands)
    shading: list[Candidate] = []
    if dark_plate:
        cands, shading = _split_shading(view.residual, cands, token_r)
    # 4. Pale faces by their outline alone, where neither detector saw a token.
    # (vision.outline_faces; the settings it shares with this module passed in)
    outlined, overlapping = _outline_faces(
        view, claimed, allowed, token_r, cands, blob_centres, outline_rule, outline_trace,
        blob_threshold_lab=threshold, faint_min_blob_dist_radii=FAINT_MIN_BLOB_DIST_RADII,
        faint_search_radius_frac=FAINT_SEARCH_RADIUS_FRAC, suspect_exclusion_radii=SUSPECT_EXCLUSION_RADII,
        kept_hide_radii=KEPT_HIDE_RADII, suspect_min_core_share=SUSPECT_MIN_CORE_SHARE,
        touching_suspect_min_radii=TOUCHING_SUSPECT_MIN_RADII if TOUCHING_SUSPECTS_STAY else None)
    cands.extend(_split_shading(view.residual, outlined, token_r)[0] if dark_plate else outlined)
    # A suspect right beside a kept token is that token's own shadow or wall;
    # one much weaker than every kept faint face is plate texture, unless it
    # is redder than them (a face of the other colour) or lies where the
    # plate leaves a white face less room below the ceiling than that.
    # (the faint finds dropped as shading still set the floor, as before they were dropped)
    faint_faces = [c for c in cands + shading if c.kind == "faint"]
    faintest = min((c.contrast for c in faint_faces), default=0.0)
    floor = max(suspect_min, suspect_rel * faintest)
    faint_means = ([_mean_residual(bare_residual, c.x, c.y, DISC_FACE_FRAC * token_r) for c in faint_faces]
                   if suspects else [])
    # every candidate's, on the residual with the blobs in (their own colour)
    counted_means = ([_mean_residual(view.residual, k.x, k.y, DISC_FACE_FRAC * token_r) for k in cands]
                     if suspects else [])

    # with clear faces of both colours, a floor relative to them as well
    weakest_clear = _both_colours_contrast(view.residual, cands, token_r) if suspects else 0.0

    def room_at(x: float, y: float) -> float:
        """Lightness the plate leaves below the sensor's ceiling at (x, y), L* units."""
        xi = min(max(int(round(x)), 0), view.background.shape[1] - 1)
        yi = min(max(int(round(y)), 0), view.background.shape[0] - 1)
        return LIGHTNESS_CEILING_L - float(view.background[yi, xi, 0])

    def floor_at(x: float, y: float) -> float:
        """The suspect floor for a find at (x, y): relative to the faint faces
        or to the plate's room below the ceiling there, whichever is less; the
        absolute one for a face of another colour; at least the floor relative
        to the clear faces of both colours (or that room) when there are such."""
        both = (max(suspect_min, BOTH_COLOURS_SUSPECT_REL_CONTRAST * min(weakest_clear, room_at(x, y)))
                if weakest_clear > 0 else suspect_min)
        if floor <= suspect_min:  # floor is suspect_min here, and both is at least that
            return both
        if _other_colour(_mean_residual(bare_residual, x, y, DISC_FACE_FRAC * token_r), faint_means):
            return both
        return max(both, suspect_rel * min(faintest, room_at(x, y)))

    def other_colour_face(x: float, y: float, c: float) -> bool:
        """A find of at least ``OTHER_COLOUR_SUSPECT_MIN_CONTRAST`` whose core is
        redder than every candidate's by ``RED_AMONG_FAINT_MIN_DELTA_A``
        (:func:`_other_colour`) and redder than the plate by
        ``OTHER_COLOUR_SUSPECT_MIN_DELTA_A``: a red face among faces of the
        other colour, whatever the shape of its region.  On a plate whose
        shading runs the way that face differs from it (warm light on dark
        lacquer), the region leaks into the shading and is not token-like
        (fresh scene 216943 at 640x480: a fifth, red face 23 Lab from the
        plate, its region 2.6 face areas)."""
        if c < OTHER_COLOUR_SUSPECT_MIN_CONTRAST:
            return False
        core = _mean_residual(bare_residual, x, y, DISC_FACE_FRAC * token_r)
        return float(core[1]) >= OTHER_COLOUR_SUSPECT_MIN_DELTA_A and _other_colour(core, counted_means)

    # (lightness, hidden, responses (None: each suspect's own box), centres), built when first needed
    outline_view: list[tuple] = []

    def shadowed_face(x: float, y: float, c: float, f: float) -> bool:
        """An edge suspect with a pale face's outline beside it (see
        ``SHADOWED_FACE_OUTLINE_REACH_RADII``), on the L* residual with the
        claimed blobs and the kept tokens (to ``KEPT_HIDE_RADII``) blanked.
        The suspect's other tests (its core differs from the plate, it
        stands clear of the kept tokens at floor ``f``) come first: the
        outline is measured only where it can decide."""
        if (not SHADOWED_FACE_OUTLINE_STAYS or (x, y) not in edge_suspects
                or not _face_differs(bare_residual, x, y, token_r, c, SUSPECT_MIN_CORE_SHARE)
                or not _stands_clear(bare_residual, x, y, token_r, cands, f)):
            return False
        if not outline_view:
            hidden = claimed.astype(bool)
            for k in cands:
                cv2.circle(hidden.view(np.uint8), (int(round(k.x)), int(round(k.y))),
                           int(round(KEPT_HIDE_RADII * token_r)), color=1, thickness=cv2.FILLED)
            lightness = _zeroed_where(view.residual[..., 0], hidden.view(np.uint8))
            # a face's centre: inside the well (``FAINT_ACCEPT_RADIUS_FRAC``), and
            # as far from every kept token as a suspect must be (nearer, the
            # circle is drawn by that token's own shadow or wall)
            centres = (view.radius_px < FAINT_ACCEPT_RADIUS_FRAC * R).astype(np.uint8)
            for k in cands:
                cv2.circle(centres, (int(round(k.x)), int(round(k.y))),
                           int(round(SUSPECT_EXCLUSION_RADII * token_r)), color=0, thickness=cv2.FILLED)
            responses = (None if SUSPECT_FILTER_CROP else
                         tuple(outline_response(lightness, factor * token_r) for factor in OUTLINE_RADIUS_FACTORS))
            outline_view.append((lightness, hidden, responses, centres.astype(bool)))
        lightness, hidden, responses, centres = outline_view[0]
        return _outline_near(lightness, hidden, responses, centres, x, y, token_r, outline_rule,
                             SHADOWED_FACE_OUTLINE_REACH_RADII)

    def beyond_kept(x: float, y: float) -> bool:
        """Whether a suspect at (x, y) lies beyond every kept token's own
        shadow and wall: ``SUSPECT_EXCLUSION_RADII`` from each, or
        ``TOUCHING_SUSPECT_MIN_RADII`` when it is a whole round disc of its own."""
        d = min((math.hypot(x - k.x, y - k.y) for k in cands), default=math.inf)
        if d >= SUSPECT_EXCLUSION_RADII * token_r:
            return True
        if (x, y) in facing_suspects and d >= FACING_SUSPECT_MIN_RADII * token_r:
            return True
        return (TOUCHING_SUSPECTS_STAY and d >= TOUCHING_SUSPECT_MIN_RADII * token_r
                and (x, y) in round_suspects
                and (_token_like(bare_residual, x, y, token_r)
                     or (TOUCHING_SUSPECT_FAINT_BLANKED and _token_like(faint_blanked(x, y), x, y, token_r))))

    def faint_blanked(x: float, y: float) -> np.ndarray:
        """``bare_residual`` with the discs of the kept faint finds within
        ``SUSPECT_EXCLUSION_RADII`` of (x, y) zeroed (``TOUCHING_SUSPECT_FAINT_BLANKED``)."""
        out = bare_residual.copy()
        for k in cands:
            if k.found_by != "blob" and math.hypot(x - k.x, y - k.y) < SUSPECT_EXCLUSION_RADII * token_r:
                cv2.circle(out, (int(round(k.x)), int(round(k.y))), int(round(token_r)), color=(0.0, 0.0, 0.0),
                           thickness=cv2.FILLED)
        return out

    suspects = [(x, y, c) for x, y, c in suspects
                if c >= (f := floor_at(x, y))
                and beyond_kept(x, y)
                and ((x, y) in round_suspects or _token_like(bare_residual, x, y, token_r)
                     or other_colour_face(x, y, c) or shadowed_face(x, y, c, f))
                and ((x, y) not in edge_suspects
                     or _face_differs(bare_residual, x, y, token_r, c, SUSPECT_MIN_CORE_SHARE))
                and _stands_clear(bare_residual, x, y, token_r, cands, f)]
    suspects.extend(overlapping)
    if dark_plate and SHADING_SUSPECTS_DROPPED:
        suspects = _shading_dropped(view.residual, suspects, token_r)
    suspects.extend(gaps)
    # 5. Pale faces against the well's wall, whose disc-filter peak the wall's
    # own response swallowed (see faces_against_wall).  Only a frame with as
    # many candidates as a round has tokens and no suspect yet can be read as
    # an outcome; on any other, a further suspect changes no verdict.
    if len(cands) == TOKENS_PER_ROUND and not suspects:
        against = faces_against_wall(residual, view.radius_px, R, token_r, [(c.x, c.y) for c in cands], floor)
        suspects.extend(_shading_dropped(view.residual, against, token_r)
                        if dark_plate and SHADING_SUSPECTS_DROPPED else against)
    # A wall must belong to a face counted beside it; one that does not
    # (its face was missed) stops an outcome.
    suspects.extend((b.x, b.y, b.contrast) for b in walls
                    if not any(_on_rim(b, c.x, c.y, token_r) for c in cands if c.kind in WALL_FACE_KINDS))
    cands = _bitten_blob_faces(cands, blobs, token_r, FLAT_KINDS)
    if DROPPED_BAR_BESIDE_FAINT:
        cands = dropped_bars_as_uprights(view.delta_e, claimed, cands, token_r, threshold,
                                         length_radii=UPRIGHT_LENGTH_RADII, max_area_faces=UPRIGHT_MAX_AREA)
    # a faint find beside a bar no candidate accounts for (vision.faint_beside_bar)
    suspects.extend(faint_finds_beside_bars(view.delta_e, claimed, cands, token_r, threshold,
                                            length_radii=UPRIGHT_LENGTH_RADII, max_area_faces=UPRIGHT_MAX_AREA))
    return TokenSearch(candidates=tuple(cands), token_radius_px=float(token_r), radius_source=radius_source,
                       suspects=tuple(suspects), radius_faces=radius_faces, blob_threshold_lab=measured[1],
                       well_blob_threshold_lab=None if outer_blob_threshold is None else float(threshold))


#: The well's wall, for :func:`faces_against_wall`: canonical radii from this
#: fraction of the plate radius out (where a face's centre may still lie,
#: ``FAINT_ACCEPT_RADIUS_FRAC``).
WALL_FROM_RADIUS_FRAC = FAINT_ACCEPT_RADIUS_FRAC
#: A face against the wall is looked for with its centre within this many face
#: radii of the wall (its disc reaches the wall or nearly).
WALL_FACE_REACH_RADII = 2.0
#: Its region is opened with a disc of this many face radii before it is
#: measured: the wall's thin bright arc that touches the face is cut off it.
WALL_FACE_OPEN_RADII = 0.4


def faces_against_wall(residual: np.ndarray, radius_px: np.ndarray, plate_radius_px: float, token_r: float,
                       keep_out: list[tuple[float, float]], min_contrast_lab: float
                       ) -> list[tuple[float, float, float]]:
    """Pale faces lying against the well's wall that the disc filter's peaks missed.

    Beside the wall the disc filter's response climbs towards the wall's own
    shading, so a pale face there has no peak of its own, and its region joins
    the wall's arc.  Here the wall (radii from ``WALL_FROM_RADIUS_FRAC``) is
    set to the plate's level (0) before the disc filter runs, and the region
    is opened before its shape is judged.  A find is a suspect (it stops an
    outcome), never a token.

    Parameters
    ----------
    residual : ndarray, float32, (S, S, 3), Lab units
        The canonical residual with the blobs already counted set to 0.
    radius_px : ndarray, float32, (S, S)
        Each pixel's distance from the plate centre, canonical pixels.
    plate_radius_px, token_r : float
        Plate and face radius, canonical pixels.
    keep_out : list of (x, y)
        Candidates already found (canonical pixels; the reader runs this only
        when there is no suspect yet): a find within
        ``SUSPECT_EXCLUSION_RADII`` face radii of one is that one.
    min_contrast_lab : float
        Least disc contrast, Lab units (the search's suspect floor).

    Returns
    -------
    list of (x, y, contrast)
        Canonical pixels and Lab units; empty when there is none.
    """
    if residual.ndim != 3 or residual.shape[2] != 3 or residual.shape[0] != residual.shape[1]:
        raise ValueError(f"residual: expected a square (S, S, 3) array, got shape {residual.shape}")
    if np.shape(radius_px) != residual.shape[:2]:
        raise ValueError(f"radius_px: expected shape {residual.shape[:2]}, got {np.shape(radius_px)}")
    if not plate_radius_px > 0:
        raise ValueError(f"plate_radius_px: expected > 0, got {plate_radius_px}")
    if not (math.isfinite(token_r) and token_r >= 0):
        raise ValueError(f"token_r: expected a finite value >= 0, got {token_r}")
    if not (math.isfinite(min_contrast_lab) and min_contrast_lab >= 0):
        raise ValueError(f"min_contrast_lab: expected a finite value >= 0, got {min_contrast_lab}")
    if token_r <= 1:
        return []
    wall_px = WALL_FROM_RADIUS_FRAC * plate_radius_px
    wall = radius_px >= wall_px
    area = (~wall) & (radius_px >= wall_px - WALL_FACE_REACH_RADII * token_r)
    if not area.any():
        return []
    well = _zeroed_where(residual, wall)
    resp = disc_response(well, token_r)
    open_px = max(1, int(round(WALL_FACE_OPEN_RADII * token_r)))
    out: list[tuple[float, float, float]] = []
    for x, y in _peaks(resp, area, min_contrast_lab, 1.5 * token_r):
        if any(math.hypot(x - kx, y - ky) < SUSPECT_EXCLUSION_RADII * token_r for kx, ky in keep_out):
            continue
        n_sectors, contrast = sector_support(well, float(x), float(y), token_r)
        if n_sectors < EDGE_MIN_SECTORS or contrast < min_contrast_lab:
            continue
        if not _face_differs(well, float(x), float(y), token_r, contrast, SUSPECT_MIN_CORE_SHARE):
            continue
        if _token_like(well, float(x), float(y), token_r, open_px):
            out.append((float(x), float(y), float(contrast)))
    return out
