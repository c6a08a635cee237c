"""The still-frame reader: one BGR frame in, one :class:`vision.types.Reading` out.

Stages, each a pure function with its own module:

1. :func:`vision.plate.find_plate` - the plate ellipse (or ``no_plate``);
2. :func:`vision.canonical.make_canonical_view` - the plate seen from above;
3. :func:`vision.tokens.find_tokens` - token candidates and their shapes;
4. :func:`vision.faces.classify_face` - red or white, with a margin;
5. :func:`decide` - anomalies and the verdict.

The reader abstains (``uncertain``) whenever a rule is not clearly met: an
``outcome`` needs exactly four flat, separated, fully visible faces on the
plate, each decisively red or white, and nothing else on or over the plate.
"""
from __future__ import annotations

import dataclasses
import itertools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from .blobshape import PAIR_MAX_NECK_RADII, _axis_ratio, axis_angle_diff_deg
from .canonical import CanonicalView, make_canonical_view, rings_as_measured
from .exposure_outline import ceiling_cleared_by_outlines
from .exposure import (LEVEL_GAMMA, SATURATED_MIN_LEVEL, linear_light,  # noqa: F401 (LEVEL_GAMMA re-exported)
                       saturated_room, well_at_ceiling)
from . import face_bar as _face_bar
from . import face_edge as _edge_round
from . import count_check as _count_check
from . import faint_extra as _faint_extra
from . import overlap_edges as _overlap_edges
from . import overlap_reason as _overlap_reason
from . import touching_pair as _touching_pair
from . import plate_reach
from . import upright_doubt as _upright_doubt
from . import weak_suspects as _weak_suspects
from .face_centre import NO_FIT, fit_face_edge
from .faces import (DEFAULT_FACE_RULE, FACE_SPLIT_MIN_LAB, FACE_SPLIT_MIN_SHARE, FaceReading, FaceRule, classify_face,
                    core_levels,
                    face_split, alike_in_frame, colours_apart, whites_alike, whites_alike_in_lightness,
                    whites_alike_in_yellowness)
from .grids import open_grid
from .io import to_bgr8
from .merged_pair import merged_pairs
from .offplate_contrast import standing_out
from .phantom_finds import phantom_finds
from .plate import (PlateFit, _component_box, _component_centroid, _components_with_areas, find_plate,
                    not_cloth_mask)
from .rim import RIM_BAND_FRAC, RimBands, band_angles_deg, rim_crossings, rim_hidden_arcs, rim_streaks
from .shading import without_shading
from .smooth_plate import SMOOTH_PLATE_FIT_RADIUS_FRAC, with_smooth_plate
from .joined_colour import JOINED_COLOUR_MIN_AREA_TOKENS, colour_joined_to_faces
from .outline import DEFAULT_OUTLINE_RULE, OutlineRule
from .candidates import _mean_residual
from .tokens import (BLOB_MIN_DELTA_E, DEFAULT_TOKEN_RADIUS_FRAC, FAINT_PAIR_CORE_RADII, FLAT_FACE_MIN_AXIS_RATIO,
                     FLAT_KINDS, LEAN_MAX_COSINE, SUSPECT_MIN_CONTRAST, SUSPECT_MIN_CORE_SHARE, TOKENS_PER_ROUND, Candidate,
                     TokenSearch, _dark_not_coloured, blob_threshold, faint_pair_waist, find_tokens)
from .types import Reading, TokenReading
from .white_below_red import whites_below_reds

#: A rim crossing (:func:`vision.rim.rim_crossings`) within this many token
#: radii of a token found, inside the plate, is that token lying against the
#: well's wall (tilted tokens there: 1.0-1.54 radii from their crossing).
RIM_TOKEN_REACH_RADII = 1.6

#: An outcome needs every flat face this round (minor / major axis in the
#: canonical view; a flat face is a circle, a 12 deg tilt gives 0.98).
OUTCOME_MIN_AXIS_RATIO = FLAT_FACE_MIN_AXIS_RATIO
#: ... unless the camera, not the token, drew the face out: a blur along one
#: direction (motion, or a slanted view stretched back to the plate's top,
#: which stretches the lens blur with it) draws every face of the frame out
#: the same way.  A face less round than ``OUTCOME_MIN_AXIS_RATIO`` passes when
#: it is a blob at least ``SHARED_ELONGATION_MIN_AXIS_RATIO`` round and at
#: least ``SHARED_ELONGATION_MIN_FACES`` blob faces of the frame (it among
#: them), each less round than ``SHARED_ELONGATION_MAX_AXIS_RATIO``, point
#: within ``SHARED_ELONGATION_MAX_ANGLE_DEG`` of their common direction (forced
#: four flat tokens 150000-151499 at 640x480: of 32 frames stopped by one
#: face's shape, 10 had three or four faces drawn out alike, 0.81-0.89, within
#: 11 deg).  A token tilted on another is drawn out its own way, and the face
#: under it is seen partly hidden first.
SHARED_ELONGATION_MIN_AXIS_RATIO = 0.78
SHARED_ELONGATION_MAX_AXIS_RATIO = 0.92
SHARED_ELONGATION_MIN_FACES = 3
SHARED_ELONGATION_MAX_ANGLE_DEG = 15.0
#: ... and drawn out by about the same amount: their axis ratios within this
#: of each other (the 10 frames' faces: 0.02-0.08).  A near-round face's
#: direction is poorly fixed, so barely drawn-out faces pointing the same way
#: by chance do not vouch for one drawn out much more.
SHARED_ELONGATION_MAX_RATIO_SPREAD = 0.09
#: Two faces closer than this many token radii (centre to centre) overlap.
OVERLAP_MAX_CENTRE_DIST_RADII = 1.8
#: When no clear face gave the token size (``TokenSearch.radius_source`` is
#: not "discs"), an outcome needs every two faces at least this many of its
#: radii apart.  The size found from edges measured 0.76-1.32 of the true one
#: on the frames read as outcome (296 edge-sized frames of synthesized scenes
#: 1000-1799, 6000-6499, 11000-11499, 12000-12499; 0.97-1.09 from discs), so
#: faces overlapping at 1.8 true radii can sit 1.8 / 0.76 = 2.4 of it apart:
#: two white-on-white overlaps (fresh scenes 12205, 12298, sized 13 % small)
#: were read as four separate faces.  Since the tenth round (2026-12-02) the
#: faint faces' own regions measure that size (:func:`vision.faint_faces._radius_at_half_contrast`):
#: 0.804-1.21 of the true one on the edge-sized frames read as outcome (187
#: frames of fresh sets 341000-353999, median 0.99), so 1.8 / 0.78 = 2.3,
#: with a little room below the least seen.  That room was too little: a
#: white leaning on a white on white porcelain, every face faint, was sized
#: 0.78 of the true radius, and its two faces, 1.80 true radii apart,
#: measured 2.304 of it: read as four separate faces, a wrong outcome (fresh
#: leaning overlap 982201 at 640x480, nineteenth round).  With room below
#: that, 1.8 / 0.75 = 2.4, the bound as it was before the tenth round.
UNMEASURED_SIZE_MIN_CENTRE_DIST_RADII = 2.4
#: The clear discs that give the token size (``TokenSearch.radius_faces``)
#: measure it surely only when one of them at least lies this many of its
#: radii from every other flat face; when each lies nearer to another, as a
#: face touching or under another does (2.0-2.04 true radii for touching
#: faces, with room for the size's own error), its region may be cut by the
#: other or merged with it, and the size counts as not measured (the bound
#: above applies).  A red 12 % under a
#: white leaning on it, the frame's one clear disc (the white too pale to
#: count), gave a size 0.84 of the true one, and the two faces, 1.75 true
#: radii apart, measured 2.01 of it: read as touching, a wrong outcome (fresh
#: leaning overlap 991950 at 640x480, nineteenth round).  On the disc-sized
#: outcomes of fresh natural mixes at 640x480 (205, 1000000-1001999) the size
#: from one disc measured 0.89-1.12 of the true one, from two or more
#: 0.90-1.09; on forced touching outcomes (206, 1002000-1002999) from one disc
#: 0.85-1.07, the one disc mostly one of the touching pair.  (First set at
#: the bound above, 2.4, which also took faces merely near another: studio
#: s2_020, two separate faces 2.36 radii apart, and s1_020 scaled up, then abstained.)
SIZE_FACE_MIN_CLEAR_RADII = 2.2
#: Two flat faces, one of them not a clear blob (found by the disc filter or
#: by its outline), need their centres this many token radii apart for an
#: outcome.  The filter finds a faint face next to another off its centre,
#: away from it (the part beside the other is masked with it, or hidden
#: under it): faces overlapping at 1.41-1.66 true radii were found 1.81-1.94
#: apart, past the overlap bound and read as touching (fresh forced overlaps
#: 153011, 153108, 144608, 144701, 115995; 110457 in a natural mix), each a
#: wrong outcome.  Costs about 1 in 9 right touching pairs (a faint face
#: beside another is found 1.8-2.0 apart too): 10 of 3,000 natural scenes
#: at 640x480 (155000-157999), all touching.
FAINT_PAIR_MIN_CENTRE_DIST_RADII = 2.0
#: ... and the same two faces need their centres by their edges
#: (:func:`_edge_centres`) this many token radii apart too.  A faint face's
#: centroid can lie past the bound above while its edge puts it nearer: a
#: face partly under a token leaning on its outer quarter (offsets 1.70-1.75
#: true radii) was found 2.0-2.3 radii from it by centroids and 1.81-1.91 by
#: edges, and read as touching (fresh leaning overlaps 611243, 800147 and
#: 812970 at 640x480, 817058, 818824 and 819000 at 1280x720; 810432 in a
#: natural mix at 640x480): wrong outcomes.  A faint face touching another
#: is found off its centre too, and its edge mostly puts it nearer (median
#: 0.1 radii, -0.25 to +0.38, on 286 faint pairs of right touching outcomes,
#: 806000-807999 at 640x480 and 816000-816999 at 1280x720), so this costs
#: right touching outcomes: 46 of 340 forced ones at
#: 640x480, 28 of 241 at 1280x720, 8 of 3,000 natural scenes (README, #3,
#: seventeenth round).
FAINT_PAIR_MIN_EDGE_DIST_RADII = 2.0
#: A face not found as a blob, or a half of a split blob, is fitted by its
#: edge (:mod:`vision.face_centre`, :func:`_edge_centres`) when another
#: candidate's centre lies within this many token radii.  The
#: fit matters only for the overlap bound (1.8 radii); a faint face's peak
#: lies at most about 0.5 radii off its centre (forced overlaps 1.53-1.77
#: true radii apart were found 1.78-2.11 apart), so a pair 3 radii apart by
#: its peaks cannot fall under it.
EDGE_FIT_NEIGHBOUR_RADII = 3.0
#: Two flat faces neither of them a clear blob (each found by the disc filter
#: or by its outline), closer than this many token radii, stop an outcome when
#: what joins them at half their value (:func:`vision.tokens.faint_pair_waist`)
#: is at least ``PAIR_MAX_NECK_RADII`` wide (the waist at which one blob is one
#: region, not two faces).  Two faint faces each found off its centre, away
#: from the other, can sit past ``FAINT_PAIR_MIN_CENTRE_DIST_RADII``: a white
#: resting on a white (fresh forced overlap 244792, 1280x720) was found 2.04
#: radii apart and read as touching faces, a wrong outcome.  Such pairs of
#: forced overlaps (244000-244999 at 1280x720, 211500-212499 at 640x480) were
#: found 1.87-2.40 radii apart, 8 of 15 past 2.0, up to the unmeasured-size
#: bound as it then was, hence this reach; joined ones had waists of 1.41-2.07.  Right
#: touching outcomes' pairs of two faint faces (204500-205499 at 640x480,
#: 245000-245999 at 1280x720: 55 pairs) had waists of at most 1.37.  Pairs
#: whose colour is a shadow's are not measured (their shadows join them).
FAINT_PAIRS_JOINED_MAX_DIST_RADII = 2.4
#: Two faces found as parts of blobs, not measured whole (:func:`_half_of_blob`:
#: halves of a blob split as touching, or faces cut at half its contrast),
#: closer than this many token radii by their centroids (touching faces'
#: true centres cannot be; their halves' centroids mostly come out nearer
#: too, so the waist below decides) ...
SPLIT_HALVES_JOINED_MAX_DIST_RADII = 2.0
#: ... stop an outcome when what joins them at half their value
#: (:func:`vision.tokens.faint_pair_waist`, measured whatever their colour)
#: is at least this many token radii wide.  Touching faces meet at a point,
#: widened only by the blur; a face under a token leaning on it meets it along
#: a chord.  Six leaning overlaps (632025, 800751, 812577, 812595, 814946 at
#: 640x480, 819675 at 1280x720; offsets 1.70-1.75 true radii) were split
#: 1.86-1.91 radii apart, as far as touching halves measure (median 1.95, 1st
#: percentile 1.85, on the pairs of halves of the right touching outcomes of
#: 806000-807999 at 640x480 and 816000-816999 at 1280x720), and read as four flat
#: faces: wrong outcomes.  Their waists: 1.24-1.86.  Right touching outcomes'
#: pairs of halves nearer than 2.0: median 1.0, 90th percentile 1.22-1.27
#: (806000-807999 at 640x480, 816000-816999 at 1280x720), so this costs about
#: one right touching outcome in ten: 62 of 581 at 640x480, 25 of 337 at
#: 1280x720.  A/B on fresh seeds (right with / without; README, #3,
#: eighteenth round): touching 640x480 278 / 317, 1280x720 206 / 225; natural
#: mix 640x480 1,363 / 1,369, 1280x720 693 / 694; leaning overlaps 640x480
#: 1,429 / 1,429 and 1280x720 729 / 729, where it closes two more wrong
#: outcomes (898229, 899527: waists 1.40 and 1.31).
SPLIT_HALVES_MAX_WAIST_RADII = 1.2
#: ... and, whatever their waist, when their centres by their edges
#: (:func:`_edge_centres`) are nearer than this many token radii.  A thin line
#: of the leaning token's own edge (its side wall as a pale line, or a dark
#: one) can cut the join at half its value, so the waist misses it: four
#: leaning overlaps at the synthesizer's last offsets (1.71-1.74 true radii,
#: hiding 7-8 % of the face under them) were split 1.87-1.95 radii apart by
#: centroids, 1.81-1.86 by edges, with waists of 0-0.72, and read as four
#: flat faces: wrong outcomes (901486 at 640x480, 922771 and 949081 at
#: 1280x720, leaning overlaps; 955932 in a natural mix at 1280x540).  Between
#: the overlap bound (1.8) and this one the edges cannot tell the two apart:
#: halves of touching faces (2.0-2.04 true) nearer than 2.0 by centroids
#: measure from 1.8 by edges in right outcomes (median 1.92, a quarter under
#: 1.88: 174 pairs, forced touching 959000-959999 at 640x480).  So this costs
#: right touching outcomes, and few others (README, #3, nineteenth round).
SPLIT_HALVES_MIN_EDGE_DIST_RADII = 1.9
#: Two faces each measured whole as a blob, closer than this many token
#: radii (the two scenes below: 1.96-1.97; whole faces of right touching
#: outcomes are found from 1.82) ...
SHORTENED_PAIR_MAX_DIST_RADII = 2.2
#: ... both less round than this (minor / major axis) ...
SHORTENED_PAIR_MAX_AXIS_RATIO = 0.92
#: ... and both drawn out across the line joining them (each major axis
#: more than this many degrees from it) stop an outcome.  A face partly
#: under another is cut short towards it, and a token leaning on another is
#: tilted towards it, its outline foreshortened along the line between them;
#: two flat faces touching are round, and roundness is what separates them
#: (the angle is a guard with no measured margin: whole faces of right
#: touching outcomes point every way, 2-90 deg).  Fresh scenes of a white
#: leaning on a red (908867, natural mix 1280x720: 1.97 radii apart, axis
#: ratios 0.87 and 0.85, majors 79-83 deg from the line) and on a white
#: (912050, natural mix 640x480: 1.96, 0.91 and 0.90, 78-82 deg), the face
#: under each hidden 8-10 %, came out as two separate round-enough blobs
#: and were read as four flat tokens: wrong outcomes.  No pair of whole
#: faces under 2.4 radii in right outcomes was so shortened (36 pairs:
#: touching 640x480 911000-911999 and 1280x720 910000-910999, natural mixes
#: 912000-913999 and 914000-914999): the rounder of each pair measured at
#: least 0.907, and at least 0.948 under 2.2 radii (README, #3, eighteenth
#: round).
SHORTENED_PAIR_MIN_ANGLE_DEG = 45.0
#: A face measured whole and so shortened towards a faint face (found by the
#: disc filter or its outline, whose own shape is not measured) closer than
#: this many token radii stops an outcome too (the reach of the joined faint
#: pairs, ``FAINT_PAIRS_JOINED_MAX_DIST_RADII``).  A red 7 % under a white
#: leaning on it (926691, leaning 640x480): the white found faintly, 2.28
#: radii off by centroids and 2.03 by edges (1.84 true), past both faint-pair
#: bounds; the red's blob 0.90 round, its major axis 86 deg from the line to
#: the white: a wrong outcome.
SHORTENED_BESIDE_FAINT_MAX_DIST_RADII = 2.4
#: A face read white but found only faintly (by the disc filter or by its
#: outline, not as a clear blob) that is at least this much darker than the
#: plate (L*), and darker by more than its chroma, stops an outcome: the shadow
#: of a token on edge falls beside it as a round patch about a face's size,
#: and was read as the frame's white face (fresh scenes 202861, 206238,
#: 193949: 12.5, 14 and 15 L darker, chroma 5.8-8.6; 183093: 18).  True white
#: faces found faintly: 1 of 1,442 that dark, a grey white on white porcelain
#: 12.8 L darker (forced four flat tokens 150000-151499 at 640x480), so the
#: bound costs about one such frame in 1,500.
FAINT_WHITE_MAX_DARK_L = 12.0
#: White faces of one frame differ from the plate the same way: one light,
#: one glaze and one token material (grey whites are darker than a white
#: porcelain plate, bright ones lighter than a dim glaze; a shadow darkens a
#: face but does not turn its difference round).  A white face found only
#: faintly (disc filter or outline) whose core (``FAINT_PAIR_CORE_RADII`` of
#: the radius, the residual from the plate model) points the opposite way to
#: the core of every other white face of the frame (cosine at most
#: ``WHITES_OPPOSED_MAX_COSINE``, the bound of ``tokens._drop_leans``) is the
#: bare plate where the plate model (ring medians, the angular shading fitted
#: over the same ring bands) leans toward those faces, or a face and the
#: plate can't be told apart there: ``uncertain``, never a drop (see
#: :func:`_whites_opposed`).  Fresh leaning overlap 1082806 at 800x600: three
#: grey whites and their shadows in one ring band (0.39-0.40 of the plate
#: radius), under 12 Lab from the plate and so not left out of either fit,
#: pulled its model down there: the angular shading by 2.1-2.6 L (about 0
#: fitted clear of them), the ring median by about 1.4; the bare plate
#: between them was found as a faint white, +5.1 L, cosine -0.99 with both other whites'
#: cores (-3.4 and -2.1 L, measured against the same leaning model), and
#: completed a count of four around an overlap.  False: the rule is off.
WHITES_SAME_WAY = True
WHITES_OPPOSED_MAX_COSINE = LEAN_MAX_COSINE
#: A white face found only faintly (disc filter or outline) that differs from
#: the plate as the plate's own glaze does, darker (``delta_l`` < 0) and with
#: more of the plate's own colour (its core's (a*, b*) difference from the
#: plate within ``GLAZE_ECHO_MIN_COSINE`` of the plate's (a*, b*) direction, on
#: a plate of chroma at least ``GLAZE_ECHO_MIN_PLATE_CHROMA_LAB``), whose core
#: difference recurs around the well at the same distance from the centre
#: (share of the positions on that ring, every ``GLAZE_ECHO_STEP_DEG`` and
#: clear of every candidate by ``GLAZE_ECHO_CLEAR_RADII`` token radii, whose
#: core residual points within ``GLAZE_ECHO_MIN_COSINE`` of the face's with at
#: least ``GLAZE_ECHO_MIN_NORM_SHARE`` of its size, at least
#: ``GLAZE_ECHO_MIN_RING_SHARE``) is ``uncertain``: a token is one place; a
#: difference of the glaze's own colour found again around the same ring is the
#: plate (a shading or highlight band of the glaze the ring model did not
#: follow), and a patch of it reads as a white face.  Fresh scene 809675
#: (natural mix 640x480, three reds on a gold plate, 5,007 K): a disc-filter
#: find of 12.8 Lab beside a broad specular highlight near the well's edge,
#: 4 L darker than the plate, b* 52 against 43 (cosine 0.89 with the plate's
#: colour, its a* against the plate's own -2), its core difference found
#: again on 19 % of its ring; read as an outcome of three reds and that
#: white.  A white token on white porcelain under warm light is as coloured,
#: darker and yellower (ivory: -5 L, +9 b* on a plate of chroma 27), so
#: colour alone can not tell them; its difference does not recur around the
#: ring: of 1,527 true white faces
#: found faintly (fresh forced four flat tokens 1229000-1229404 and
#: 1221500-1222099 on white porcelain, gold and cream with ivory and warm
#: whites under 2,700-4,000 K, and a natural mix 1225000-1225394; 640x480),
#: 76 were as dark and as much of the plate's colour (ivory and warm whites
#: on white porcelain, one ivory on cream): 75 had a ring share of 0, one
#: 0.088 (3 of 34 positions; an ivory face 1.3 L darker, 1222002).  The
#: bound is 1.7 times that largest share; the case's is 0.19.
#: False: the rule is off.
GLAZE_ECHO_UNCERTAIN = True
GLAZE_ECHO_MIN_COSINE = 0.8  # about 37 degrees: the same direction, in (a*, b*) and in Lab
GLAZE_ECHO_MIN_PLATE_CHROMA_LAB = 20.0  # a plate coloured by its glaze or its light, not a grey one
GLAZE_ECHO_STEP_DEG = 6.0  # 60 positions round the ring, under a token radius apart at the well's edge
GLAZE_ECHO_CLEAR_RADII = 2.0  # a position's core clear of every token's disc
GLAZE_ECHO_MIN_NORM_SHARE = 0.5  # a position at least half as different from the plate as the face
GLAZE_ECHO_MIN_RING_SHARE = 0.15  # share of the positions examined (0-1)
#: Fewer tokens than a round has, with disc-like evidence left on the plate
#: (``TokenSearch.suspects``), is ``uncertain``, not a reshake: the evidence
#: may be the token not counted (a pale face whose outline is one-sided, or
#: two pale faces touching, each outline cut where they meet), and a round
#: whose tokens are all there must not be reshaken on a count the reader is
#: not sure of; a supervisor who sees one missing calls the reshake.  Studio
#: renders s0_019 and s0_024 (1280x720): a pale face's suspect beside three
#: or two counted tokens, read as reshakes.  False: a reshake, as before.
FEWER_WITH_SUSPECT_UNCERTAIN = True
#: ... and so is a count below four on a plate with a region of the well at
#: the sensor's ceiling that could hold a white face
#: (``SATURATED_ROOM_MIN_RADII``, the outcome's own test below): a white token
#: there does not show, and the reshake would throw away a round whose four
#: tokens lie flat.  Fresh scene 1150018 (natural mix 640x480, touching, +1.28 stops,
#: white porcelain): the whole well at 254-255, three reds counted, the
#: white face among them invisible; read as a reshake on a count of three.
#: False: a reshake, as before.
FEWER_ON_CEILING_UNCERTAIN = True
#: A flat face lying alone is a whole disc seen from above: walking out from
#: its centre, its colour ends at about one token radius at every angle.  A
#: stick laid over it (or a finger) cuts a notch into that outline, where the
#: face's colour ends well short of its radius over a stretch of angles,
#: though the rod itself may differ too little from a dark plate to be found
#: (its blob below the search's threshold) and the hand holding it sit on a
#: cloth of its own colour.  Fresh scene 1211133 (natural mix 640x480, stick:
#: a dark-brown rod 0.029 plate radii thick from a brown hand on wood across a
#: black lacquer rim, hiding 13.5 % of a red face): the red face's outline
#: ends at 0.60 token radii where the rod lies over it against a median of
#: 0.97, a notch 0.37 token radii deep; the four faces were read as an
#: outcome.  True: a blob face with a notch at least
#: ``FACE_NOTCH_MIN_DEPTH_RADII`` deep is ``uncertain``.  False: as before.
FACE_NOTCH_UNCERTAIN = True
#: The notch's least depth, token radii: the face's median edge radius less
#: its least (see :func:`face_notch_depth`).  True blob faces read as
#: outcomes measure at most 0.237 (1,944 faces of 659 right outcomes: four
#: flat 1230000-1230999 and natural mix 1231000-1231599 at 640x480; 99 %
#: under 0.17); the case measures 0.37.  Only blob faces are judged: a faint
#: or outline face lies near the plate's colour, and its edge so measured
#: wanders (true ones up to 1.17 in the same sample).
FACE_NOTCH_MIN_DEPTH_RADII = 0.30
#: A face found faintly (or by its outline) is not judged by its notch alone:
#: its edge so measured wanders.  True: such a face notched
#: ``FACE_NOTCH_MIN_DEPTH_RADII`` deep at angles whose ray from its centre
#: meets a streak across the rim band (:func:`vision.rim.rim_streaks`, at half
#: the rim-crossing floor) is ``uncertain`` (:func:`faint_notch_to_rim`).
#: Fresh 1492230 (stick 800x600, black lacquer, wood cloth, defocus 2 px, JPEG
#: 53): a pale rod 0.016 plate radii thick from a hand far off the plate runs
#: over the rim onto a faint white face; across the rim it measures 0.85 of
#: the rim band's floor and 0.50 of the cloth band's, no cloth bar is found
#: (about 5 Lab from the wood), over the rim band the bar holds 0.58 of the
#: line (< ``face_bar.MIN_SHARE`` 0.7; the bevel's shading crosses the rod's
#: lightness), but the face's outline is notched 0.44 token radii deep
#: toward the rim's streak.  The rule runs last of the stick rules; with
#: theirs off it stops four older stick cases too (1237331 640x480, 1461030
#: 1280x720, 1463193 800x600, 20362 1280x720).  A/B on fresh 1520000-1520599
#: (stick and four flat 800x600, black lacquer, wood cloth): no reading
#: changed.  False: as before.
FAINT_NOTCH_TO_RIM_UNCERTAIN = True
#: Angles round the face at which its edge is found (one per 5 degrees).
FACE_NOTCH_ANGLES = 72
#: The edge is looked for out to this many token radii from the centre ...
FACE_NOTCH_REACH_RADII = 1.4
#: ... in steps of this many canvas pixels.
FACE_NOTCH_STEP_PX = 0.5
#: The face's own colour: the median residual within this many token radii of its centre.
FACE_NOTCH_CORE_RADII = 0.5
#: A pixel is the face's while its residual's projection on the face's colour
#: is at least this share of it (0.5: nearer the face than the plate).
FACE_NOTCH_FACE_SHARE = 0.5
#: A stick laid over a face from outside the plate is one straight bar over
#: the face and over the cloth beyond the plate's outline, of one colour,
#: though between the two it may not show (a dark rod on a black glaze, or
#: under the rim-crossing rule's floor across the rim's bands):
#: :func:`vision.face_bar.face_bar` (its settings there: the bar's width,
#: contrast and colour, the share of the line it must fill).  Fresh scene
#: 1237331 (stick 640x480, a dark-brown rod over a red face against the well's
#: wall on a black lacquer plate, 14.5 % of it hidden): all four faces found
#: faintly, so the notch rule (blob faces only) did not judge them, and the
#: rod crossed the rim at 0.66 and 0.79 of the two bands' floors; read as an
#: outcome of 4 red (the count right, but a stick lay over a face).  True: a
#: flat face on such a line is ``uncertain``.  False: as before.
FACE_BAR_UNCERTAIN = True
#: ... and where the cloth band shows none (a hand of the cloth's colour over
#: it), one straight bar over a face's outer half and across the rim band, of
#: one colour, where the rim band shows a streak at half its rim-crossing floor
#: (:func:`vision.face_bar.rim_face_bar`, :func:`vision.rim.rim_streaks`).
#: Fresh 1388241 (stick 800x600, a dark rod from a brown hand on wood over a
#: black lacquer rim onto a white face found faintly; the rim crossing at 0.95
#: of the floor): read an outcome of 1 red.  True: a flat face on such a line is
#: ``uncertain``.  False: as before.
RIM_BAR_UNCERTAIN = True
#: A stretch of the rim band wider than a token that looks like the cloth band
#: just outside it (:func:`vision.rim.rim_hidden_arcs`): something lies over
#: the rim and on out over the cloth, a hand of the cloth's colour that the
#: plate search takes for cloth.  Fresh 1463193 (stick 800x600, a rod held by a
#: brown hand lying over a black lacquer rim on wood; the rod starts inside the
#: plate, so it crosses neither band): read an outcome of 3 red.  True:
#: ``uncertain``.  False: as before.
RIM_HIDDEN_UNCERTAIN = True
#: ... where the plate search also saw the cloth on the plate's outline, sampled
#: at this fraction of the plate radius (the rim band's outer edge, inside the
#: outline the plate's ellipse was fitted to).
RIM_HIDDEN_OUTLINE_FRAC = RIM_BAND_FRAC[1]
#: The blob search (:func:`vision.tokens.blob_threshold`: five robust standard
#: deviations of the plate's colour difference above its median) is what sees a
#: hand or a stick lying on the plate.  Where the plate model fits the glaze
#: badly (a glossy black lacquer lit from one side leaves a wide ring of
#: difference in the well) that threshold rises above every face found: no
#: face is a blob, and a hand no more contrasting than a face is seen by
#: nothing.  True: faces with the threshold above the strongest of them, and
#: above its floor ``BLOB_MIN_DELTA_E``, are ``uncertain``.  Fresh 1514331 (a hand lying wholly on the plate over a
#: red face; threshold 99 Lab, faces 42-50) and 1492046 (a brown hand over the
#: rim and a red face; 70.7 against 65.8) read outcomes.  False: as before.
BLIND_BLOB_SEARCH_UNCERTAIN = True
#: A colour the plate does not have, joined to a face over more than
#: ``joined_colour.JOINED_COLOUR_MIN_AREA_TOKENS`` token areas beyond the faces'
#: discs (:func:`vision.joined_colour.colour_joined_to_faces`: the residual's
#: (a*, b*) part, which a lamp's gloss hardly moves): a hand or a stick lies
#: over that face.  Fresh 1612028 (stick 640x480, black lacquer, wood cloth):
#: a hand of the wood's colour from the cloth over the rim and 40 % of a red
#: face.  The angular shading and ring model take in part of the hand (the
#: rings' background there L* 30, the glaze 10-20), leaving it 20 Lab from the
#: plate model, under the blob threshold of 61 (the lit glaze's lightness runs
#: 20-45 across the well) but the whites (contrast 72) over it, so the search is
#: not blind; the red face (39.9) found by the disc filter alone; the hand
#: over the rim 8.5-9.5 Lab from the cloth band (the hidden-rim rule wants 6),
#: no rim crossing, no bar, the red face's notch 0.20 (a faint face) and its
#: halves 7.8 apart (12 needed): read an outcome of 1 red.  Its (a*, b*)
#: residual: threshold 16.5 Lab, 6.98 token areas joined to the red face (right
#: outcomes: at most 0.07).  It stops the earlier hand cases too, their own
#: rules off: 1514331, 1492046 (tests/test_hand_on_plate.py), 1463193.  A/B
#: against False on fresh seeds (2026-12-05, 526277e; right on / off, 0 wrong
#: on either side, no reading changed): sticks on black lacquer 1630000-1630399
#: at 640x480 149 / 149; sticks on wood 1632000-1632399 at 800x600 186 / 186;
#: sticks on black lacquer on wood 1634000-1634599 at 640x480 245 / 245; four
#: flat 1631000-1631399 at 640x480 240 / 240; natural mix 1633000-1633399 at
#: 1280x720 269 / 269.  About 3 ms a frame that reaches it.  True:
#: ``uncertain``.  False: as before.
JOINED_COLOUR_UNCERTAIN = True
#: Where the search on the ring model with its angular shading is blind as
#: the rule above means it (its blob threshold above ``BLOB_MIN_DELTA_E`` and
#: above every flat face's contrast: the plate's colour runs across the well
#: in a way the rings do not follow), the token search runs again on a smooth
#: 2-D model of the well (:func:`vision.smooth_plate.with_smooth_plate`: a
#: robust cubic in the plate's coordinates per Lab channel), held to that
#: model's own blob threshold inside ``smooth_plate.SMOOTH_PLATE_FIT_RADIUS_FRAC``
#: of the plate radius and to the rings' beyond (the well's wall and the
#: rim's bands, which the rings model and the cubic does not: at the smooth
#: threshold their glaze arcs were objects across the rim, 73 of 150 fresh
#: four-flat frames on black lacquer), when that threshold is the lower.  On
#: black lacquer lit from one side it falls from 45-100 Lab to its floor and
#: the faces are blobs again, and so is a hand (1492046).  A/B against False
#: on fresh seeds (2026-12-05, 61ce905): four flat on black lacquer
#: 1595000-1595399 at 640x480 185 -> 205 right; sticks on black lacquer on
#: wood 1596000-1596399 at 800x600 181 -> 182; natural mix 1597000-1597399 at
#: 1280x720 284 and 284; 0 wrong on either side.  False: the rings and their
#: shading alone, as before.
SMOOTH_PLATE_MODEL = True
#: ... only when the smooth model's blob threshold is at most this (Lab
#: units): where it fits the well.  Fresh four flat tokens on black lacquer
#: (1590000-1590149, 640x480) that the blind rule stopped: 14.0-18.5 on the
#: smooth model (45-79 on the rings); a hand or a stick on the plate spoils
#: the fit itself (fresh sticks 1590200-1590399 on wood, 800x600: 21.5-64.8
#: where a hand lay over the well; 1514331: 74), and there the frame is
#: read as before, the rule above judging it.
SMOOTH_PLATE_MAX_THRESHOLD_LAB = 20.0
#: A face's colour direction is read only where its core differs from the
#: plate by at least this share of its disc contrast (the share below which a
#: find's contrast comes from its surround ring alone,
#: ``tokens.SUSPECT_MIN_CORE_SHARE``): a core within a Lab unit of the plate
#: points anywhere (two grey whites on white porcelain, cores 0.95 and 0.46
#: Lab from the plate at contrasts 4.9 and 4.2, cosine -0.75: fresh forced
#: four flat tokens 1113551).  Whites whose direction is not read are left out
#: of the comparison, on either side.
WHITES_OPPOSED_MIN_CORE_SHARE = SUSPECT_MIN_CORE_SHARE
#: ... and the face judged must differ from the plate by at least this in its
#: core (Lab units; ``tokens.SUSPECT_MIN_CONTRAST``, the least disc evidence
#: that stops an outcome): a difference of a Lab unit or two is the plate
#: model's own error, and the angular shading fit can turn it round (studio
#: s0_002 scaled to 1920x1080: three white outline faces on white porcelain,
#: cores -1.6, +0.4 and +1.7 L against the shading-corrected model, +0.7,
#: -1.4 and -2.1 against the plain rings; cosine -0.70).
WHITES_OPPOSED_MIN_CORE_LAB = SUSPECT_MIN_CONTRAST
#: An outcome needs no region of the well at the sensor's ceiling, away from
#: the tokens found, holding a disc of this many token radii: a white token
#: there would not show (:mod:`vision.exposure`).  Less than a whole face: a
#: white face at the ceiling is itself such a region, its core clipped and its
#: rim softened by the blur to 0.85-0.91 token radii (fresh scene 120143, a
#: fifth face not found; was 1.0, a whole face).
SATURATED_ROOM_MIN_RADII = 0.75
#: A face read white whose core is at least this in the camera's red channel
#: (median, 8-bit levels) has lost what tells it from a red: a red face washed
#: out past the ceiling keeps its green and blue but not its red margin, and
#: looks like a white one in warm light.  Four reds on black lacquer under
#: 2700-3100 K at +2.6 to +3.6 stops (forced scenes 430108, 430123, 430124,
#: 1280x720) read as whites at red 253-255 on the dark plate, which is not at
#: the ceiling (:data:`SATURATED_ROOM_MIN_RADII` does not see them): wrong
#: outcomes.  One frame cannot show how far past the ceiling a face is, so
#: such a white is decisive only where a red face shows the light (below).
#: The ceiling of :mod:`vision.exposure`; above 255 the rule is off.  True
#: reds read white in stress scenes (430000-430499 at 1280x720, 450000-450299
#: at 1920x1080, +1.5 to +4 stops) measured 252-255, since a red needs
#: several times a white's light to look like one; true whites inside the
#: drawn range measured anywhere up to 255 (the synthesizer's highlight
#: shoulder), so a higher level would save few frames with no margin left.
WHITE_CEILING_RED_LEVEL = SATURATED_MIN_LEVEL
#: ... a face read red shows the light: the four tokens are alike, and a red
#: reaches a white's look only where its green (which it does not clip) rises
#: to the white's.  A clipped white is decisive when its green is at least
#: this many times a red face's green (linear light, gamma 2.2): that red would
#: need that much more light.  Two faces on one plate get less than twice
#: each other's light: at twice, whites would differ by about 17 L* at L* 90,
#: past :data:`vision.faces.WHITE_MAX_SPREAD_L` (studio s1_022, 2826 K: reds
#: at red 253 and green 125, whites at 254 and 238-243, a ratio of 4.1).
RED_LIGHT_MIN_RATIO = 2.0
#: ... and that red is the most lit one read red (the largest green), not the
#: darkest.  The ratio above holds a red's diffuse light; a glossy face under
#: the lamp's reflection also takes the light's own colour on top, which
#: lifts its green (and blue) without its pigment's red, so on one plate
#: reds then differ in green by more than the two-fold the rule allows
#: between faces, and a red under the reflection reaches a clipped white's
#: look with no more diffuse light.  The reds of the frame show how far the
#: light lifts a red on this plate; a clipped white is decisive only beyond
#: the most lifted of them.  Fresh scene 1642383 (640x480, black lacquer,
#: 3014 K, +0.79 stops, four orange reds): reds' greens 112, 113 and 158
#: (linear 0.16-0.35: already 2.1-fold apart), the red in the lamp's
#: reflection read white at red 255, green 192 (linear 0.54): 3.3 times the
#: darkest red's, 1.5 times the most lit one's; read as 3 red.  A/B against
#: False on fresh seeds (2026-12-05, da57ea9; right on / off, 0 wrong on
#: either side): four flat on black lacquer 1660000-1660399 at 640x480
#: 195 / 196 (1660014: crimson reds washed to green 184-193 beside a white
#: clipped at 255, 1.85 times the most lit red's, 2.05 the darkest's, now
#: uncertain); on black lacquer at 2800-3600 K and +0.3 to +1.0 stops
#: 1661000-1661399 at 800x600 137 / 137, at +0.5 to +1.0 stops
#: 1663000-1663399 at 640x480 122 / 122; any glaze at 2800-3600 K and +0.5 to
#: +1.0 stops 1664000-1664399 at 640x480 72 / 72; natural mix
#: 1662000-1662399 at 1280x720 269 / 269.  True: the most lit red.  False:
#: the darkest red, as before.
WASHED_WHITE_AGAINST_MOST_LIT_RED = True
#: That ratio is taken in linear light: 8-bit levels with the display gamma
#: :data:`vision.exposure.LEVEL_GAMMA` (:func:`vision.exposure.linear_light`;
#: imported above, ``LEVEL_GAMMA`` here).
#: A studio profile's light (:class:`LightReference`) shows the light only
#: where the plate's well measures it, then and now: its L* between these
#: (Lab units); near the ceiling a brighter light no longer lightens it.
LIGHT_REFERENCE_PLATE_L_RANGE = (10.0, 90.0)
#: The well over which the plate's lightness is taken, fraction of the plate radius.
LIGHT_REFERENCE_WELL_FRAC = 0.8
#: A plate whose semi-major axis is shorter than this (source pixels) is too
#: small to read: ``uncertain``, saying so, rather than a reading of a few
#: pixels per token (a 64x48 frame was read "token(s) off the plate").  Half
#: the smallest plate of a supported frame: 640x480 with the plate across 30 %
#: of its height (the synthesizer's smallest) has a semi-axis of 72 px.
MIN_PLATE_SEMI_AXIS_PX = 36.0
#: The bowl: the plate model's centre differs from its mid-well ring by at
#: least this much (Lab units; see :func:`covered_evidence`).
COVERED_MIN_DOME_DELTA_E = 8.0
#: ... or its well differs in chroma from its rim band by at least this
#: (Lab units; see :func:`covered_evidence`; bare plates measure <= 7).
COVERED_MIN_RIM_CHROMA = 10.0
#: A bowl's dome shows a highlight at most one face's size, which the token
#: search can take for a face: with the bowl's cues seen, this many flat finds
#: (besides outlines) still read ``covered``; four tokens show two or more.
#: (Synthesized covered scenes of seeds 96000-97999 at 640x480: 81 of 188 read
#: ``covered`` when none was allowed, 127 with one; no other scene changed.)
COVERED_MAX_FLAT_FINDS = 1
#: Off-plate blob area relative to one token's projected area.
OFFPLATE_AREA_RANGE = (0.35, 2.5)
#: An off-plate blob is a token only when its own axis ratio (minor over major
#: axis of its second moments) is at least this fraction of the plate's
#: (``ellipse.b / ellipse.a``): a face lying on the table is foreshortened as
#: the plate is, and a piece of a rod or a finger on the cloth is far thinner
#: than that, which the bounding box's squareness test misses when the piece
#: lies diagonally.  (Measured: synthesized off-plate tokens 0.72-1.21 of the
#: plate's ratio, 246 tokens on 640x480 and 1280x720 seeds 1610000-1610399;
#: rod pieces off the plate 0.05-0.13, stick scenes on black lacquer and wood
#: 1570000-1570199, which read ``reshake``.)  0 switches the test off.
OFFPLATE_MIN_AXIS_RATIO_OF_PLATE = 0.5
#: A stick or hand: a not-cloth region touching the band out to this fraction
#: beyond the plate outline ...
INTRUSION_BAND_FRAC = 0.12
#: ... longer than this many token diameters (or larger than the largest
#: off-plate token) reaches onto the plate.
INTRUSION_MIN_LENGTH_DIAMS = 2.5
#: Margin around the plate ellipse ignored by the off-plate search (the rim's
#: own shadow), fraction of the plate axes.
OFFPLATE_PLATE_MARGIN_FRAC = 0.06


#: A frame whose channels never differ by more than this (8-bit levels) is greyscale.
COLOURLESS_MAX_CHANNEL_DIFF = 3


@dataclass(frozen=True)
class LightReference:
    """The studio's light at calibration: the plate's lightness and a red face's green then.

    With it, a frame with no red in view still shows the light: the plate's
    lightness now against then gives the exposure's change, and the
    calibrated red's green, changed by as much, stands for a red's
    (:func:`washed_out_whites`).

    Attributes
    ----------
    plate_l : float
        The plate's well without tokens, mean L* (Lab units, 0-100).
    red_green_level : float
        A red face's green then, the camera's 8-bit level (0-255, > 0).
    """

    plate_l: float
    red_green_level: float

    def __post_init__(self) -> None:
        if not 0.0 < self.plate_l < 100.0:
            raise ValueError(f"plate_l: expected an L* in (0, 100), got {self.plate_l}")
        if not 0.0 < self.red_green_level <= 255.0:
            raise ValueError(f"red_green_level: expected an 8-bit level in (0, 255], got {self.red_green_level}")


@dataclass(frozen=True)
class ReaderSettings:
    """Decision settings; a studio profile may override them.

    Attributes
    ----------
    token_radius_frac : (float, float)
        Plausible face radius, fractions of the plate radius.
    face_rule : FaceRule
        Red/white thresholds.
    outline_rule : OutlineRule
        When a dark outline alone counts as a pale face.
    light : LightReference or None
        The studio's light at calibration (None: no profile, or none learnt).
    """

    token_radius_frac: tuple[float, float] = DEFAULT_TOKEN_RADIUS_FRAC
    face_rule: FaceRule = DEFAULT_FACE_RULE
    outline_rule: OutlineRule = DEFAULT_OUTLINE_RULE
    light: LightReference | None = None

    def __post_init__(self) -> None:
        lo, hi = self.token_radius_frac
        if not 0 < lo < hi < 0.5:
            raise ValueError(f"token_radius_frac: expected 0 < lo < hi < 0.5, got {self.token_radius_frac}")


def covered_evidence(view: CanonicalView) -> tuple[float, float]:
    """Two measures of a bowl over the plate, from the plate model's rings.

    Returns
    -------
    dome : float
        Colour difference between the centre (r < 0.3 R) and the mid-well ring
        (0.6-0.75 R), Lab units.  A bare plate's well is evenly lit; a bowl's
        dome is lit at its crown and darkens towards its edge (or the reverse).
    rim_chroma : float
        Norm of the (a*, b*) difference between the mid-well ring and the rim
        band (0.88-0.96 R), Lab units.  A bare plate is one glaze, so these
        differ mostly in lightness (shading); a bowl covering the well is
        another material, whose chroma differs from the rim's around it.
    """
    centre, mid, rim = view.ring_colour(0.0, 0.3), view.ring_colour(0.6, 0.75), view.ring_colour(0.88, 0.96)
    return float(np.linalg.norm(centre - mid)), float(np.hypot(mid[1] - rim[1], mid[2] - rim[2]))


def plate_ellipse_mask(plate: PlateFit, grow: float) -> np.ndarray:
    """The plate ellipse, grown by ``grow``, filled in the plate finder's downscaled frame.

    Returns
    -------
    ndarray, uint8, (h, w) of ``plate.cloth_deviation``, values 0 or 1
    """
    s, e = plate.work_scale, plate.ellipse
    m = np.zeros(plate.cloth_deviation.shape, np.uint8)
    cv2.ellipse(m, center=(int(round(e.cx * s)), int(round(e.cy * s))),
                axes=(int(round(e.a * s * grow)), int(round(e.b * s * grow))), angle=e.angle_deg,
                startAngle=0, endAngle=360, color=1, thickness=cv2.FILLED)
    return m


def outside_plate_mask(plate: PlateFit) -> np.ndarray:
    """Not-cloth pixels outside the plate (its outline grown by ``OFFPLATE_PLATE_MARGIN_FRAC``).

    Returns
    -------
    ndarray, uint8, (h, w) of ``plate.cloth_deviation``, values 0 or 1
    """
    inner = plate_ellipse_mask(plate, 1.0 + OFFPLATE_PLATE_MARGIN_FRAC)
    # the plate search's own mask when it kept it (the same function of the same maps)
    not_cloth = plate.not_cloth
    if not_cloth is None:
        not_cloth = not_cloth_mask(plate.cloth_deviation, plate.cloth_lightness)
    return not_cloth & (1 - inner)


def offplate_blobs(plate: PlateFit, token_area_src_px: float,
                   outside: np.ndarray | None = None) -> list[tuple[float, float, float]]:
    """Token-sized things on the cloth outside the plate.

    Parameters
    ----------
    plate : PlateFit
        A found plate, with its cloth-deviation maps.
    token_area_src_px : float
        Expected area of one face in source pixels squared.
    outside : ndarray, uint8, optional
        :func:`outside_plate_mask` of ``plate``, when the caller has it.

    Returns
    -------
    list of (x, y, radius) in source pixels; empty when there is none.
    """
    s = plate.work_scale
    mask = outside_plate_mask(plate) if outside is None else outside
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    if not cv2.hasNonZero(mask):
        return []  # no component (the usual bare cloth): no labelling pass
    # The labels and areas without OpenCV's other statistics (see
    # vision.plate._components_with_areas); the box and centre only of the
    # components that are token-sized, in label order.
    n, labels, areas = _components_with_areas(mask)
    expected = token_area_src_px * s * s
    # The size test on every component at once, then the squareness test and
    # the centre of the few that pass (the same comparisons, in order).
    area = areas[1:]
    sized = (OFFPLATE_AREA_RANGE[0] * expected <= area) & (area <= OFFPLATE_AREA_RANGE[1] * expected)
    min_axis_ratio = OFFPLATE_MIN_AXIS_RATIO_OF_PLATE * plate.ellipse.b / plate.ellipse.a
    out = []
    for i in np.flatnonzero(sized) + 1:
        bx, by, bw, bh = _component_box(mask, labels, n, int(i))
        if min(bw, bh) < 0.35 * max(bw, bh):
            continue
        if min_axis_ratio > 0:
            rr, cc = np.nonzero(labels[by:by + bh, bx:bx + bw] == i)
            if _axis_ratio(np.column_stack([cc, rr])) < min_axis_ratio:
                continue  # a thin piece (of a rod, a finger), not a face lying on the table
        cx, cy = _component_centroid(labels, int(i), int(areas[i]))
        out.append((float(cx / s), float(cy / s), float(math.sqrt(areas[i] / math.pi) / s)))
    return out


def plate_intrusions(plate: PlateFit, token_area_src_px: float,
                     outside: np.ndarray | None = None) -> list[tuple[float, float, float]]:
    """Things that reach onto the plate from the cloth: a stick, a hand.

    Parameters
    ----------
    plate : PlateFit
        A found plate, with its cloth-deviation maps.
    token_area_src_px : float
        Expected area of one face, source pixels squared.
    outside : ndarray, uint8, optional
        :func:`outside_plate_mask` of ``plate``, when the caller has it.

    Returns
    -------
    list of (x, y, length_px) in source pixels: each not-cloth region outside
    the plate that touches the band just around the plate's outline and is
    larger or longer than a token; empty when there is none.
    """
    s = plate.work_scale
    outside = outside_plate_mask(plate) if outside is None else outside
    if not cv2.hasNonZero(outside):
        return []  # no component (the usual bare cloth): no labelling pass
    band = plate_ellipse_mask(plate, 1.0 + INTRUSION_BAND_FRAC) & (1 - plate_ellipse_mask(
        plate, 1.0 + OFFPLATE_PLATE_MARGIN_FRAC))
    # (labels and areas only; the box and centre of the components that touch the band)
    n, labels, areas = _components_with_areas(outside)
    token_area = token_area_src_px * s * s
    token_diam = 2.0 * math.sqrt(token_area / math.pi)
    # The components with a pixel in the band, from the band's labels (one
    # pass, instead of one whole-frame comparison per component).
    touching = np.zeros(n, bool)
    touching[labels[band > 0]] = True
    out = []
    for i in np.flatnonzero(touching[1:]) + 1:
        box = _component_box(outside, labels, n, int(i))
        length = float(max(box[2], box[3]))
        if ((areas[i] > OFFPLATE_AREA_RANGE[1] * token_area
                or length > INTRUSION_MIN_LENGTH_DIAMS * token_diam)
                and not plate_reach.is_plate_shadow(plate, labels, int(i), box)):  # its own shadow
            cx, cy = _component_centroid(labels, int(i), int(areas[i]))
            out.append((float(cx / s), float(cy / s), length / s))
    return out


def _token_readings(view: CanonicalView, cands: list[Candidate], faces: list[FaceReading | None]
                    ) -> tuple[TokenReading, ...]:
    scale = view.source_scale()
    out = []
    for c, f in zip(cands, faces):
        x, y = view.to_source(c.x, c.y)
        if c.kind == "upright":
            face, p = "upright", None
        elif f is None:
            face, p = "unknown", 0.5
        else:
            face, p = f.face, f.p_red
        out.append(TokenReading(x=x, y=y, radius=max(c.radius * scale, 1e-3), face=face, p_red=p))
    return tuple(out)


def decide(view: CanonicalView, search: TokenSearch, plate: PlateFit,
           face_rule: FaceRule = DEFAULT_FACE_RULE, evidence: tuple[float, float] | None = None,
           light: LightReference | None = None
           ) -> tuple[str, str, list[Candidate], list[FaceReading | None], float]:
    """Turn the stage results into a verdict.

    ``search``: the token search on ``view`` (its candidates in ``view``'s
    pixels, its ``blob_threshold_lab``, when recorded, ``view``'s).
    ``evidence``: :func:`covered_evidence` of ``view`` when the caller has it
    (it reads only ``view.lab`` and the plate's geometry).  ``light``: the
    studio's light at calibration, when a profile gives it.

    Returns
    -------
    verdict, reason, the candidates reported, their face readings (None for
    non-flat ones), confidence in [0, 1].
    """
    covered = covered_verdict(view, search, evidence)
    if covered is not None:
        return covered
    cands = list(search.candidates)
    r = search.token_radius_px
    # disc-filter overlap/partial finds too faint to be a face (vision.phantom_finds)
    gone = {id(c) for c in phantom_finds(view.residual, view.background, cands, r)} if r > 0 else set()
    cands = [c for c in cands if id(c) not in gone]
    objects = [c for c in cands if c.kind == "object"]
    flat = [c for c in cands if c.kind in FLAT_KINDS]
    tokenish = [c for c in cands if c.kind != "object"]
    def face_r(c: Candidate) -> float:
        """The radius a flat face is read at: a blob disc's own, else the frame's token radius."""
        return c.radius if c.kind == "disc" else r

    faces: list[FaceReading | None] = [classify_face(view, c.x, c.y, face_r(c), face_rule)
                                       if c.kind in FLAT_KINDS else None for c in cands]
    # an undecided face of the colour of a decided face beside it (the same light) is that colour
    faces = alike_in_frame(faces)
    if not tokenish:
        if search.suspects:
            strongest = max(c for _, _, c in search.suspects)
            return ("uncertain", f"plate found but no token read on it, only {len(search.suspects)} unclear "
                    f"mark(s) (strongest contrast {strongest:.1f} Lab units): check by hand", cands, faces, 0.5)
        return "uncertain", "plate found but no token on it", cands, faces, 0.5
    if objects:
        where = "across the rim" if any(o.crosses_rim for o in objects) else "on the plate"
        return ("uncertain", f"something larger than a token {where} (stick, hand or bowl): check by hand",
                cands, faces, 0.5)

    scale_src = view.source_scale()
    token_area_src = math.pi * (r * scale_src) ** 2 * (plate.ellipse.b / plate.ellipse.a)
    outside = outside_plate_mask(plate)
    off = offplate_blobs(plate, token_area_src, outside)
    if off:  # a lit patch of the cloth is no token (see vision.offplate_contrast)
        off = standing_out(off, plate.cloth_deviation, outside,
                           plate_ellipse_mask(plate, 1.0 + OFFPLATE_PLATE_MARGIN_FRAC), plate.work_scale)

    reaching = plate_intrusions(plate, token_area_src, outside)
    if reaching:
        return ("uncertain", f"something reaches onto the plate from outside (stick or hand, "
                f"{max(r[2] for r in reaching):.0f} px long): read again when it has left", cands, faces, 0.5)
    uprights = [c for c in cands if c.kind == "upright"]
    overlaps = [c for c in cands if c.kind == "overlap"]
    partials = [c for c in cands if c.kind == "partial"]
    n_tokens = len(flat) + len(uprights) + len(partials) + 2 * len(overlaps) + len(off)
    if uprights and _upright_doubt.UPRIGHT_DOUBT_RULE:  # a stick's end, a face's sliver (vision.upright_doubt)
        doubts = [_upright_doubt.upright_doubt(
            view.lab, view.residual, c.x, c.y, c.angle_deg, c.area_px, c.axis_ratio, c.contrast,
            [(o.x, o.y) for o in tokenish if o is not c and o.found_by == "blob"],
            [(o.x, o.y) for o in tokenish if o is not c], r,
            _upright_doubt.camera_tilt_deg(plate.ellipse.a, plate.ellipse.b)) for c in uprights]
        if all(doubts):
            return ("uncertain", f"a bar found as a token on edge {_upright_doubt.DOUBT_REASONS[doubts[0]]}: "
                    f"check by hand", cands, faces, 0.5)
        uprights = [c for c, d in zip(uprights, doubts) if d is None]
    if uprights:
        return "reshake", f"{len(uprights)} token(s) standing on edge", cands, faces, 0.9
    if off:
        return "reshake", f"{len(off)} token(s) off the plate", cands, faces, 0.9
    # A thin stick may hardly show on the cloth at the plate search's scale;
    # across the rim, or on the cloth right outside it, it does.  A token
    # against the well's wall reaches into the rim band: a crossing there
    # beside a token found is that token.
    # the rim and cloth bands, sampled once for the three band measures here and below
    bands = RimBands(view, r, plate.frame_size)
    crossing = [k for k in rim_crossings(view, r, plate.frame_size, bands=bands)
                if k.band in ("cloth", "both")
                or all(math.hypot(k.x - c.x, k.y - c.y) > RIM_TOKEN_REACH_RADII * r for c in tokenish)]
    if crossing:
        return ("uncertain", f"something lies across the plate's rim ({len(crossing)} place(s); a stick or a "
                f"hand): read again when it has left", cands, faces, 0.5)
    hidden = (rim_hidden_arcs(view, r, plate.frame_size, _outline_seen_as_cloth(view, plate), bands=bands)
              if RIM_HIDDEN_UNCERTAIN else [])
    if hidden:
        longest = max(hidden, key=lambda h: h.length_radii)
        return ("uncertain", f"the plate's rim is hidden over {longest.length_radii:.1f} token radii at "
                f"{longest.angle_deg:.0f} deg, as if by the cloth (a hand over it?): read again when it has left",
                cands, faces, 0.5)
    # A face not found as a blob is found off its centre beside another; its
    # edge gives the centre as surely as a blob's outline does (see
    # vision.face_centre), so two faces overlap when either measure puts them close.
    # Every two flat faces, once: their distances by centres and by edges.
    pairs = _face_pairs(flat, _edge_centres(view.residual, flat, tokenish, r), r)
    # a pair whose faces measure whole and two of their own radii apart touches (see vision.touching_pair)
    # (measured out to the unmeasured-size bound; the overlap and faint-pair rules take those under 2.0 as before)
    touch_own = _touching_pair.touching_pairs(
        view.residual, [((p.a.x, p.a.y), (p.b.x, p.b.y), min(p.dist_radii, p.edge_dist_radii)) for p in pairs],
        [(c.x, c.y) for c in tokenish], r, _touching_pair.own_scale_reach(FAINT_PAIR_MIN_CENTRE_DIST_RADII,
                                                                          UNMEASURED_SIZE_MIN_CENTRE_DIST_RADII)
    ) if pairs and r > 0 else []
    touch = [t and min(p.dist_radii, p.edge_dist_radii) < FAINT_PAIR_MIN_CENTRE_DIST_RADII
             for p, t in zip(pairs, touch_own)]
    # pairs measured by their own outlines stand for their own size (see vision.touching_pair.own_scale_exempt)
    own_ok = _touching_pair.own_scale_exempt(touch_own or [False] * len(pairs),
                                             [p.a.found_by == "blob" or p.b.found_by == "blob" for p in pairs])
    close = [p for p, t in zip(pairs, touch) if min(p.dist_radii, p.edge_dist_radii) < OVERLAP_MAX_CENTRE_DIST_RADII
             and not t]
    # two faint whole faces closer than an overlap's bound by their own edges (see vision.overlap_edges)
    if not (close or overlaps or partials) and _overlap_edges.EDGE_OVERLAP_RULE:
        blob_thr = search.blob_threshold_lab if search.blob_threshold_lab is not None else blob_threshold(view)
        by_edges = _overlap_edges.edge_overlaps(view.residual, [(c.x, c.y) for c in flat],
                                                [c.contrast for c in flat], [c.whole_blob for c in flat],
                                                [(c.x, c.y) for c in tokenish], r, blob_thr)
        if by_edges:
            return ("rearrange", f"tokens overlap: two faces {min(e.dist_edge_radii for e in by_edges):.2f} of "
                    f"their own edge radii apart: rearrange without turning any", cands, faces, 0.7)
    if overlaps or close or (partials and n_tokens >= 4):
        verdict, why, sure = _overlap_reason.overlap_verdict(
            overlaps, [min(p.dist_radii, p.edge_dist_radii) for p in close], partials, n_tokens, len(flat), r)
        return verdict, why, cands, faces, sure
    if partials:
        return "uncertain", "a token is partly hidden", cands, faces, 0.5
    if n_tokens < TOKENS_PER_ROUND and search.suspects and FEWER_WITH_SUSPECT_UNCERTAIN:
        c = max(t[2] for t in search.suspects)
        return ("uncertain", f"{n_tokens} tokens found but more disc-like evidence on the plate "
                f"(contrast {c:.1f} Lab units): check for a token not counted (reshake if one is missing)",
                cands, faces, 0.5)
    def ceiling_room(clipped: np.ndarray | None = None) -> float:
        """Room for a face at the sensor's ceiling, token radii, the tokens found taken out (see
        saturated_room; ``clipped``: its well_at_ceiling when already found)."""
        return saturated_room(view.bgr, view.radius_px, view.plate_radius_px, [(c.x, c.y) for c in tokenish], r,
                              clipped)

    if n_tokens < TOKENS_PER_ROUND and FEWER_ON_CEILING_UNCERTAIN:
        room = ceiling_room()
        if room >= SATURATED_ROOM_MIN_RADII:
            return ("uncertain", f"{n_tokens} tokens found on a plate over-exposed: a region {2 * room:.1f} token "
                    f"radii across is at the sensor's ceiling, where a white token would not show; lower the "
                    f"exposure (reshake if one is missing)", cands, faces, 0.5)
    # one short for each face that may be two, one mostly on the other (see vision.merged_pair):
    # those faces are overlaps, their face colour unknown (the upper face's, not the lower's)
    merged = merged_pairs(flat, r, drawn_out_alike) if n_tokens < TOKENS_PER_ROUND else []
    if merged and n_tokens + len(merged) == TOKENS_PER_ROUND:
        ids = {id(c) for c in merged}
        faces = [None if id(c) in ids else f for c, f in zip(cands, faces)]
        cands = [dataclasses.replace(c, kind="overlap") if id(c) in ids else c for c in cands]
        return ("rearrange", f"tokens overlap: {len(merged)} face(s) drawn out and larger than a face, with "
                f"{n_tokens} tokens counted (two tokens, one mostly on the other): rearrange without turning any",
                cands, faces, 0.6)
    extras, pale, median = (_faint_extra.faint_extras(flat, view.residual, r)
                            if _faint_extra.FAINT_EXTRA_UNCERTAIN and n_tokens == len(flat) else ([], 0.0, 0.0))
    if extras:  # (see vision.faint_extra)
        return ("uncertain", f"{n_tokens} tokens found, {len(extras)} far paler than the other four on a darker "
                f"plate (colour {pale:.1f} against {median:.1f} Lab units): check for a fifth token",
                cands, faces, 0.5)
    # a face whose region of its own colour is two tokens large and drawn out holds two (see vision.count_check)
    two = (_count_check.two_token_faces(view.residual, [(c.x, c.y) for c in flat], [(c.x, c.y) for c in tokenish], r)
           if n_tokens < TOKENS_PER_ROUND and r > 0 else [])
    if two and n_tokens + len(two) == TOKENS_PER_ROUND:
        w = max(two, key=lambda g: g.area_faces)
        return ("rearrange", f"tokens overlap: {n_tokens} tokens counted, but {len(two)} face(s) lie in a region "
                f"of their colour {w.area_faces:.2f} faces large and {w.length_radii:.1f} token radii long (two "
                f"tokens of one colour, one partly on or against the other): rearrange without turning any",
                cands, faces, 0.6)
    if n_tokens != TOKENS_PER_ROUND and not _count_check.reshake_count_plausible(n_tokens):
        return ("uncertain", f"{n_tokens} token(s) found, not {TOKENS_PER_ROUND}: more than one missing or extra "
                f"at once (a bowl or hand over the plate?): check by hand", cands, faces, 0.5)
    if n_tokens != TOKENS_PER_ROUND:
        return "reshake", f"{n_tokens} tokens on the plate, not {TOKENS_PER_ROUND}", cands, faces, 0.8
    # suspects far weaker than every counted face of both colours are no token (see vision.weak_suspects)
    left = (_weak_suspects.unexplained_suspects(
        view.residual, view.radius_px, view.plate_radius_px, search.suspects, [(c.x, c.y) for c in flat],
        [f.face if f is not None else None for c, f in zip(cands, faces) if c.kind in FLAT_KINDS], r)
        if search.suspects and n_tokens == len(flat) else search.suspects)
    if left:
        x, y, c = max(left, key=lambda t: t[2])
        return ("uncertain", f"four tokens found but more disc-like evidence on the plate "
                f"(contrast {c:.1f} Lab units): check for a fifth token", cands, faces, 0.5)
    nearest = min((p.dist_radii for p, t in zip(pairs, own_ok) if not t), default=math.inf)
    if search.radius_source != "discs" and nearest < UNMEASURED_SIZE_MIN_CENTRE_DIST_RADII:
        return ("uncertain", f"two faces {nearest:.2f} token radii apart, and the token size not measured on a "
                f"clear face: check that they do not overlap", cands, faces, 0.5)
    if _size_faces_crowded(search, flat, r) and nearest < UNMEASURED_SIZE_MIN_CENTRE_DIST_RADII:
        return ("uncertain", f"two faces {nearest:.2f} token radii apart, and the token size measured only on "
                f"faces beside another: check that they do not overlap", cands, faces, 0.5)
    # A face's shape must be decisive too: a blob near the disc/upright
    # boundary flips with resampling, so the reader abstains on it.
    # ... unless round at its own edge, where the blob threshold cut into it (see vision.face_edge)
    misshapen = [c for c in flat if c.axis_ratio < OUTCOME_MIN_AXIS_RATIO and not drawn_out_alike(c, flat)
                 and not (_edge_round.EDGE_ROUND_RULE and r > 0
                          and _edge_round.round_at_edge(view.residual, c.x, c.y, r, c.axis_ratio))]
    if misshapen:
        worst = min(c.axis_ratio for c in misshapen)
        return ("uncertain", f"{len(misshapen)} token(s) not clearly a flat face (axis ratio {worst:.2f}): "
                f"check for a tilted or standing token", cands, faces, 0.5)
    # A face is one colour; one whose halves differ is partly covered or not flat.
    splits = [face_split(view, c.x, c.y, face_r(c)) for c in flat]
    split = [d for c, d in zip(flat, splits) if d >= max(FACE_SPLIT_MIN_LAB, FACE_SPLIT_MIN_SHARE * c.contrast)]
    if split:
        return ("uncertain", f"{len(split)} face(s) not one colour (halves {max(split):.1f} Lab units apart): "
                f"partly covered or not lying flat, check by hand", cands, faces, 0.5)
    if FACE_NOTCH_UNCERTAIN:
        notches = [face_notch_depth(view.residual, c.x, c.y, r) for c in flat
                   if c.kind == "disc" and c.found_by == "blob"]
        deepest = max(notches, default=0.0)
        if deepest >= FACE_NOTCH_MIN_DEPTH_RADII:
            return ("uncertain", f"a face's outline is notched {deepest:.2f} token radii deep: a stick or a hand may "
                    f"lie over it, read again when it has left", cands, faces, 0.5)
    undecided = [f for f in faces if f is not None and f.face == "unknown"]
    if undecided:
        each = "; ".join(f"a* {f.delta_a:+.1f} and L* {f.delta_l:+.1f} from the plate, chroma {f.chroma:.1f}"
                         for f in undecided)
        return ("uncertain", f"{len(undecided)} face(s) neither clearly red nor white ({each})", cands, faces, 0.5)
    # A white face found only faintly, much darker than the plate and without colour of its own, may be a shadow.
    # (the face's chroma from the plate stands for its (a*, b*) difference: hypot(chroma, 0) is chroma)
    shadowy = [f.delta_l for c, f in zip(cands, faces) if f is not None and f.face == "white"
               and c.found_by != "blob" and _dark_not_coloured((f.delta_l, f.chroma, 0.0), FAINT_WHITE_MAX_DARK_L)]
    if shadowy:
        return ("uncertain", f"a faint white face {-min(shadowy):.0f} L darker than the plate and colourless: a "
                f"shadow (of a token on edge?) or a grey face, check by hand", cands, faces, 0.5)
    margins = [f for f in faces if f is not None]
    colours_ok, gap = colours_apart(margins, face_rule)
    if not colours_ok:
        return ("uncertain", f"the faces read red and white are only {gap:.1f} a* apart (the least red red against "
                f"the most red white): one colour may lie across the boundary, check by hand", cands, faces, 0.5)
    alike, spread = whites_alike(margins)
    if not alike:
        return ("uncertain", f"the white faces differ in colour (a* spread {spread:.1f}): a washed-out red "
                f"may be among them, check by hand", cands, faces, 0.5)
    alike, spread = whites_alike_in_lightness(margins)
    if not alike:
        return ("uncertain", f"the white faces differ in lightness (L* spread {spread:.1f}): one may be a shadow "
                f"or lie in one, check by hand", cands, faces, 0.5)
    alike, spread = whites_alike_in_yellowness(margins)
    if not alike:
        return ("uncertain", f"the white faces differ in yellowness (b* spread {spread:.1f}): one may be a patch "
                f"of the plate's glaze, check by hand", cands, faces, 0.5)
    below, gap = whites_below_reds(margins)
    if not below:
        return ("uncertain", f"a face read white is {gap:.1f} L darker than every red face: a white token is the "
                f"lighter under one light, so it may be the plate's sheen, check by hand", cands, faces, 0.5)
    opposed = _whites_opposed(view, cands, faces, face_r) if WHITES_SAME_WAY else []
    if opposed:
        return ("uncertain", f"a white face found faintly differs from the plate the opposite way to every other "
                f"white face (cosine {min(opposed):.2f}): it may be the bare plate where the plate model leans "
                f"toward them, check by hand", cands, faces, 0.5)
    echoes = _glaze_echoes(view, cands, faces, face_r) if GLAZE_ECHO_UNCERTAIN else []
    if echoes:
        return ("uncertain", f"a white face found faintly is darker than the plate and of the glaze's own colour, "
                f"and the same difference recurs on {max(echoes):.0%} of its ring around the well: it may be a "
                f"patch of the plate's glaze, check by hand", cands, faces, 0.5)
    # A faint face beside another is found off its centre, away from it.
    faint_nearest = min((p.dist_radii for p, t in zip(pairs, touch) if p.faint and not t), default=math.inf)
    if faint_nearest < FAINT_PAIR_MIN_CENTRE_DIST_RADII:
        return ("uncertain", f"two faces {faint_nearest:.2f} token radii apart, one of them faint (its centre "
                f"less sure): check that they do not overlap", cands, faces, 0.5)
    faint_by_edges = min((p.edge_dist_radii for p, t in zip(pairs, touch) if p.faint and not t), default=math.inf)
    if faint_by_edges < FAINT_PAIR_MIN_EDGE_DIST_RADII:
        return ("uncertain", f"two faces {faint_by_edges:.2f} token radii apart by their edges, one of them faint: "
                f"check that they do not overlap", cands, faces, 0.5)
    joined = [faint_pair_waist(view.residual, (p.a.x, p.a.y), (p.b.x, p.b.y), r) for p in pairs
              if p.both_faint and p.dist_px < FAINT_PAIRS_JOINED_MAX_DIST_RADII * r]
    joined = [w for w in joined if not math.isnan(w)]  # NaN: a shadow's colour, no waist measured
    if max(joined, default=0.0) >= PAIR_MAX_NECK_RADII:
        return ("uncertain", f"two faint faces joined by a waist {max(joined):.2f} token radii wide: one may rest "
                f"on the other, check that they do not overlap", cands, faces, 0.5)
    halves = [p for p in pairs if _near_halves(p.a, p.b, r)]
    half_waists = [faint_pair_waist(view.residual, (p.a.x, p.a.y), (p.b.x, p.b.y), r, shadow_colour=True)
                   for p in halves]
    half_waists = [w for w in half_waists if not math.isnan(w)]  # none expected: measured whatever the colour
    if max(half_waists, default=0.0) >= SPLIT_HALVES_MAX_WAIST_RADII:
        return ("uncertain", f"two faces cut from blobs (not measured whole), under "
                f"{SPLIT_HALVES_JOINED_MAX_DIST_RADII:.1f} token radii apart and joined by a waist "
                f"{max(half_waists):.2f} token radii wide: one may lean on the other, check that they do not "
                f"overlap", cands, faces, 0.5)
    # the halves above, less the pairs that stand for their own size (own_ok)
    exempt = {id(p) for p, t in zip(pairs, own_ok) if t}
    halves_by_edges = min((p.edge_dist_radii for p in halves if id(p) not in exempt), default=math.inf)
    if halves_by_edges < SPLIT_HALVES_MIN_EDGE_DIST_RADII:
        return ("uncertain", f"two faces cut from blobs (not measured whole), {halves_by_edges:.2f} token radii "
                f"apart by their edges: one may lean on the other, check that they do not overlap",
                cands, faces, 0.5)
    shortened = [(p.dist_radii, p.a, p.b) for p in pairs if _shortened_pair(p.a, p.b, r)]
    if shortened:
        d, a, b = min(shortened, key=lambda t: t[0])
        return ("uncertain", f"two faces {d:.2f} token radii apart, both drawn out across the line between them "
                f"(axis ratios {a.axis_ratio:.2f} and {b.axis_ratio:.2f}): one may lean on the other or hide part "
                f"of it, check that they do not overlap", cands, faces, 0.5)
    # each face towards every other, both ways round each pair; of equally near ones the first in flat's
    # order (its index, then the other's) is reported
    beside = [(p.dist_radii, ci, oi, c)
              for (i, j), p in zip(itertools.combinations(range(len(flat)), 2), pairs, strict=True)
              for ci, oi, c, o in ((i, j, p.a, p.b), (j, i, p.b, p.a)) if _shortened_beside_faint(c, o, r)]
    if beside:
        d, _, _, c = min(beside, key=lambda t: t[:3])
        return ("uncertain", f"a face drawn out across the line to a faint face {d:.2f} token radii away (axis "
                f"ratio {c.axis_ratio:.2f}): the faint one may lean on it or hide part of it, check that they do "
                f"not overlap", cands, faces, 0.5)
    # Where the plate is at the sensor's ceiling, a white face cannot show.
    # the well's pixels at the ceiling: found once, for the room and the outlines' evidence
    clipped = well_at_ceiling(view.bgr, view.radius_px, view.plate_radius_px)
    room = ceiling_room(clipped)
    if room >= SATURATED_ROOM_MIN_RADII and not ceiling_cleared_by_outlines(
            view.residual[..., 0], view.bgr, view.radius_px, view.plate_radius_px, [(c.x, c.y) for c in tokenish],
            [(c.x, c.y) for c, f in zip(cands, faces) if f is not None and f.face == "white"], r, clipped):
        return ("uncertain", f"the plate is over-exposed: a region {2 * room:.1f} token radii across is at the "
                f"sensor's ceiling, where a white token would not show; lower the exposure", cands, faces, 0.5)
    washed = washed_out_whites(view, [(c, f) for c, f in zip(cands, faces) if f is not None], face_r, light)
    if washed:
        return ("uncertain", f"{len(washed)} face(s) read white at the sensor's ceiling in red (level "
                f"{min(washed):.0f}), and no face read red shows that this light leaves a red its colour: a red "
                f"washed out by over-exposure looks the same, lower the exposure", cands, faces, 0.5)
    if FACE_BAR_UNCERTAIN:
        bar = _face_bars(view, flat, r, plate.frame_size)
        if bar.share > 0.0:
            return "uncertain", _bar_reason(bar, "on out over the cloth beyond the plate"), cands, faces, 0.5
    # The rim's streaks serve the two rules below: found once, where either needs them.
    faint_faces = [c for c in flat if not (c.kind == "disc" and c.found_by == "blob")]
    streaks = (rim_streaks(view, r, plate.frame_size, bands=bands)
               if flat and (RIM_BAR_UNCERTAIN or (FAINT_NOTCH_TO_RIM_UNCERTAIN and faint_faces)) else None)
    if RIM_BAR_UNCERTAIN:
        bar = _rim_face_bars(view, flat, r, streaks)
        if bar.share > 0.0:
            return "uncertain", _bar_reason(bar, "on across the plate's rim"), cands, faces, 0.5
    # Last of the stick rules: a rod that the rules above miss may still cut into a faint face.
    if FAINT_NOTCH_TO_RIM_UNCERTAIN and faint_faces and streaks is not None and streaks.any():
        deepest = max(faint_notch_to_rim(view.residual, streaks, c.x, c.y, r, view.plate_radius_px)
                      for c in faint_faces)
        if deepest > 0.0:
            return ("uncertain", f"a faint face's outline is notched {deepest:.2f} token radii deep toward a "
                    f"streak across the plate's rim: a stick may lie over it, read again when it has left",
                    cands, faces, 0.5)
    if JOINED_COLOUR_UNCERTAIN and flat:
        joined = colour_joined_to_faces(view.residual, view.radius_px, view.plate_radius_px,
                                        [(c.x, c.y) for c in flat], r)
        if max(joined) >= JOINED_COLOUR_MIN_AREA_TOKENS:
            return ("uncertain", f"a colour the plate does not have is joined to a face over {max(joined):.1f} "
                    f"token areas: a hand or a stick may lie over it, read again when it has left",
                    cands, faces, 0.5)
    # Last: every rule above passed, but one that looks for a hand or a stick
    # on the plate may have had nothing to look at.
    if BLIND_BLOB_SEARCH_UNCERTAIN and flat:
        # the well's own where the search held the rim to the rings' threshold
        # (SMOOTH_PLATE_MODEL), else the search's own (the same view's), else measured here
        threshold = search.well_blob_threshold_lab
        if threshold is None:
            threshold = search.blob_threshold_lab if search.blob_threshold_lab is not None else blob_threshold(view)
        # (at its floor, BLOB_MIN_DELTA_E, the plate model fits: the faces are
        # faint, as four whites on a white plate, and a hand shows as a blob)
        if _blind_blob_search(threshold, flat):
            return ("uncertain", f"the plate's colour varies too much to see a hand or stick on it (the blob search "
                    f"needs {threshold:.0f} Lab units, more than any face shows): check by hand", cands, faces, 0.5)
    conf = min(max(f.p_red, 1 - f.p_red) for f in margins)
    return "outcome", "four flat tokens, every face decisive", cands, faces, conf


def _outline_seen_as_cloth(view: CanonicalView, plate: PlateFit) -> np.ndarray:
    """bool (angles of :func:`vision.rim.band_angles_deg`,): where the plate
    search's not-cloth mask is cloth on the plate's outline
    (``RIM_HIDDEN_OUTLINE_FRAC`` of the plate radius)."""
    not_cloth = plate.not_cloth
    if not_cloth is None:
        not_cloth = not_cloth_mask(plate.cloth_deviation, plate.cloth_lightness)
    theta = np.radians(band_angles_deg())
    c = view.canvas_px / 2.0 - 0.5
    rad = RIM_HIDDEN_OUTLINE_FRAC * view.plate_radius_px
    xs, ys = c + rad * np.cos(theta), c + rad * np.sin(theta)
    inv = np.linalg.inv(view.to_canonical)
    w = inv[2, 0] * xs + inv[2, 1] * ys + inv[2, 2]
    s = plate.work_scale
    h_px, w_px = not_cloth.shape[:2]
    sx = np.clip(np.rint((inv[0, 0] * xs + inv[0, 1] * ys + inv[0, 2]) / w * s), 0, w_px - 1).astype(np.intp)
    sy = np.clip(np.rint((inv[1, 0] * xs + inv[1, 1] * ys + inv[1, 2]) / w * s), 0, h_px - 1).astype(np.intp)
    return not_cloth[sy, sx] == 0


def _canvas_in_frame(view: CanonicalView, frame_size: tuple[int, int]) -> np.ndarray:
    """bool (canvas, canvas): the canvas pixels that map inside the source frame."""
    # the pixel columns as a row and the rows as a column, broadcast by
    # in_source_frame: each pixel's sums and quotients are those of the full
    # (canvas, canvas) coordinate grids, the products made once per row or column
    axis = np.arange(view.canvas_px, dtype=np.float32)
    return view.in_source_frame(axis[None, :], axis[:, None], frame_size)


def _face_bars(view: CanonicalView, flat: list[Candidate], token_r: float,
               frame_size: tuple[int, int]) -> _face_bar.BarFind:
    """The strongest straight bar over a flat face and the cloth beyond the
    plate (``FACE_BAR_UNCERTAIN``; :func:`vision.face_bar.face_bar`), or
    ``NO_BAR``."""
    if not flat:
        return _face_bar.NO_BAR
    cloth = _face_bar.cloth_bars(view.lab, view.plate_radius_px, _canvas_in_frame(view, frame_size))
    if not cloth.any():
        return _face_bar.NO_BAR
    finds = [_face_bar.face_bar(view.lab, cloth, c.x, c.y, token_r, view.plate_radius_px) for c in flat]
    return max(finds, key=lambda b: b.share)


def _rim_face_bars(view: CanonicalView, flat: list[Candidate], token_r: float,
                   streaks: np.ndarray | None) -> _face_bar.BarFind:
    """The strongest straight bar over a flat face and across the rim band
    (``RIM_BAR_UNCERTAIN``; :func:`vision.face_bar.rim_face_bar`) on the rim's
    ``streaks`` (:func:`vision.rim.rim_streaks` of ``view``), or ``NO_BAR``."""
    if not flat or streaks is None or not streaks.any():
        return _face_bar.NO_BAR
    finds = [_face_bar.rim_face_bar(view.lab, streaks, c.x, c.y, token_r, view.plate_radius_px) for c in flat]
    return max(finds, key=lambda b: b.share)


def _bar_reason(bar: _face_bar.BarFind, beyond: str) -> str:
    """The reason given for a straight bar over a face that runs ``beyond``."""
    return (f"a straight bar runs over a face and {beyond} ({bar.share:.0%} of the line on the bar, its colour "
            f"{bar.colour_diff_lab:.0f} Lab apart over the two): a stick may lie over it, read again when it has left")


def face_notch_depth(residual: np.ndarray, x: float, y: float, token_r: float) -> float:
    """How deep the outline of a face is notched, token radii.

    Walks out from the centre at ``FACE_NOTCH_ANGLES`` angles, in steps of
    ``FACE_NOTCH_STEP_PX`` out to ``FACE_NOTCH_REACH_RADII`` token radii,
    until the residual's projection on the face's colour (the median residual
    within ``FACE_NOTCH_CORE_RADII``) falls below ``FACE_NOTCH_FACE_SHARE`` of
    it: that radius is the face's edge at that angle (the reach where it
    never falls).

    Parameters
    ----------
    residual : ndarray, float32, (H, W, 3)
        The view's residual from the plate model, Lab units.
    x, y : float
        The face's centre, canvas pixels.
    token_r : float
        The frame's token radius, canvas pixels (> 0).

    Returns
    -------
    float
        The median edge radius less the least, in token radii (>= 0); 0 when
        the core has no colour of its own (a zero median residual).
    """
    if not (math.isfinite(token_r) and token_r > 0):
        raise ValueError(f"token_r: expected a finite value > 0, got {token_r}")
    edge = _face_edge(residual, x, y, token_r)
    if edge is None:
        return 0.0
    return float(max(0.0, np.median(edge) - edge.min()) / token_r)


def _face_edge(residual: np.ndarray, x: float, y: float, token_r: float) -> np.ndarray | None:
    """The face's edge radius at each of ``FACE_NOTCH_ANGLES`` angles, canvas
    pixels, as :func:`face_notch_depth` measures it; None where that measures 0
    for want of a core colour."""
    h, w = residual.shape[:2]
    reach = FACE_NOTCH_REACH_RADII * token_r
    x0, x1 = max(0, int(math.floor(x - reach)) - 1), min(w, int(math.ceil(x + reach)) + 2)
    y0, y1 = max(0, int(math.floor(y - reach)) - 1), min(h, int(math.ceil(y + reach)) + 2)
    box = np.ascontiguousarray(residual[y0:y1, x0:x1], dtype=np.float32)
    rr, cc = open_grid(y0, y1, x0, x1)  # (h, 1) and (1, w): broadcast below
    core = (cc - x) ** 2 + (rr - y) ** 2 < (FACE_NOTCH_CORE_RADII * token_r) ** 2
    if not core.any():
        return None
    face = np.median(box[core], axis=0).astype(np.float64)
    norm = float(face @ face)
    if norm <= 0.0:
        return None
    theta = np.arange(FACE_NOTCH_ANGLES) * (2.0 * math.pi / FACE_NOTCH_ANGLES)
    radii = np.arange(0.0, reach, FACE_NOTCH_STEP_PX)
    map_x = ((x - x0) + radii[:, None] * np.cos(theta)[None, :]).astype(np.float32)
    map_y = ((y - y0) + radii[:, None] * np.sin(theta)[None, :]).astype(np.float32)
    samples = cv2.remap(box, map_x, map_y, interpolation=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    share = (samples.astype(np.float64) @ face) / norm
    ended = share < FACE_NOTCH_FACE_SHARE
    ended[0] = False
    return np.where(ended.any(axis=0), radii[np.argmax(ended, axis=0)], radii[-1])


def faint_notch_to_rim(residual: np.ndarray, streaks: np.ndarray, x: float, y: float, token_r: float,
                       plate_r: float) -> float:
    """The depth (token radii) of a face's notch that points at a streak across
    the rim band (``FAINT_NOTCH_TO_RIM_UNCERTAIN``), or 0.0.

    The notch's angles are those where the face's edge (as
    :func:`face_notch_depth` finds it) ends ``FACE_NOTCH_MIN_DEPTH_RADII`` or
    more short of its median; the notch points at the rim when a ray from the
    face's centre at one of them meets :func:`vision.rim.rim_streaks`' pixels
    (``streaks``) within the rim band: a rod from outside the plate, faint
    across the rim and over the plate, cut into the face where it lies on it.
    """
    if not (math.isfinite(token_r) and token_r > 0 and math.isfinite(plate_r) and plate_r > 0):
        raise ValueError(f"token_r, plate_r: expected finite values > 0, got {token_r}, {plate_r}")
    if not streaks.any():
        return 0.0
    edge = _face_edge(residual, x, y, token_r)
    if edge is None:
        return 0.0
    depth = (np.median(edge) - edge) / token_r
    notch = np.flatnonzero(depth >= FACE_NOTCH_MIN_DEPTH_RADII)
    if notch.size == 0:
        return 0.0
    n = streaks.shape[0]
    c = n / 2.0 - 0.5
    theta = notch * (2.0 * math.pi / FACE_NOTCH_ANGLES)
    s = np.arange(0.0, 2.0 * plate_r, 1.0)
    px = x + s[None, :] * np.cos(theta)[:, None]
    py = y + s[None, :] * np.sin(theta)[:, None]
    rad = np.hypot(px - c, py - c)
    in_band = (rad >= RIM_BAND_FRAC[0] * plate_r) & (rad <= RIM_BAND_FRAC[1] * plate_r)
    ix = np.clip(np.rint(px).astype(np.intp), 0, n - 1)
    iy = np.clip(np.rint(py).astype(np.intp), 0, n - 1)
    hits = (streaks[iy, ix] & in_band).any(axis=1)
    return float(depth[notch][hits].max()) if hits.any() else 0.0


def _whites_opposed(view: CanonicalView, cands: list[Candidate], faces: list[FaceReading | None],
                    face_r: Callable[[Candidate], float]) -> list[float]:
    """The white faces found faintly (not a blob) whose core residual points
    the opposite way to every other white face's (``WHITES_SAME_WAY``): for
    each such face, the largest of its cosines with the others (at most
    ``WHITES_OPPOSED_MAX_COSINE``).  Only whites whose core differs from the
    plate by ``WHITES_OPPOSED_MIN_CORE_SHARE`` of their disc contrast (blob
    faces always) are compared, and only a face whose core differs from it by
    ``WHITES_OPPOSED_MIN_CORE_LAB`` is judged; empty with fewer than two such
    whites."""
    whites = [c for c, f in zip(cands, faces) if f is not None and f.face == "white"]
    if len(whites) < 2:
        return []
    cores = [_mean_residual(view.residual, c.x, c.y, FAINT_PAIR_CORE_RADII * face_r(c)).astype(np.float64)
             for c in whites]
    norms = [float(np.linalg.norm(m)) for m in cores]
    # only the whites whose core differs from the plate have a direction to compare
    read = [i for i, c in enumerate(whites) if norms[i] > 0 and (
        c.found_by == "blob" or norms[i] >= WHITES_OPPOSED_MIN_CORE_SHARE * c.contrast)]
    whites, cores, norms = [whites[i] for i in read], [cores[i] for i in read], [norms[i] for i in read]
    if len(whites) < 2:
        return []
    out = []
    for i, c in enumerate(whites):
        if c.found_by == "blob" or norms[i] < WHITES_OPPOSED_MIN_CORE_LAB:
            continue
        cos = max(float(cores[i] @ cores[j]) / (norms[i] * norms[j]) for j in range(len(whites)) if j != i)
        if cos <= WHITES_OPPOSED_MAX_COSINE:
            out.append(cos)
    return out


def _glaze_echoes(view: CanonicalView, cands: list[Candidate], faces: list[FaceReading | None],
                  face_r: Callable[[Candidate], float]) -> list[float]:
    """The white faces found faintly that look like a patch of the plate's own
    glaze (``GLAZE_ECHO_UNCERTAIN``).

    A face is judged when it was not found as a blob, is darker than the
    plate, the plate's chroma is at least ``GLAZE_ECHO_MIN_PLATE_CHROMA_LAB`` and
    the face's (a*, b*) difference from the plate (the plate's own a*, not
    clipped at 0) is within ``GLAZE_ECHO_MIN_COSINE`` of the plate's (a*, b*)
    direction.  Its core residual (``FAINT_PAIR_CORE_RADII`` of its radius) is
    then compared with the core residuals at the same distance from the plate
    centre, every ``GLAZE_ECHO_STEP_DEG`` round the ring, clear of every
    candidate by ``GLAZE_ECHO_CLEAR_RADII`` token radii.

    Parameters
    ----------
    view : CanonicalView
        Its ``residual`` (Lab units) is read.
    cands : list of Candidate
        Every candidate of the frame (canonical pixels).
    faces : list of FaceReading or None
        The readings of ``cands`` (None for non-flat ones).
    face_r : callable
        The radius (canonical pixels, > 0) each face is read at.

    Returns
    -------
    list of float
        For each face judged whose ring share of like positions is at least
        ``GLAZE_ECHO_MIN_RING_SHARE``, that share (0-1); empty when none is.
    """
    centre = view.residual.shape[0] / 2.0 - 0.5  # the canvas's plate centre (canonical._canvas_geometry)
    out = []
    for c, f in zip(cands, faces):
        if f is None or f.face != "white" or c.found_by == "blob" or f.delta_l >= 0:
            continue
        plate = np.array([f.plate_a_star, f.plate_b_star])
        diff = np.array([f.a_star, f.b_star]) - plate
        p_norm, d_norm = float(np.linalg.norm(plate)), float(np.linalg.norm(diff))
        if (p_norm < GLAZE_ECHO_MIN_PLATE_CHROMA_LAB or d_norm == 0
                or plate @ diff < GLAZE_ECHO_MIN_COSINE * p_norm * d_norm):
            continue
        r = face_r(c)
        core = _mean_residual(view.residual, c.x, c.y, FAINT_PAIR_CORE_RADII * r).astype(np.float64)
        c_norm = float(np.linalg.norm(core))
        if c_norm == 0:
            continue
        rho, th0 = math.hypot(c.x - centre, c.y - centre), math.atan2(c.y - centre, c.x - centre)
        like = seen = 0
        for k in range(int(round(360.0 / GLAZE_ECHO_STEP_DEG))):
            th = th0 + math.radians(k * GLAZE_ECHO_STEP_DEG)
            x, y = centre + rho * math.cos(th), centre + rho * math.sin(th)
            if any(math.hypot(x - o.x, y - o.y) < GLAZE_ECHO_CLEAR_RADII * r for o in cands):
                continue
            seen += 1
            m = _mean_residual(view.residual, x, y, FAINT_PAIR_CORE_RADII * r).astype(np.float64)
            m_norm = float(np.linalg.norm(m))
            if m_norm >= GLAZE_ECHO_MIN_NORM_SHARE * c_norm and m @ core >= GLAZE_ECHO_MIN_COSINE * m_norm * c_norm:
                like += 1
        if seen and like / seen >= GLAZE_ECHO_MIN_RING_SHARE:
            out.append(like / seen)
    return out


def washed_out_whites(view: CanonicalView, read: list[tuple[Candidate, FaceReading]],
                      face_r: Callable[[Candidate], float], light: LightReference | None = None) -> list[float]:
    """The red levels of faces read white that a washed-out red could be.

    A face read white whose core is at the ceiling in the camera's red
    channel (:data:`WHITE_CEILING_RED_LEVEL`) has an a* that is only a lower
    bound.  It is decisive only when every face read red has a green at most
    1 / :data:`RED_LIGHT_MIN_RATIO` of its green, in linear light: a red of
    that pigment would need that much more light than the most lit red to
    look like it (:data:`WASHED_WHITE_AGAINST_MOST_LIT_RED`; False: some face
    read red, the darkest).  With a studio's ``light``, the calibrated red's
    green at this frame's exposure (:func:`reference_red_green`) counts as
    one more such red.

    Parameters
    ----------
    view : CanonicalView
        Its ``bgr`` (uint8, BGR) is read.
    read : list of (Candidate, FaceReading)
        The flat faces and their readings.
    face_r : callable
        The radius (canonical pixels, > 0) each face is read at.
    light : LightReference or None
        The studio's light at calibration.

    Returns
    -------
    list of float
        The red levels (8-bit, 0-255) of the faces in doubt; empty when none is.
    """
    whites = [core_levels(view, c.x, c.y, face_r(c)) for c, f in read if f.face == "white"]
    clipped = [bgr for bgr in whites if bgr[2] >= WHITE_CEILING_RED_LEVEL]
    if not clipped:
        return []
    # green of each red, linear light (1 level at least): the most lit shows how far this
    # plate's light lifts a red (WASHED_WHITE_AGAINST_MOST_LIT_RED), else the darkest
    greens = [linear_light(max(core_levels(view, c.x, c.y, face_r(c))[1], 1.0)) for c, f in read if f.face == "red"]
    if light is not None:
        greens.append(reference_red_green(view, light))
    known = [g for g in greens if not math.isnan(g)]
    if not known:
        red_green = math.nan
    else:
        red_green = max(known) if WASHED_WHITE_AGAINST_MOST_LIT_RED else min(known)
    return [float(bgr[2]) for bgr in clipped
            if math.isnan(red_green) or linear_light(bgr[1]) < RED_LIGHT_MIN_RATIO * red_green]


def _luminance(l_star: float) -> float:
    """CIE L* (0-100) as relative luminance Y (1 at L* 100)."""
    f = (l_star + 16.0) / 116.0
    return f ** 3 if f > 6.0 / 29.0 else 3.0 * (6.0 / 29.0) ** 2 * (f - 4.0 / 29.0)


def reference_red_green(view: CanonicalView, light: LightReference) -> float:
    """The calibrated red's green at this frame's exposure, linear light (1 at the ceiling).

    The plate's well (its ring model, within :data:`LIGHT_REFERENCE_WELL_FRAC`
    of its radius) measures the exposure against ``light.plate_l``; the
    red's green then is scaled by the change of the well's luminance.

    Returns
    -------
    float
        NaN when the well does not measure the light, now or then (its mean
        L* outside :data:`LIGHT_REFERENCE_PLATE_L_RANGE`), or when the red's
        green would reach the ceiling.
    """
    lo, hi = LIGHT_REFERENCE_PLATE_L_RANGE
    well = view.radius_px < LIGHT_REFERENCE_WELL_FRAC * view.plate_radius_px
    if not well.any():
        return math.nan
    plate_l = float(view.background[..., 0][well].mean())
    if not (lo <= plate_l <= hi and lo <= light.plate_l <= hi):
        return math.nan
    green = linear_light(light.red_green_level) * _luminance(plate_l) / _luminance(light.plate_l)
    return green if green < 1.0 else math.nan


def drawn_out_alike(face: Candidate, flat: list[Candidate]) -> bool:
    """Whether a blob face less round than a flat face is drawn out the way
    the frame's other faces are (see ``SHARED_ELONGATION_MIN_AXIS_RATIO``):
    the camera's blur, not the token's tilt.

    Parameters
    ----------
    face : Candidate
        One of ``flat``.
    flat : list of Candidate
        The frame's flat faces.

    Returns
    -------
    bool
        True when ``face`` is a blob with a measured direction, at least
        ``SHARED_ELONGATION_MIN_AXIS_RATIO`` round, and at least
        ``SHARED_ELONGATION_MIN_FACES`` such blob faces under
        ``SHARED_ELONGATION_MAX_AXIS_RATIO`` (``face`` among them), their axis
        ratios within ``SHARED_ELONGATION_MAX_RATIO_SPREAD`` of each other,
        all lie within ``SHARED_ELONGATION_MAX_ANGLE_DEG`` of their mean
        direction.
    """
    def drawn(c: Candidate) -> bool:
        return c.whole_blob and c.axis_ratio < SHARED_ELONGATION_MAX_AXIS_RATIO
    if not (drawn(face) and face.axis_ratio >= SHARED_ELONGATION_MIN_AXIS_RATIO):
        return False
    alike = [c for c in flat if drawn(c)]
    if len(alike) < SHARED_ELONGATION_MIN_FACES or face not in alike:
        return False
    ratios = [c.axis_ratio for c in alike]
    if max(ratios) - min(ratios) > SHARED_ELONGATION_MAX_RATIO_SPREAD:
        return False
    # mean of axis directions: average the doubled angles
    doubled = [math.radians(2.0 * c.angle_deg) for c in alike]
    mean = math.degrees(math.atan2(sum(map(math.sin, doubled)), sum(map(math.cos, doubled)))) / 2.0 % 180.0
    return all(axis_angle_diff_deg(c.angle_deg, mean) <= SHARED_ELONGATION_MAX_ANGLE_DEG for c in alike)


def is_colourless(frame: np.ndarray) -> bool:
    """True when the BGR frame carries no colour (all three channels equal
    within ``COLOURLESS_MAX_CHANNEL_DIFF`` on a subsample of pixels).

    An 8-bit frame's channel differences are taken as the larger minus the
    smaller value, in 8 bits (never negative, so no wider copy of the
    subsample); any other dtype through a 16-bit copy.
    """
    sub = frame[::8, ::8]
    if sub.dtype == np.uint8:
        b, g, r = sub[..., 0], sub[..., 1], sub[..., 2]
        diff = max(int((np.maximum(b, g) - np.minimum(b, g)).max()), int((np.maximum(g, r) - np.minimum(g, r)).max()))
        return diff <= COLOURLESS_MAX_CHANNEL_DIFF
    sub = sub.astype(np.int16)
    diff = max(int(np.abs(sub[..., 0] - sub[..., 1]).max()), int(np.abs(sub[..., 1] - sub[..., 2]).max()))
    return diff <= COLOURLESS_MAX_CHANNEL_DIFF


def shows_bowl(dome: float, rim_chroma: float) -> bool:
    """The bowl's cues (:func:`covered_evidence`) are seen: dome shading of
    at least ``COVERED_MIN_DOME_DELTA_E`` or a well-to-rim chroma difference
    of at least ``COVERED_MIN_RIM_CHROMA``, Lab units."""
    return dome >= COVERED_MIN_DOME_DELTA_E or rim_chroma >= COVERED_MIN_RIM_CHROMA


def covered_verdict(view: CanonicalView, search: TokenSearch,
                    evidence: tuple[float, float] | None = None) -> tuple | None:
    """:func:`decide`'s first check: ``("covered", reason, [], [], confidence)``
    when at most ``COVERED_MAX_FLAT_FINDS`` face is seen by its colour (the
    dome's highlight; an outline alone is weak evidence: a bowl's shading can
    draw one), nothing overlaps and the bowl's cues are seen; else None.
    ``evidence``: :func:`covered_evidence` of ``view`` when already computed."""
    cands = search.candidates
    n_flat = sum(c.kind in FLAT_KINDS and c.kind != "outline" for c in cands)
    if n_flat > COVERED_MAX_FLAT_FINDS or any(c.kind == "overlap" for c in cands):
        return None
    dome, rim_chroma = covered_evidence(view) if evidence is None else evidence
    if not shows_bowl(dome, rim_chroma):
        return None
    strength = max(dome / COVERED_MIN_DOME_DELTA_E, rim_chroma / COVERED_MIN_RIM_CHROMA)
    conf = min(1.0, 0.5 + 0.5 * (strength - 1.0))
    seen = "no flat token" if n_flat == 0 else "one token-like find, taken for the dome's highlight"
    return ("covered", f"bowl over the plate: {seen}, dome shading {dome:.0f} Lab units, "
            f"well-to-rim colour difference {rim_chroma:.0f}", [], [], conf)


def read_frame(frame: np.ndarray, profile=None) -> Reading:
    """Read the four tokens of one frame.

    Parameters
    ----------
    frame : ndarray, uint8 or uint16, (H, W), (H, W, 3) BGR or (H, W, 4) BGRA
        The camera frame.  Greyscale is accepted (it will abstain on faces),
        16-bit is scaled to 8-bit.
    profile : calibration profile or None
        A studio profile from ``xocdia calibrate``; None uses the defaults.
        Any object with ``reader_settings() -> ReaderSettings`` and
        ``check_plate(ellipse) -> str | None`` (a reason when the plate is not
        where the profile expects it: the camera has moved) will do.

    Returns
    -------
    Reading
        Never raises for a readable frame: game-level problems are verdicts.

    Raises
    ------
    FrameError
        The array is not an image (wrong dtype, shape, NaN, too small).
    """
    t0 = time.perf_counter()
    frame = to_bgr8(frame, name="frame")
    colourless = is_colourless(frame)
    settings = ReaderSettings() if profile is None else profile.reader_settings()
    plate = find_plate(frame)
    if not plate.found:
        return Reading(verdict="no_plate", reason=plate.reason, confidence=0.8,
                       elapsed_ms=(time.perf_counter() - t0) * 1e3)
    if plate.ellipse.a < MIN_PLATE_SEMI_AXIS_PX:
        return Reading(verdict="uncertain", reason=f"the plate is only {2 * plate.ellipse.a:.0f} px across in this "
                       f"{frame.shape[1]}x{frame.shape[0]} frame, too small to read the tokens (needs at least "
                       f"{2 * MIN_PLATE_SEMI_AXIS_PX:.0f} px): raise the resolution or bring the camera closer",
                       plate=plate.ellipse, elapsed_ms=(time.perf_counter() - t0) * 1e3)
    if profile is not None:
        moved = profile.check_plate(plate.ellipse)
        if moved:
            return Reading(verdict="uncertain", reason=moved, plate=plate.ellipse,
                           elapsed_ms=(time.perf_counter() - t0) * 1e3)
    if colourless:
        return Reading(verdict="uncertain", reason="frame has no colour (greyscale camera or channel fault): "
                       "red and white faces cannot be told apart", plate=plate.ellipse,
                       elapsed_ms=(time.perf_counter() - t0) * 1e3)
    view = make_canonical_view(frame, plate.ellipse, plate.halved)
    # A bowl's dome is lit unevenly too: where the bowl's cues are seen, the
    # search runs first on the plain ring model, its rings as measured, and
    # its "covered" stands (the shading model would flatten the dome into a
    # bare plate with faint marks, and the dome's token-sized highlights would
    # pass for tokens that lean its rings).
    # Where they are seen the rings stay as measured for the whole reading.
    evidence = covered_evidence(view)
    if shows_bowl(*evidence):
        view = rings_as_measured(view)
        search = find_tokens(view, token_radius_frac=settings.token_radius_frac, outline_rule=settings.outline_rule)
        covered = covered_verdict(view, search, evidence)
        if covered is not None:
            return _reading(covered, view, search, plate, t0)
    flat, search = search_tokens(view, settings)
    # the bowl's cues read the view's colours and radii only, which taking out
    # the shading leaves as they are (the same arrays): the same evidence
    same = flat.lab is view.lab and flat.radius_px is view.radius_px and flat.plate_radius_px == view.plate_radius_px
    return _reading(decide(flat, search, plate, settings.face_rule, evidence if same else None, settings.light),
                    flat, search, plate, t0)


@dataclass(frozen=True)
class _FacePair:
    """Two flat faces and how far apart they are, for the rules of :func:`decide`.

    Attributes
    ----------
    a, b : Candidate
        The two faces, ``a`` before ``b`` in the flat faces' order.
    dist_px : float
        Distance between their centres, canonical pixels.
    dist_radii : float
        ``dist_px`` / the token radius.
    edge_dist_radii : float
        Distance between their centres by their edges (:func:`_edge_centres`)
        / the token radius.
    """

    a: Candidate
    b: Candidate
    dist_px: float
    dist_radii: float
    edge_dist_radii: float

    @property
    def faint(self) -> bool:
        """Either face not found as a clear blob (its centre less sure)."""
        return self.a.found_by != "blob" or self.b.found_by != "blob"

    @property
    def both_faint(self) -> bool:
        """Neither face found as a clear blob."""
        return self.a.found_by != "blob" and self.b.found_by != "blob"


def _face_pairs(flat: list[Candidate], edged: list[tuple[float, float]], radius_px: float) -> list[_FacePair]:
    """Every two flat faces, each pair once.

    Parameters
    ----------
    flat : list of Candidate
        The flat faces.
    edged : list of (float, float)
        Their centres by their edges (:func:`_edge_centres`), in ``flat``'s
        order, canonical pixels.
    radius_px : float
        The token radius, canonical pixels.

    Returns
    -------
    list of _FacePair
        In the order of ``for i, a in enumerate(flat) for b in flat[i + 1:]``.
    """
    out = []
    for i, (a, ea) in enumerate(zip(flat, edged)):
        for b, eb in zip(flat[i + 1:], edged[i + 1:]):
            dist_px = math.hypot(a.x - b.x, a.y - b.y)
            out.append(_FacePair(a, b, dist_px, dist_px / radius_px,
                                 math.hypot(ea[0] - eb[0], ea[1] - eb[1]) / radius_px))
    return out


def _size_faces_crowded(search: TokenSearch, flat: list[Candidate], radius_px: float) -> bool:
    """Whether every clear disc that gave the token size (``search.radius_faces``)
    lies nearer than ``SIZE_FACE_MIN_CLEAR_RADII`` token radii (``radius_px``,
    canonical pixels) to another of the ``flat`` faces (its own candidate, within
    half a radius of it, left out); False when the size is not from discs."""
    if search.radius_source != "discs" or not search.radius_faces:
        return False
    reach = SIZE_FACE_MIN_CLEAR_RADII * radius_px
    return all(any(0.5 * radius_px <= math.hypot(c.x - x, c.y - y) < reach for c in flat)
               for x, y in search.radius_faces)


def _shortened_towards(c: Candidate, other: Candidate) -> bool:
    """Whether a face measured whole as a blob is less round than
    ``SHORTENED_PAIR_MAX_AXIS_RATIO`` with its major axis more than
    ``SHORTENED_PAIR_MIN_ANGLE_DEG`` from the line to ``other``: cut short,
    or foreshortened, towards it."""
    if not (c.whole_blob and c.axis_ratio < SHORTENED_PAIR_MAX_AXIS_RATIO):
        return False
    line_deg = math.degrees(math.atan2(other.y - c.y, other.x - c.x)) % 180.0
    return axis_angle_diff_deg(c.angle_deg, line_deg) > SHORTENED_PAIR_MIN_ANGLE_DEG


def _half_of_blob(c: Candidate) -> bool:
    """A face found as part of a blob, not measured whole as one: a half of a
    blob split in two, a face cut from one at half its contrast, or a face
    measured again as a whole (:attr:`Candidate.whole_blob` False)."""
    return c.found_by == "blob" and not c.whole_blob


def _near_halves(a: Candidate, b: Candidate, radius_px: float) -> bool:
    """Two faces both :func:`_half_of_blob`, closer than
    ``SPLIT_HALVES_JOINED_MAX_DIST_RADII`` token radii (``radius_px``,
    canonical pixels) by their centroids."""
    return (_half_of_blob(a) and _half_of_blob(b)
            and math.hypot(a.x - b.x, a.y - b.y) < SPLIT_HALVES_JOINED_MAX_DIST_RADII * radius_px)


def _shortened_beside_faint(c: Candidate, faint: Candidate, radius_px: float) -> bool:
    """A face :func:`_shortened_towards` a face not found as a blob (its shape
    not measured), closer than ``SHORTENED_BESIDE_FAINT_MAX_DIST_RADII`` token
    radii (``radius_px``, canonical pixels)."""
    return (faint.found_by != "blob" and _shortened_towards(c, faint)
            and math.hypot(c.x - faint.x, c.y - faint.y) < SHORTENED_BESIDE_FAINT_MAX_DIST_RADII * radius_px)


def _shortened_pair(a: Candidate, b: Candidate, radius_px: float) -> bool:
    """Two faces each :func:`_shortened_towards` the other, closer than
    ``SHORTENED_PAIR_MAX_DIST_RADII`` token radii (``radius_px``, canonical
    pixels)."""
    return (_shortened_towards(a, b) and _shortened_towards(b, a)
            and math.hypot(a.x - b.x, a.y - b.y) < SHORTENED_PAIR_MAX_DIST_RADII * radius_px)


def _edge_centres(residual: np.ndarray, flat: list[Candidate], tokenish: list[Candidate],
                  radius_px: float) -> list[tuple[float, float]]:
    """Each flat face's centre by its edge where that can bring it nearer another face.

    A face not measured whole as one blob (found by the disc filter or by its
    outline, or a half of a blob split in two), with another candidate within
    ``EDGE_FIT_NEIGHBOUR_RADII`` token radii, gets the centre of the circle
    fitted to its edge (:func:`vision.face_centre.fit_face_edge`, rays towards
    those candidates left out); every other face keeps its own centre, as
    does one whose edge gives no fit.  Canonical pixels, in ``flat``'s order.

    A half's centroid lies off its face's centre, away from the other half,
    when one face hides part of the other: fresh leaning overlaps 613453
    (640x480) and 546279 (1280x720), a red token leaning on a red one, hiding
    7-8 % of it, split 1.86 radii apart and read as four tokens; by their
    edges 1.77-1.78.  This moves the bound for split pairs rather than telling
    the two apart: touching halves' edges also measure 0.08-0.12 radii nearer
    than their centroids (960x540 7006, 7014: 1.87-1.91 by centroids,
    1.79 by edges; a blob's centroid carries its shadow and side wall
    outwards), and forced touching pairs lose 5 of 176 right outcomes at
    1280x720 (540000-540399), 2 of 125 at 640x480 (542000-542399).

    A blob measured whole keeps its centroid: it passed as one round face,
    and the fit of a faint neighbour's edge is the less sure of the two
    (forced touching 344731: a red disc and an outline face, 1.82 radii apart
    by the disc's centroid and the outline's edge, 1.76 by both edges, 2.1
    true).
    """
    out = []
    for c in flat:
        near = [(o.x, o.y) for o in tokenish
                if o is not c and math.hypot(o.x - c.x, o.y - c.y) < EDGE_FIT_NEIGHBOUR_RADII * radius_px]
        fit = fit_face_edge(residual, c.x, c.y, radius_px, near) if near and not c.whole_blob else NO_FIT
        out.append((fit.x, fit.y) if fit.fitted else (c.x, c.y))
    return out


def search_tokens(view: CanonicalView, settings: ReaderSettings | None = None, *,
                  outline_rule: OutlineRule | None = None, outline_trace: list | None = None
                  ) -> tuple[CanonicalView, TokenSearch]:
    """The token search as the reader runs it: on ``view`` with its angular
    shading taken out (:func:`vision.shading.without_shading`), blobs held to
    the plain ring model's threshold (plate gloss the shading model does not
    explain is no more a blob than it was).  Where that search is blind (the
    threshold above its floor and above every flat face's contrast) and
    ``SMOOTH_PLATE_MODEL`` is on, the search runs again on the smooth plate
    model (:func:`vision.smooth_plate.with_smooth_plate`) when that model's
    threshold is lower and at most ``SMOOTH_PLATE_MAX_THRESHOLD_LAB``: held to
    it in the well, to the rings' threshold from
    ``smooth_plate.SMOOTH_PLATE_FIT_RADIUS_FRAC`` out (the rim's bands, which
    the rings model).

    Parameters
    ----------
    view : CanonicalView
        From :func:`vision.canonical.make_canonical_view`.
    settings : ReaderSettings or None
        Token size range and outline rule; None: the defaults.
    outline_rule : OutlineRule or None
        Overrides ``settings.outline_rule`` (calibration's tracing rule).
    outline_trace : list or None
        As for :func:`vision.tokens.find_tokens`.

    Returns
    -------
    (CanonicalView, TokenSearch)
        The view searched (candidates are in its pixels) and the search;
        the search's ``well_blob_threshold_lab`` is set when it ran on the
        smooth model.
    """
    settings = ReaderSettings() if settings is None else settings
    blob_floor = blob_threshold(view)
    flat = without_shading(view)
    rule = settings.outline_rule if outline_rule is None else outline_rule
    search = find_tokens(flat, token_radius_frac=settings.token_radius_frac, outline_rule=rule,
                         outline_trace=outline_trace, min_blob_threshold_lab=blob_floor)
    # (the search records blob_threshold of the view it searched, ``flat``)
    searched = search.blob_threshold_lab if search.blob_threshold_lab is not None else blob_threshold(flat)
    if SMOOTH_PLATE_MODEL and _blind_blob_search(searched, search.of_kind(*FLAT_KINDS)):
        smooth = with_smooth_plate(flat)
        if smooth is not None:
            well = blob_threshold(smooth)
            rings = max(blob_floor, searched)
            if well < rings and well <= SMOOTH_PLATE_MAX_THRESHOLD_LAB:
                again = find_tokens(smooth, token_radius_frac=settings.token_radius_frac, outline_rule=rule,
                                    outline_trace=outline_trace, min_blob_threshold_lab=well,
                                    outer_blob_threshold=(SMOOTH_PLATE_FIT_RADIUS_FRAC, rings))
                return smooth, again
    return flat, search


def _blind_blob_search(threshold: float, flat: list[Candidate] | tuple[Candidate, ...]) -> bool:
    """True when the blob threshold (Lab units) is above its floor
    ``BLOB_MIN_DELTA_E`` and above every flat face's contrast: no face is a
    blob, and a hand no more contrasting than a face would be seen by
    nothing (``BLIND_BLOB_SEARCH_UNCERTAIN``).  False with no flat face."""
    return bool(flat) and threshold > max(BLOB_MIN_DELTA_E, max(c.contrast for c in flat))


def _reading(decided: tuple, view: CanonicalView, search: TokenSearch, plate: PlateFit, t0: float) -> Reading:
    """The :class:`Reading` of ``decide``'s result (``t0``: the read's start, perf_counter seconds)."""
    verdict, reason, cands, faces, conf = decided
    tokens = _token_readings(view, cands, faces)
    red = white = None
    if verdict == "outcome":
        red = sum(1 for t in tokens if t.face == "red")
        white = 4 - red
    return Reading(verdict=verdict, reason=reason, red=red, white=white, confidence=float(conf),
                   tokens=tokens if verdict != "covered" else (), plate=plate.ellipse,
                   elapsed_ms=(time.perf_counter() - t0) * 1e3,
                   details={"token_radius_px": search.token_radius_px, "radius_source": search.radius_source,
                            "candidates": [c.kind for c in cands]})
