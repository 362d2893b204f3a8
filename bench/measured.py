"""Run a command and write its wall time, exit code and own peak RSS to a JSON file.

`python -m bench.measured RESULT.json COMMAND...`. The benchmarks run a command line
through this small process, not straight from the runner: on Linux a child's `ru_maxrss`
starts from its parent's peak (carried over fork and exec), and the runner's is large
once it holds a million answers' fixtures. A child of this process starts from its few
megabytes instead.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path


def main(result: Path, command: list[str]) -> int:
    started = time.perf_counter()
    process = subprocess.Popen(command)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    process.returncode = code = os.waitstatus_to_exitcode(status)  # reaped: tell Popen
    # ru_maxrss is in kilobytes on Linux, in bytes on macOS.
    rss = usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)
    result.write_text(json.dumps({"returncode": code, "seconds": seconds, "peak_rss_bytes": rss}))
    return code


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), sys.argv[2:]))
