"""Texts joined by SQLite and cut apart again (db/joined.py)."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from lmmreview.db.joined import cut

TEXTS = st.lists(st.none() | st.text(max_size=3), max_size=30)
LETTERS = st.lists(st.characters(), min_size=1, max_size=30)  # any one character each


def _joined(texts: list[str | None]) -> tuple[np.ndarray, str]:
    lengths = np.array([-1 if t is None else len(t) for t in texts], np.int64)
    return lengths, "".join(t for t in texts if t is not None)


@given(TEXTS)
def test_texts_come_back_as_they_were_joined(texts: list[str | None]) -> None:
    assert cut(*_joined(texts)) == texts


@given(LETTERS)
def test_one_character_texts_come_back_whatever_the_character(texts: list[str]) -> None:
    assert cut(*_joined(texts)) == texts


def test_a_null_among_letters_is_not_taken_for_one() -> None:
    assert cut(*_joined(["A", None, "B"])) == ["A", None, "B"]
    assert cut(*_joined(["A", "", "B"])) == ["A", "", "B"]
