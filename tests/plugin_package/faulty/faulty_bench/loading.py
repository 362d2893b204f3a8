"""A module that, as $FAULTY says, leaves a thread running forever as it loads, ends the
process, or holds the interpreter (a C loop no other thread can interrupt)."""

import os
import threading

from lmmreview.engine.benchmark import Benchmark, Tables
from lmmreview.engine.types import Sample

if os.environ.get("FAULTY") == "thread":
    threading.Thread(target=threading.Event().wait, daemon=False).start()
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
