"""A plug-in that writes escape sequences (a window title, a cleared screen) as it loads."""

import sys

from hostile_bench import Quiet

print("\x1b]0;pwned\x07\x1b[2Jnoisy stdout")
print("\x1b[31mnoisy stderr", file=sys.stderr)


class Noisy(Quiet):
    name = "noisy"
    title = "Noisy"


NOISY = Noisy()
