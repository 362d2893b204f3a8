"""Large freed buffers go back to the system (tui/allocator.py), so a million answers read
leave no heap of freed megabytes behind."""

from __future__ import annotations

import subprocess
import sys

import pytest

# Allocate and free a buffer of 8 MiB (its free raises glibc's threshold to its size), then
# report how much of a second one's memory the process still holds once it is freed.
_PROBE = """
import sys
from lmmreview.tui.allocator import give_back_large_buffers
if sys.argv[1] == "fixed":
    assert give_back_large_buffers()
def resident():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096
size = 8 << 20
buffer = b"x" * size
del buffer
before = resident()
buffer = b"x" * size
del buffer
print((resident() - before) / size)
"""


def _kept(mode: str) -> float:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, mode], capture_output=True, text=True, check=True
    )
    return float(done.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc: Linux only")
def test_a_freed_large_buffer_is_given_back_with_the_threshold_fixed() -> None:
    kept_by_default, kept_fixed = _kept("default"), _kept("fixed")
    assert kept_by_default > 0.9  # glibc's own behaviour, which the fix is for
    assert kept_fixed < 0.1
