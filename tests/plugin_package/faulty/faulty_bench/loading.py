"""A module that, as $FAULTY says, leaves a thread running forever as it loads."""

import os
import threading

from lmmreview.engine.benchmark import Benchmark, Tables
from lmmreview.engine.types import Sample

if os.environ.get("FAULTY") == "thread":
    threading.Thread(target=threading.Event().wait, daemon=False).start()


class Loading(Benchmark):
    name = "loading"
    title = "Loading"

    def tables(self, dataset: str, samples: list[Sample], counts: list[int]) -> Tables:
        return [], {}


BENCHMARK = Loading()
