"""Judge results, human verdicts, and the effective score of an answer.

The effective score is the latest human verdict if there is one, else the judge's, per
run. An answer without a usable score stays *unscored* (None), never a silent 0.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple


class Status(StrEnum):
    """What came of a judge call. Only OK and FALLBACK carry a usable score."""

    OK = "ok"
    FALLBACK = "fallback"  # a seeded random choice: usable, but flagged for review
    UNPARSEABLE = "unparseable"
    ERROR = "error"


USABLE = (Status.OK.value, Status.FALLBACK.value)


@dataclass(frozen=True, slots=True, kw_only=True)
class Judgment:
    """One judge result for one answer and run, as the engine produces or reads it."""

    run: int
    score: float | None  # in [0, 1]; for a choice, 1.0 when it equals the gold
    choice: str | None = None
    status: Status = Status.OK
    method: str = ""  # how it was decided: matched, llm, fallback, open, rules, ...
    kind: str = "offline"  # offline | llm | imported (read from another tool's files)
    judge_model: str = ""
    prompt_version: str = ""
    reply: str = ""  # the raw reply, or the offline rule's reason
    error: str = ""  # why no score: the last failure, for unparseable and error
    settings: str = ""  # JSON of the sampling settings of the deciding call
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_ms: float | None = None
    source: str = ""  # the file an imported judgment was read from


IMPORTED = "imported"  # the kind of a judgment read from another tool's files


def imported(
    judge: str, prompt: str, score: float | None, reply: str, source: str, choice: str | None = None
) -> Judgment:
    """A judgment read from another tool's file `source` (its run 0), by `judge` with
    `prompt`, its `reply` what the file records of it."""
    return Judgment(
        run=0, score=score, choice=choice, method=IMPORTED, kind=IMPORTED, judge_model=judge,
        prompt_version=prompt, reply=reply, source=source,
    )  # fmt: skip


def judge_label(kind: str, model: str) -> str:
    """A judge as tables and the screen name it: an imported one says so."""
    return f"{model or 'unnamed judge'} (imported)" if kind == IMPORTED else model


OFFLINE_RULES = "offline rules"  # the offline rules as a judge's model
ANY_PROMPT = "*"  # the offline rules are one judge whatever their version
VARIANT = "+"  # a prompt version's variant follows it: "<reference>+shots=1,2"


@dataclass(frozen=True, slots=True, order=True)
class Judge:
    """One judge: a model with a prompt version (an LLM, or another tool's imported
    results), or the offline rules. Several judges' runs live side by side; a table
    shows one judge's."""

    kind: str  # llm | offline | imported
    model: str
    prompt: str = ANY_PROMPT

    @classmethod
    def of(cls, kind: str, model: str, prompt_version: str) -> Judge:
        """The judge of a judgment stored with these fields: the offline rules whatever
        their version; an LLM by its prompt variant ("" for the reference prompts, which
        differ by question type); an imported judge by the tool's prompt. (SQL:
        db.schema.JUDGE_MODEL and JUDGE_PROMPT.)"""
        if kind == "offline":
            return OFFLINE
        if kind == "llm":
            return cls(kind, model, prompt_variant(prompt_version))
        return cls(kind, model, prompt_version)

    @property
    def label(self) -> str:
        return judge_label(self.kind, self.model)

    @property
    def full_label(self) -> str:
        """The label with the prompt version: tells apart two prompts of one model."""
        return self.label if self.prompt in (ANY_PROMPT, "") else f"{self.label} [{self.prompt}]"

    def parameters(self) -> tuple[str, str, str]:
        """The values of schema.JUDGE_READS' placeholders, in order."""
        return (self.kind, self.model, self.prompt)


OFFLINE = Judge("offline", OFFLINE_RULES)  # the offline rules, any version


def prompt_variant(prompt_version: str) -> str:
    """The variant part of an LLM judge's prompt version ("" for a reference prompt)."""
    return prompt_version.partition(VARIANT)[2]


def judge_names(judges: Iterable[Judge]) -> dict[Judge, str]:
    """Each judge's name: its label, with the prompt version where two judges share one."""
    listed = list(judges)
    shared = Counter(j.label for j in listed)
    return {j: j.label if shared[j.label] == 1 else j.full_label for j in listed}


@dataclass(frozen=True, slots=True)
class JudgeChoice:
    """Whose judgments the tables, exports and notes count, as the user chose once, at the
    edge (the command line's --judge and the review.judge setting): the judge `named`
    names (it must name one of the dataset's), else the one `preferred` names (ignored
    where it names none), else the dataset's default. Store.chosen_judge resolves it per
    dataset."""

    named: str | None = None
    preferred: str | None = None

    def pick(self, judges: Sequence[Judge]) -> Judge | None:
        """The judge chosen among a dataset's `judges` (the default first); None when it
        has none. UnknownJudge when the judge named is not one of them, or several."""
        if self.named:
            matches = judges_named(judges, self.named)
            if len(matches) == 1:
                return matches[0]
            listed = ", ".join(repr(n) for n in judge_names(judges).values()) or "none yet"
            why = "several judges match" if matches else "no judge"
            raise UnknownJudge(f"{why} {self.named!r}; judges: {listed}")
        liked = judges_named(judges, self.preferred) if self.preferred else []
        return next(iter(liked or judges), None)


class UnknownJudge(LookupError):
    """The judge a user named is none of a dataset's judges, or several of them."""


DEFAULT_CHOICE = JudgeChoice()  # no judge named or preferred: each dataset's default


def judges_named(judges: Iterable[Judge], name: str) -> list[Judge]:
    """The judges `name` (as a user types it) names, in order: those whose label it is
    (with or without the prompt version), else those whose model it is. So "offline rules"
    is lmmreview's rules though a file's judge "offline rules (imported)" shares the model."""
    listed = list(judges)
    labelled = [j for j in listed if name in (j.label, j.full_label)]
    return labelled or [j for j in listed if name == j.model]


@dataclass(frozen=True, slots=True)
class GroupVerdict:
    """A whole circular group's verdict as another tool computed it (VLMEvalKit's `hit`),
    kept beside lmmreview's own CircularEval of the same rows; it decides no score."""

    key: str  # the group's main row
    model: str
    score: float
    failed_at: int | None  # the rotation the tool's log says failed
    judge_model: str
    log: str
    source: str


@dataclass(frozen=True, slots=True)
class Verdict:
    """The current human verdict on an answer (a score, or a chosen option)."""

    score: float | None
    choice: str | None = None


MICRO = 1_000_000  # a score of 1.0, in the whole millionths the tables count in
_SHARED: dict[int, int] = {}  # one object per score value: a recompute then reads few


class Outcome(NamedTuple):
    """The effective result of one answer (or one circular group), one score per run.

    It is the one source of the counts every path shows (tables, strip, notes, `info`,
    `score`): an answer is *unscored* when no run has a score, *partial* when some runs
    have one and others not, *reviewed* when a human verdict is in force, *offline* when
    its score is the offline rules' (see `effective`).

    Scores are whole millionths (None: unscored), so that table sums are exact under
    add and subtract, and a full recompute can sum them in C. Build one with `of`: it
    also fills `complete` (no run unscored), a field so a recompute reads it with the rest.
    """

    micro: tuple[int | None, ...]
    complete: bool
    reviewed: bool = False
    fallback: bool = False
    offline: bool = False

    @classmethod
    def of(
        cls,
        scores: Iterable[float | None],
        reviewed: bool = False,
        fallback: bool = False,
        offline: bool = False,
    ) -> Outcome:
        """An outcome from scores in [0, 1], rounded to the nearest millionth."""
        micro = tuple(None if score is None else _shared(round(score * MICRO)) for score in scores)
        return cls(micro, None not in micro, reviewed, fallback, offline)

    @property
    def unscored(self) -> bool:
        """No run has a score."""
        return self.micro.count(None) == len(self.micro)

    @property
    def partial(self) -> bool:
        """Some runs have a score, others not."""
        return 0 < self.micro.count(None) < len(self.micro)


def _shared(micro: int) -> int:
    """The one object for this value (benchmarks score on a few grades; 0 to 1 by 0.1 in
    MM-Vet), so 100,000 outcomes point at a handful of integers that stay in the cache."""
    return _SHARED.setdefault(micro, micro) if len(_SHARED) < 100_000 else micro


def choice_score(choice: str | None, golds: list[str]) -> float | None:
    """1.0 when the choice is a gold letter, 0.0 otherwise; None when the gold is unknown."""
    if not golds or choice is None:
        return None
    return 1.0 if choice in golds else 0.0


def human_score(verdict: Verdict | None, golds: list[str]) -> float | None:
    """The score a human verdict gives: its own, or its chosen option scored against the
    golds; None without a verdict, or for a choice with no gold to score it by."""
    if verdict is None:
        return None
    return verdict.score if verdict.choice is None else choice_score(verdict.choice, golds)


def effective(
    judged: Sequence[float | None],
    verdict: Verdict | None,
    runs: int,
    golds: list[str],
    fallback: bool = False,
    offline: bool = False,
) -> Outcome:
    """The effective outcome of an answer: the one rule of the tables, the exports, the
    notes and the review screen.

    `judged` holds the score of each run's deciding judgment (None: no usable one), and
    `fallback` and `offline` say whether a usable deciding judgment was a seeded fallback
    or the offline rules'. A human score replaces the judge's in every run; a human choice
    is scored against the golds. A verdict that gives no score (a choice with no gold)
    leaves the judge's scores, and the answer still counts as reviewed. `fallback` and
    `offline` say where a score came from, so an answer with no score in any run (a
    choice read from an answer to a question with no gold) is neither: it is unscored.
    """
    human = human_score(verdict, golds)
    if human is not None:
        return Outcome.of((human,) * runs, reviewed=True)
    scores = tuple(judged[:runs]) + (None,) * (runs - len(judged))
    scored = any(score is not None for score in scores)
    return Outcome.of(scores, verdict is not None, fallback and scored, offline and scored)


def unit_passes(correct: Sequence[bool | None]) -> bool | None:
    """Whether a unit of several samples passes, from whether each is right (None when
    unknown): MMBench's CircularEval and any benchmark's group (Benchmark.group_by).

    In rotation order the group fails at its first wrong row, whatever follows; a wrong row
    therefore fails the group wherever it sits, so the order of the rows does not matter.
    The group passes only if every row is right; with no row wrong but some unknown (or no
    rows) the result is unknown (None).
    """
    if False in correct:  # `in` compares with ==: only bools and None are here
        return False
    if not correct or None in correct:
        return None
    return True
