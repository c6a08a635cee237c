"""A plate painted with one flat face, for the face-classification tests (labels from the painting)."""
from __future__ import annotations

import cv2
import numpy as np

from vision.canonical import PLATE_RADIUS_PX, make_canonical_view
from vision.types import Ellipse


def painted_face(face_bgr, plate_bgr=(225, 228, 230)):
    """A plate with one flat face of ``face_bgr`` at its centre: the canonical view and the face's radius."""
    img = np.zeros((480, 640, 3), np.uint8)
    img[:] = (40, 110, 40)
    cv2.circle(img, (320, 240), 150, plate_bgr, -1)
    cv2.circle(img, (320, 240), 20, face_bgr, -1)
    view = make_canonical_view(img, Ellipse(320, 240, 150, 150, 0))
    return view, 20 * PLATE_RADIUS_PX / 150
