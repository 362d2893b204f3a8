"""A module that, as $FAULTY says, leaves a thread running forever as it loads, writes
escapes to the terminal (past sys.stdout, or to its file descriptors), ends the process,
or holds the interpreter (a C loop no other thread can interrupt)."""

import os
import sys
import threading

from lmmreview.engine.benchmark import Benchmark, Tables
from lmmreview.engine.types import Sample

if os.environ.get("FAULTY") == "thread":
    threading.Thread(target=threading.Event().wait, daemon=False).start()
if os.environ.get("FAULTY") == "print":  # past sys.stdout's redirect, to the terminal
    sys.__stdout__.write("\x1b]0;title\x07\x1b[2J")
    sys.__stderr__.write("\x1b[31m")
if os.environ.get("FAULTY") == "write":  # to the descriptors themselves
    os.write(1, b"\x1b]0;title\x07")
    os.write(2, b"\x1b[2J written")
if os.environ.get("FAULTY") == "exit":
    os._exit(0)
if os.environ.get("FAULTY") == "interpreter":
    sum(range(10**12))


class Loading(Benchmark):
    name = "loading"
    title = "Loading"

    def tables(self, dataset: str, samples: list[Sample], counts: list[int]) -> Tables:
        return [], {}


BENCHMARK = Loading()
