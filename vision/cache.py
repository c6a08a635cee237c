"""Small per-process caches of read-only arrays (kernels, window grids) keyed by size."""
from __future__ import annotations

from typing import Callable, Hashable, TypeVar

T = TypeVar("T")

#: Entries a cache keeps before it is emptied (radii and window sizes of one
#: studio are few; a sweep over many sizes must not grow it without bound).
CACHE_MAX_ENTRIES = 64


def cached(cache: dict, key: Hashable, make: Callable[[], T], max_entries: int = CACHE_MAX_ENTRIES) -> T:
    """``cache[key]``, made by ``make()`` on a miss.

    The value (an ndarray or a tuple of them, None for an absent one) is set
    read-only before it is stored, so no caller can change what the next one gets; the cache is
    emptied first when it already holds ``max_entries``.
    """
    got = cache.get(key)
    if got is None:
        got = make()
        for a in (got if isinstance(got, tuple) else (got,)):
            if a is not None:
                a.setflags(write=False)
        if len(cache) >= max_entries:
            cache.clear()
        cache[key] = got
    return got
