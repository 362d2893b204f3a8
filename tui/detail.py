"""What the review screen says about one answer, as rich renderables.

Every string from a benchmark file, a model or a judge goes through `safe()`: shown
literally, never as markup or terminal control. A line holding a name, a path, a note or
a message (one line in the data) is drawn `Wrapped`: a line it wraps onto starts with
"↪", never as a line of the screen's own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from operator import itemgetter

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from lmmreview.db.review import Detail, FlagChange, JudgeRecord
from lmmreview.engine.benchmark import Benchmark
from lmmreview.engine.causes import MMMU_CAUSES, CauseChange, cause_title
from lmmreview.engine.export import DASH
from lmmreview.engine.review import Entry, HistoryRow
from lmmreview.engine.scoring import IMPORTED, USABLE, GroupVerdict, Judge, Verdict, judge_label
from lmmreview.engine.tables import Cell
from lmmreview.engine.types import QuestionType, Sample
from lmmreview.tui.fitted import FittedTable
from lmmreview.tui.images import Decoded, Renderer
from lmmreview.tui.labels import score_label
from lmmreview.tui.safe_text import Wrapped, plain_line, safe
from lmmreview.tui.screens import Compared

_PARTS = re.compile(r"\s*(<AND>|<OR>)\s*")
NAME_MAX = 24  # cells a judge's name or method takes at most in the table of its calls


def heading(title: str) -> Text:
    return Text(title, style="bold underline")


def ground_truth(sample: Sample) -> Text:
    """The gold with its <AND>/<OR> parts set apart, and every acceptable answer."""
    if sample.answer is None:
        return Text("unknown (no ground truth in this split)", style="italic")
    text = Text()
    for number, gold in enumerate(sample.golds):
        if number:
            text.append("  or  ", style="bold magenta")
        for part in _PARTS.split(gold):
            if part in ("<AND>", "<OR>"):
                text.append(f" {part[1:-1]} ", style="reverse bold yellow")
            elif part:
                text.append_text(safe(part))
                text.stylize("bold green", len(text) - len(part), len(text))
    return text


def question(sample: Sample, benchmark: Benchmark) -> RenderableType:
    parts: list[RenderableType] = []
    if sample.hint:
        parts.append(Text.assemble(("Hint: ", "italic"), safe(sample.hint)))
    text = benchmark.question_text(sample)
    parts.append(safe(text or "(no question text in the imported files)"))
    if sample.question_type is QuestionType.CHOICE:
        for letter, option in sample.options.items():
            mark = "bold green" if letter in sample.golds else ""
            parts.append(Text.assemble((f"  {letter}. ", mark or "bold"), safe(option)))
    return Group(*parts)


def score_text(entry: Entry) -> str:
    """The list's score column: the human's verdict, else the judge's mean."""
    if entry.verdict is not None:
        return score_label(entry.verdict.score, entry.verdict.choice)
    return score_label(entry.judge_mean(), entry.judge_choice)


def answer(text: str) -> Text:
    shown = Text("Answer: ", style="bold")
    shown.append_text(safe(text or "(empty answer)"))
    return shown


def judge_runs(
    detail: Detail,
    benchmark: Benchmark,
    names: Mapping[Judge, str] | None = None,
    shown: Judge | None = None,
) -> RenderableType:
    """Every judge's runs side by side (when several judged this answer; `names` names
    them, `shown` is the one the tables show); every judge call that came back: what it
    said, how it was read, what decided; then the circular verdict another tool gave the
    answer's group, if one was imported."""
    records = detail.judgments
    parts = [_judge_table(records) if records else not_judged(detail, benchmark)]
    judges = {r.judge for r in records if not (r.kind == "offline" and r.method == "matched")}
    if len(judges) > 1:
        parts.insert(0, side_by_side(records, names or {}, shown))
    if detail.group_verdict is not None:
        parts.append(group_verdict(detail.group_verdict))
    return parts[0] if len(parts) == 1 else Group(*parts)


def side_by_side(
    records: list[JudgeRecord], names: Mapping[Judge, str], shown: Judge | None
) -> FittedTable:
    """One row per judge: its latest result in each run and their mean; ▶ marks the judge
    whose scores the list and the tables show."""
    latest: dict[Judge, dict[int, JudgeRecord]] = {}
    for r in sorted(records, key=lambda r: r.id):
        latest.setdefault(r.judge, {})[r.run] = r
    runs = sorted({r.run for r in records})
    rows = []
    for judge, by_run in sorted(latest.items(), key=lambda item: item[0] != shown):
        name = names.get(judge, judge.full_label)
        scores = [r.score for r in by_run.values() if r.status in USABLE and r.score is not None]
        mean = score_label(sum(scores) / len(scores) if scores else None)
        cells = [_result(by_run[run]) if run in by_run else Text(DASH) for run in runs]
        mark = "▶ " if judge == shown else "  "
        rows.append([safe(mark + name, one_line=True), *cells, Text(mean)])
    title = Text("Every judge, run by run", style="bold")
    headers = ["judge", *(f"run {run}" for run in runs), "mean"]
    return FittedTable(title, headers, rows, justify="right")  # a small screen cuts the name


def _result(record: JudgeRecord) -> Text:
    """A run's result as the side-by-side table shows it: the choice or score, red if it
    failed."""
    if record.status not in USABLE:
        return Text("failed", style="red")
    return safe(score_label(record.score, record.choice), one_line=True)


def not_judged(detail: Detail, benchmark: Benchmark) -> Text:
    """Who can judge an answer no judge has judged: `lmmreview score` only where the
    offline rules can score it (they leave long answers, and any with no gold)."""
    if benchmark.offline_applies(detail.sample, detail.text):
        return Text("not judged yet (lmmreview score, or J to run the LLM judge)", style="italic")
    if lacks := benchmark.offline_lacks(detail.sample):
        return Text(f"not judged: the offline rules need what is missing here: {lacks}")
    who = (
        "an LLM judge (J) or a human verdict"
        if benchmark.judge_work(detail.sample)
        else "a human verdict"
    )
    return Text(
        f"not judged: the offline rules cannot score this answer; {who} can", style="italic"
    )


def group_verdict(verdict: GroupVerdict) -> Group:
    """An imported verdict on a whole circular group: solved or where it failed, the tool's
    log and the file it came from."""
    if verdict.score >= 1:
        outcome = Text("solved", style="green")
    else:
        failed = "" if verdict.failed_at is None else f" at rotation {verdict.failed_at}"
        outcome = Text(f"failed{failed}", style="red")
    line = Text.assemble(
        ("Imported CircularEval of this group", "bold"), " (judge ",
        safe(judge_label(IMPORTED, verdict.judge_model), one_line=True), "): ", outcome,
    )  # fmt: skip
    source = safe(f"[from {verdict.source}]", one_line=True, style="dim")
    return Group(Wrapped(line), safe(verdict.log, limit=2000), Wrapped(source))


def _judge_table(records: list[JudgeRecord]) -> RenderableType:
    table = Table(box=None, pad_edge=False, show_edge=False, expand=True)
    # Run and result first, never squeezed: on a narrow screen the judge's name gives way,
    # and a long name or method is cut (at its full width it squeezed out every other).
    for name in ("run", "result", "judge", "status", "decided by", "reply / reason"):
        table.add_column(
            name,
            no_wrap=name != "reply / reason",
            ratio=3 if name.startswith("reply") else None,
            min_width=len(name) if name in ("run", "result") else None,
            max_width=NAME_MAX if name in ("judge", "decided by") else None,
        )
    for r in records:
        result = safe(score_label(r.score, r.choice), one_line=True)
        status_style = {"ok": "green", "fallback": "yellow"}.get(r.status, "red")
        judge = f"{r.model} ({r.kind})" if r.kind == "offline" else judge_label(r.kind, r.model)
        reply: RenderableType = safe(r.reply or r.error, limit=2000)
        if r.error and r.reply:
            reply = Group(reply, Wrapped(safe(f"[{r.error}]", one_line=True, style="red")))
        # A name, a method, a source: one line each, so none can draw a line of its own.
        judge_cell, method = safe(judge, one_line=True), safe(r.method or DASH, one_line=True)
        table.add_row(str(r.run), result, judge_cell, Text(r.status, style=status_style),
                      method, reply)  # fmt: skip
    sources = dict.fromkeys(r.source for r in records if r.source)
    if not sources:
        return table
    imported = (safe(f"imported from {source}", one_line=True, style="dim") for source in sources)
    return Group(table, *(Wrapped(line) for line in imported))


def verdict_line(
    verdict: Verdict | None, unsaved: tuple[str, ...] = (), problem: str = ""
) -> Wrapped:
    """The verdict in the database, then any change to it not saved yet, and why."""
    if verdict is None:
        line = Text("no human verdict", style="italic")
    else:
        value = score_label(verdict.score, verdict.choice)
        shown = safe(value, one_line=True, style="bold cyan")  # a merged choice is data
        line = Text.assemble(("human verdict: ", "bold"), shown)
    if unsaved:
        line.append("\nnot saved yet: ", style="bold red")
        line.append(", ".join(unsaved))
        why = safe(f" ({problem}; retrying)" if problem else " (saving…)", one_line=True)
        why.stylize("red")
        line.append_text(why)
    return Wrapped(line)


def history(
    rows: list[HistoryRow],
    causes: tuple[CauseChange, ...] = (),
    taxonomy: Mapping[str, str] = MMMU_CAUSES,
    flags: tuple[FlagChange, ...] = (),
) -> RenderableType:
    """The current error cause, then who changed what (verdicts, notes, causes, flags),
    when, from what, and why; newest first."""
    # (time, order within its own history, line): rows of one millisecond stay in order.
    lines = [(r.created_at, i, _verdict_change(r)) for i, r in enumerate(rows[-12:])]
    lines += [(c.created_at, i, _cause_change(c, taxonomy)) for i, c in enumerate(causes[-12:])]
    lines += [(f.created_at, i, _flag_change(f)) for i, f in enumerate(flags[-12:])]
    lines.sort(key=itemgetter(0, 1), reverse=True)
    shown = [line for *_, line in lines[:12]]
    if causes and causes[-1].cause is not None:
        title = cause_title(causes[-1].cause, taxonomy)
        shown.insert(0, Text.assemble(("error cause: ", "bold"), safe(title, one_line=True)))
    return Group(*(Wrapped(line) for line in shown)) if shown else Text("")


def _stamp(created_at: str, reviewer: str) -> Text:
    """A history line's start: when, and who."""
    line = safe(f"{created_at[:19].replace('T', ' ')}  ", one_line=True, style="dim")
    line.append_text(safe(reviewer, one_line=True))
    return line


def _verdict_change(row: HistoryRow) -> Text:
    old = score_label(row.previous_score, row.previous_choice)
    new = score_label(row.score, row.choice)
    line = _stamp(row.created_at, row.reviewer)
    change = f"  {row.action}: {old} → {new}" if row.action != "note" else "  note"
    line.append_text(safe(change, one_line=True))
    if row.note:
        line.append("  “")
        line.append_text(safe(row.note, limit=500, one_line=True))
        line.append("”")
    return line


def _flag_change(change: FlagChange) -> Text:
    line = _stamp(change.created_at, change.reviewer)
    line.append("  flagged" if change.flagged else "  unflagged", style="bold")
    return line


def _cause_change(change: CauseChange, taxonomy: Mapping[str, str]) -> Text:
    line = _stamp(change.created_at, change.reviewer)
    action = "cause" if change.action == "set" else "undo cause"
    old, new = (cause_title(c, taxonomy) for c in (change.previous, change.cause))
    line.append_text(safe(f"  {action}: {old} → {new}", one_line=True))
    return line


def breakdown_strip(
    cells: dict[str, Cell], titles: dict[str, str], delta: float | None, reviewed: int
) -> Text:
    """The table cells this answer counts in, live, and the judge-human agreement."""
    text = Text()
    shown: set[str] = set()
    for key, cell in cells.items():
        title = titles.get(key, key)
        if title in shown:  # MM-Vet's Total is in both of its tables
            continue
        shown.add(title)
        value = DASH if cell.value is None else f"{cell.value:.1f}"
        if cell.std is not None:
            value += f"±{cell.std:.1f}"
        text.append_text(safe(f"{title} ", one_line=True, style="bold"))
        text.append(f"{value} ")
        counts = [f"n={cell.n}", f"{cell.reviewed} reviewed"] + [
            f"{count} {name}"  # the notes' and `info`'s counts, said where there are any
            for name, count in (("unscored", cell.unscored), ("offline", cell.offline))
            if count
        ]
        text.append(f"({', '.join(counts)})   ", style="dim")
    text.append("\n")
    agreement = DASH if delta is None else f"{delta:.3f}"
    text.append(f"judge-human Δ {agreement} over {reviewed} reviewed", style="bold")
    return text


def where(file_name: str, datasets: list[str], dataset: str, benchmark: str) -> str:
    """The status line's start: the file, how many datasets it holds (d switches), and
    the one open."""
    count = f"{len(datasets)} dataset{'s' if len(datasets) != 1 else ''}"
    return f"{file_name} · {count} · {dataset} ({benchmark}) · "


def compared(
    detail: Detail,
    benchmark: Benchmark,
    images: Sequence[Decoded | None],
    renderer: Renderer | None,
) -> Compared:
    """What the compare view shows above every model's answer: the sample's question with
    its options, the ground truth, its images."""
    sample = detail.sample
    text = Group(
        question(sample, benchmark),
        Text.assemble(("Ground truth: ", "bold"), ground_truth(sample)),
    )
    title = f"{plain_line(sample.key, 60)}: every model's answer (←/→ picks one; keys grade it)"
    return Compared(title, sample, text, images, renderer)


def loading_title(entry: Entry | None) -> Wrapped:
    """The title while an answer's details are read: the answer the keys act on ("" for
    none)."""
    if entry is None:
        return Wrapped(Text(""))
    said = f"{plain_line(entry.key, 60)} · {plain_line(entry.model, 60)} · loading…"
    return Wrapped(Text(said, "bold"))


def title(detail: Detail, benchmark: Benchmark) -> Wrapped:
    """One line naming the answer: sample, model, and what its benchmark says of it."""
    parts = [detail.sample.key, detail.model, *benchmark.facts(detail.sample)]
    return Wrapped(Text(plain_line(" · ".join(parts), 200), "bold"))
