"""What a benchmark is: everything lmmreview knows about one, behind one interface.

A benchmark (MM-Vet, MMBench, MMMU, the generic JSONL format, or one another package
installs) is one object: its name and title, its tables and the units each sample counts
in, its offline rules, its judge work, what the screen says about a sample, and the
importer that reads its files. The rest of lmmreview asks the dataset's benchmark and
never branches on which one it is. `engine.registry` finds them by name.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable
from dataclasses import dataclass, field

from lmmreview.engine.llm import Call, Reply
from lmmreview.engine.scoring import Judgment
from lmmreview.engine.tables import Column
from lmmreview.engine.types import Sample

Cells = tuple[tuple[str, str], ...]  # (table name, column key) pairs


@dataclass(frozen=True, slots=True)
class TableSpec:
    """One of a benchmark's tables: its columns in order, and those shown as mean±std."""

    name: str
    title: str
    columns: list[Column]
    std_columns: tuple[str, ...] = ()


# How a group of samples is right (Unit.rule; decided in engine.layouts)
ALL, NONE, MIXED = "all", "none", "mixed"
UNIT_RULES = (ALL, NONE, MIXED)


@dataclass(frozen=True, slots=True)
class Unit:
    """What one table cell counts once: a sample, or a group its rows decide together
    (an MMBench circular group passes a run only when every row is right)."""

    key: str
    cells: Cells
    members: tuple[str, ...]  # sample keys that decide it, in order
    # When the group is right: ALL rows right (CircularEval), NONE, or MIXED, some right
    # and some wrong (HallusionBench's wrong and inconsistent figures); a unit of one
    # sample under another rule than ALL is a group of one.
    rule: str = ALL


Tables = tuple[list[TableSpec], dict[str, list[Unit]]]  # the tables; sample key -> its units


@dataclass(frozen=True, slots=True)
class JudgeItem:
    """One answer and run to judge, with everything the prompt needs."""

    answer_id: int
    run: int
    work: JudgeWork
    question: str
    golds: tuple[str, ...]
    prediction: str
    options: dict[str, str] = field(default_factory=dict)
    seed_key: str = ""  # seeds a fallback (the row's index)


class JudgeWork(ABC):
    """What an LLM judge is asked about an answer, and how its replies become a judgment.

    Each item walks `ladder` until a reply parses (`interpret`); `exhausted` decides when
    none does. Items may form chains (the rows of a circular group, in order), which stop
    at the first judgment that `ends_chain`.
    """

    every_run: bool = True  # asked once per judge run; else once (run 0) for all runs

    @abstractmethod
    def prompt_version(self) -> str:
        """Recorded with each judgment, so a score can be traced to its prompt text."""

    @abstractmethod
    def ladder(self, item: JudgeItem, model: str) -> list[Call]:
        """The calls to try, in order, until one reply parses."""

    @abstractmethod
    def interpret(self, item: JudgeItem, call: Call, reply: Reply) -> Judgment | None:
        """The judgment a reply gives, or None when it does not parse."""

    @abstractmethod
    def exhausted(self, item: JudgeItem, model: str, last_reply: str) -> Judgment:
        """The judgment when no reply parsed."""

    def without_llm(self, item: JudgeItem) -> Judgment | None:
        """A judgment that needs no call (a clear option letter), if there is one."""
        return None

    def ends_chain(self, score: float | None) -> bool:
        """Whether a row with this score decides its chain, so later rows are not asked."""
        return score == 0.0


class NoVariants(ValueError):
    """A benchmark has no judge prompt variants at all (Benchmark.prompt_variant)."""


@dataclass(frozen=True, slots=True)
class Option:
    """One argument or option of a benchmark's import command."""

    name: str  # the option's name (`answers` is --answers), or the argument's
    metavar: str
    help: str
    many: bool = False  # repeatable
    text: bool = False  # a name, not a path
    required: bool = False  # for the argument: it must be given
    flag: bool = False  # an option that takes no value (on or off)


@dataclass(frozen=True, slots=True)
class Importer:
    """How `lmmreview import NAME` reads a benchmark's files.

    `reader` names the function that takes an `ImportRequest` and returns an
    `ImportBatch`, as its package declares it under the entry-point group
    `lmmreview.files` (lmmreview's own in its pyproject.toml); file reading stays out of
    the engine. The command takes
    `argument` first, then `options`, then --dataset.
    """

    reader: str
    help: str
    argument: Option
    options: tuple[Option, ...] = ()
    command: str = ""  # the command's name, when not the benchmark's
    # The function that takes the sample data folder and returns the `ImportRequest`s of the
    # demo's imports, in order, named as `reader` is; "" for none.
    demo: str = ""


@dataclass(frozen=True, slots=True)
class ExportFormat:
    """One of a benchmark's official file formats: `lmmreview export --format NAME`.

    `writer` names the function that makes a dataset's files from the store, declared
    under the entry-point group `lmmreview.files` (see db.official for its signature), as
    an Importer names its reader."""

    name: str  # the --format value; unique among every installed benchmark's
    help: str  # one line for `export --help` and the docs
    writer: str
    one_file_allowed: bool = False  # --out may name one file (else it is a folder)


class Benchmark(ABC):
    """A benchmark's rules; subclass it, set the class attributes, and register it."""

    name: str  # stored as the dataset's kind; lower case, no spaces
    title: str
    importer: Importer | None = None  # the benchmark's own files (`lmmreview import NAME`)
    # Other tools' outputs for this benchmark (predictions, judge results), each under its
    # own `command` name.
    tool_importers: tuple[Importer, ...] = ()
    axis_prefix: str = ""  # put before each axis name in the reviewer's filters
    # Whether `tables` (and `filter_axes`) read no more of a sample than its question
    # type, split and axes, so that alike samples can share one profile (engine.samples).
    by_profile: bool = True
    # The extra fields of a sample's group, whose rows (within a split) one table unit
    # counts together, and of its order there (MMBench: circular group, rotation); None:
    # no such groups. `tables` may then also read these two fields and put the rows of a
    # group in one unit: alike groups share profiles, their units repeated by the layout.
    group_by: tuple[str, str] | None = None
    # Whether a group's rows are one question in several orders of its options (MMBench's
    # circular rotations), so that what is said of one row's gold holds for the others;
    # else its rows are other questions (MME: an image's two).
    rotations: bool = False
    exports: tuple[ExportFormat, ...] = ()  # its official file formats
    # Whether the offline rules are the benchmark's official scoring (its own script's rules,
    # no LLM): then they are a dataset's default judge, before another tool's imported
    # verdicts, which follow that tool's rules. Recorded with each dataset when it is made.
    official_rules: bool = False

    @property
    def rotation_field(self) -> str | None:
        """The extra field whose rows are rotations of one question (`rotations`); None."""
        return self.group_by[0] if self.group_by and self.rotations else None

    def importers(self) -> dict[str, Importer]:
        """Every import command this benchmark declares, by command name."""
        own = {self.importer.command or self.name: self.importer} if self.importer else {}
        return own | {importer.command: importer for importer in self.tool_importers}

    @abstractmethod
    def tables(self, dataset: str, samples: list[Sample], counts: list[int]) -> Tables:
        """The paper's tables and the units each sample counts in, for `samples` each
        standing for `counts` alike samples (one, unless `by_profile`): the units of a
        sample that stands for others are single-sample ones, or those of its group
        (`group_by`), which stands for alike groups (see engine.samples).

        The samples hold what tables read: key, question type, golds, split, axes and
        extra fields; not the question, hint and options."""

    def offline(self, sample: Sample, answer: str) -> Judgment | None:
        """The offline rules' judgment of one answer; None when they cannot judge it."""
        return None

    def rescored(self, sample: Sample, reply: str) -> float | None:
        """The score of a judgment again, against `sample`'s golds (an erratum's), from the
        reply it stored, where the benchmark's rules read it (MathVista: the extraction);
        None: they cannot (a judge's own score, given against the published gold)."""
        return None

    def draws_at_random(self, sample: Sample, answer: str) -> bool:
        """Whether the benchmark's official rule finds no candidate in `answer` and so draws
        a choice at random (an imported parse of it is a random pick, marked or not)."""
        return False

    def offline_applies(self, sample: Sample, answer: str) -> bool:
        """Whether the offline rules can judge this answer, as the review screen tells of an
        unjudged one; by judging it, unless a benchmark whose rules are slow (OCRBench v2's
        table and page measures) tells it cheaply."""
        return self.offline(sample, answer) is not None

    def offline_lacks(self, sample: Sample) -> str | None:
        """What this machine lacks for the offline rules to judge answers to `sample` (an
        optional extra not installed, said with how to install it); None: nothing."""
        return None

    def judge_work(self, sample: Sample) -> JudgeWork | None:
        """What an LLM judge is asked about answers to this sample (None: nothing)."""
        return None

    def prompt_variant(self, name: str) -> JudgeWork:
        """The judge work of a named prompt variant (`lmmreview judge --prompt-variant`),
        which replaces work of its own kind; ValueError names what is wrong (NoVariants:
        this benchmark has none)."""
        raise NoVariants(f"{self.title} has no prompt variants (--prompt-variant {name!r})")

    def chain(self, sample: Sample) -> tuple[Hashable, int] | None:
        """The chain an answer to this sample is judged in and its place there (None: on
        its own); answers of one model to samples with an equal chain key form one chain."""
        return None

    def order_group(self, sample: Sample) -> Hashable | None:
        """The item this sample asks again in another order (samples with an equal key
        are one item in several orders, for a judge's order consistency); None: asked in
        one order only."""
        return None

    def filter_axes(self, sample: Sample) -> dict[str, list[str]]:
        """Every axis the reviewer can filter this sample by, with its values."""
        values = {f"{self.axis_prefix}{name}": list(v) for name, v in sample.axes.items() if v}
        if sample.split:
            values["split"] = [sample.split]
        values["question_type"] = [sample.question_type.value]
        return values

    def facts(self, sample: Sample) -> list[str]:
        """Short facts about a sample for the screen's header (its axes, its split)."""
        return [", ".join(v) for v in sample.axes.values() if v] + (
            [sample.split] if sample.split else []
        )

    def question_text(self, sample: Sample) -> str:
        """The question as the screen shows it."""
        return sample.question
