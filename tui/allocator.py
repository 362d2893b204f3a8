"""Large buffers given back to the system as soon as they are freed (glibc's malloc).

Reading a million answers makes many short-lived buffers of megabytes: a column joined
into one text, the array parsed from it. glibc raises its mmap threshold to the size of
the largest such buffer freed; after that, buffers that size come from the heap, and
their memory stays with the process when they are freed. With the threshold fixed,
`lmmreview open` of 1,000,000 MMMU answers peaked at 372 MB instead of 440 MB, and held
275 MB instead of 376 MB once the tables were up. Each such buffer then costs fresh pages
(system time: 1,000,000 MMBench answers exported took 2.5 s instead of 2.2), so only the
screen, which stays open and whose memory counts, asks for it.
"""

from __future__ import annotations

import ctypes
import sys

_M_MMAP_THRESHOLD = -3  # mallopt's parameter number, from glibc's malloc.h
THRESHOLD = 1 << 20  # a buffer this large or larger is mapped on its own


def give_back_large_buffers() -> bool:
    """Fix glibc's mmap threshold at THRESHOLD; whether it was (elsewhere: nothing done)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt  # the C library the process runs on
    except (OSError, AttributeError):
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, THRESHOLD))
