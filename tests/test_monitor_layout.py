"""vision.monitor_layout.to_plate: plate units that depend on the plate ellipse only, not on how its fit names the axes.

Before, (u, v) were taken along the fit's own axes: an angle is defined modulo
180 degrees and a near-circular plate's angle is arbitrary, so the same layout
read in two rounds could come out turned (same_layout clip 1300023 at 640x360,
25 fps: plate angle 177.2 then 6.6 degrees, the layout turned by 170 degrees, and
the second round, the same layout, was an outcome instead of a void).
"""
from __future__ import annotations

import math

import pytest

from monitor_clips import final_events, run_clip
from vision.monitor_layout import to_plate
from vision.types import Ellipse

POINTS = [(300.0, 200.0), (341.0, 150.5), (260.0, 231.0), (333.3, 190.0)]


@pytest.mark.parametrize("a, b, angles", [(120.0, 80.0, (179.9, 0.1)), (100.0, 99.8, (177.0, 40.0, 95.0)),
                                           (90.0, 60.0, (0.0, 179.95))])
def test_nearly_the_same_ellipse_gives_nearly_the_same_units(a, b, angles):
    # the same axis across the wrap of [0, 180), or a near circle at any angle
    names = [Ellipse(310.0, 190.0, a, b, angle) for angle in angles]
    for x, y in POINTS:
        got = [to_plate(e, x, y) for e in names]
        for u, v in got[1:]:
            assert math.hypot(u - got[0][0], v - got[0][1]) < 0.01


def test_ellipse_goes_to_the_unit_circle():
    e = Ellipse(310.0, 190.0, 120.0, 80.0, 20.0)
    th = math.radians(e.angle_deg)
    for k in range(12):
        phi = 2 * math.pi * k / 12
        x = e.cx + e.a * math.cos(phi) * math.cos(th) - e.b * math.sin(phi) * math.sin(th)
        y = e.cy + e.a * math.cos(phi) * math.sin(th) + e.b * math.sin(phi) * math.cos(th)
        assert math.hypot(*to_plate(e, x, y)) == pytest.approx(1.0, abs=1e-9)


def test_near_circle_fits_with_other_angles_agree():
    # clip 1300023's two fits of the same plate (rounds 0 and 1)
    e0 = Ellipse(141.00, 226.86, 100.60, 100.45, 177.16)
    e1 = Ellipse(140.92, 226.84, 100.47, 100.42, 6.60)
    for x, y in [(111.0, 172.0), (162.0, 203.0), (115.0, 210.0), (168.0, 265.0)]:
        (u0, v0), (u1, v1) = to_plate(e0, x, y), to_plate(e1, x, y)
        assert math.hypot(u0 - u1, v0 - v1) < 0.01   # a token radius is ~0.13


def test_same_layout_clip_with_a_near_circular_plate_is_void():
    clip, events, _ = run_clip(1300023, "same_layout", fps=25, size=(640, 360))
    final = final_events(events)
    assert [f["event"] for f in final] == ["outcome", "void"]
    assert final[0]["red"] == clip.label["rounds"][0]["red"]
    assert final[1]["code"] == "layout_unchanged"
