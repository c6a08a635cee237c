"""Exception types of the reader's API.

Game-level results (rearrange, reshake, uncertain, ...) are never exceptions:
they are values of :class:`vision.types.Reading`.  Exceptions are kept for
inputs the reader cannot work on at all.
"""


class XocDiaError(Exception):
    """Base class of every exception this project raises on purpose."""


class FrameError(XocDiaError, ValueError):
    """A frame (array or file) that cannot be read: wrong dtype, shape, NaN,
    corrupt or truncated file, too many pixels.  The message names the file
    (when there is one) and the problem."""


class ProfileError(XocDiaError, ValueError):
    """A studio profile that is malformed, from a newer version, or missing a
    field.  The message names the file and the field."""
