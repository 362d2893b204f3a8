"""A plug-in that never finishes loading; it touches the file $HOSTILE_HANG_MARKER names
first, so a test knows it hangs."""

import os
import threading
from pathlib import Path

if os.environ.get("HOSTILE_HANG_MARKER"):
    Path(os.environ["HOSTILE_HANG_MARKER"]).touch()
threading.Event().wait()
