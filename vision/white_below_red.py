"""A face read white must not be darker than the red faces beside it.

A white token reflects more light than a red one in every channel (the
synthesized albedos: the darkest white, ``grey`` (206, 206, 200), against the
lightest red, ``pinkish`` (222, 98, 118); a real white face is alike), and
every flat face on the plate gets the one light of the table.  So a face
read white is at least as light as the darkest face read red, up to the
light's fall-off across the plate (which the lightness relative to the plate
under each face takes out) and a specular glint on a red face.  A face read
white far darker than every red face, both as measured and relative to the
plate, is not a white token: on a black lacquer plate over-exposed by a
stop, the lacquer's broad lit sheen at the foot of the well (L* 46, 19 L
over the plate model) was found by the faint-disc filter as a fourth, white
face beside three red faces of L* 65-74 (fresh scene 1868016, 1024x768).

:func:`vision.faces.whites_alike_in_lightness` compares white faces with each
other; this rule compares them with the red faces, and so covers the frames
where every other face is red.
"""

from __future__ import annotations

from .faces import FaceReading

#: The reader abstains when a face read white is darker than the darkest face
#: read red by more than this, L* units, both as measured (``l_star``) and
#: relative to the plate under each (``delta_l``): no darker, as the albedos
#: say, up to 5 L for the measurement (a median over a face's core, a glint
#: on a red face).  Margin seen (the smaller of the two ways): the sheen of
#: scene 1868016 lies 19.2 L below the darkest red (28.2 relative to the
#: plate), 14.2 beyond the bound; true white faces lay at least 18.2 L above
#: the darkest red in the 46 frames with both colours that reached this rule
#: of a natural mix (1880000-1880399, 640x480), at least 14.5 L above in the
#: 120 of black lacquer outcome scenes over-exposed by 0.5-1.5 stop
#: (1880400-1880799, 1024x768), and, pairing the lightest red style
#: (``pinkish``) with the darkest white (``grey``) in outcome scenes at
#: 640x480, at least 7.7 L above (130 frames, 1889300-1889599), 11.9 over-exposed
#: 0.5-1.5 stop (84, 1889000-1889299) and 4.8 under-exposed 0.5-1.5 stop
#: (142, 1889600-1889899; darkening draws L* together): 9.8 L from the bound.
WHITE_BELOW_RED_MAX_L = 5.0

#: Module switch (A/B): False turns the rule off.
WHITE_BELOW_RED_UNCERTAIN = True


def white_below_red(readings: list[FaceReading | None]) -> float:
    """How far the darkest-by-both face read white lies below the darkest red.

    Parameters
    ----------
    readings : list of FaceReading or None
        The frame's face readings (None entries are skipped).

    Returns
    -------
    float
        The largest, over the faces read white, of the smaller of the two
        gaps (the darkest red's ``l_star`` minus the white's, and the same of
        ``delta_l``), L* units; negative when every white is lighter than
        every red one way; ``-inf`` without both colours.
    """
    faces = [f for f in readings if f is not None]
    reds = [f for f in faces if f.face == "red"]
    whites = [f for f in faces if f.face == "white"]
    if not reds or not whites:
        return float("-inf")
    red_l = min(f.l_star for f in reds)
    red_dl = min(f.delta_l for f in reds)
    return max(min(red_l - w.l_star, red_dl - w.delta_l) for w in whites)


def whites_below_reds(readings: list[FaceReading | None]) -> tuple[bool, float]:
    """Whether every face read white is about as light as the red faces, or lighter.

    Parameters
    ----------
    readings : list of FaceReading or None
        The frame's face readings (None entries are skipped).

    Returns
    -------
    ok : bool
        False when the rule is on (``WHITE_BELOW_RED_UNCERTAIN``) and a face
        read white lies more than ``WHITE_BELOW_RED_MAX_L`` below the darkest
        red face both as measured and relative to the plate.
    gap : float
        :func:`white_below_red`, L* units.
    """
    gap = white_below_red(readings)
    return (not WHITE_BELOW_RED_UNCERTAIN) or gap <= WHITE_BELOW_RED_MAX_L, gap
