"""Two of OCRBench v2's answer-reading patterns are rewritten so that a hostile answer
(a bracket and thousands of spaces) cannot stall `score` or the screen: each finds what the
official pattern finds (restated here from spotting_metric.py and TEDS_metric.py @7776efc)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from lmmreview.engine.benchmarks.ocrbench.v2_kie import _PAIR
from lmmreview.engine.benchmarks.ocrbench.v2_spotting import _BRACKETED

OFFICIAL_BRACKETED = re.compile(r"[\[(]\s*([^\[\]()]*?)\s*[\])]")
OFFICIAL_PAIR = re.compile(r"""["']?([\w\s]+)["']?\s*[:=]\s*["']?([^\n,"'{}]+)["']?""")
ANSWERS = st.text(alphabet="[](){}:=,'\" \t\n\u3000\x85ab1_", max_size=40)


@given(ANSWERS)
def test_the_bracketed_entries_are_the_official_patterns(answer: str) -> None:
    assert [entry.strip() for entry in _BRACKETED.findall(answer)] == (
        OFFICIAL_BRACKETED.findall(answer)
    )


@given(ANSWERS)
def test_the_key_value_pairs_are_the_official_patterns(answer: str) -> None:
    assert _PAIR.findall(answer) == OFFICIAL_PAIR.findall(answer)
