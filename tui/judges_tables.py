"""The tables of `lmmreview judges` (and of the review screen's judges view): every judge
of a dataset measured against the human verdicts, as rows of strings, and rendered as
Markdown, LaTeX or JSON."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from lmmreview.engine.export import DASH, md_escape, tex
from lmmreview.engine.scoring import ANY_PROMPT, Judge, judge_names, judges_named

if TYPE_CHECKING:
    from lmmreview.db.judges import DatasetJudges, JudgeReport
    from lmmreview.engine.agreement import Estimate
    from lmmreview.engine.judge_stats import Correlation, HumanAgreement, Kappas

OFFLINE = "offline"
REFERENCE = "reference"  # an LLM judge asked with the papers' own prompts
BASELINE = " (keyword-matching baseline)"  # how the offline rules' row is labelled
COMBINED = "combined: "
RHO, ALPHA = "\u03c1", "\u03b1"  # rho and alpha, escaped: ruff finds them confusable


@dataclass(frozen=True, slots=True)
class Line:
    """One row of the judges table: a judge (None: a combination) and its measures."""

    name: str
    judge: Judge | None
    report: JudgeReport


@dataclass(frozen=True, slots=True)
class Section:
    dataset: str
    choices: bool
    lines: list[Line]
    humans: HumanAgreement  # the reviewers among themselves, beside the judges


def judge_section(found: DatasetJudges, wanted: list[str]) -> Section:
    """A dataset's judges table; a combined row when each name in `wanted` names a judge
    here, a different one each."""
    from lmmreview.db.judges import combine, report
    from lmmreview.engine.judge_stats import human_agreement

    names = judge_names(found.calls)
    lines = [Line(names[j], j, report(found, calls, j)) for j, calls in found.calls.items()]
    chosen = _named(list(found.calls), wanted)
    if len(chosen) > 1:
        calls = combine(found, chosen)
        title = COMBINED + " + ".join(names[judge] for judge in chosen)
        lines.append(Line(title, None, report(found, calls)))
    humans = human_agreement(found.reviewers, found.graded)
    return Section(found.dataset, found.choices, lines, humans)


def _named(judges: list[Judge], wanted: list[str]) -> list[Judge]:
    """The judges `wanted` names, read as `report --judge` reads a name (the Judge
    column's name, the model, or the label with the prompt); none unless each name names
    one judge, a different one."""
    chosen = []
    for name in wanted:
        matches = judges_named(judges, name)
        if len(matches) != 1 or matches[0] in chosen:
            return []
        chosen.append(matches[0])
    return chosen


# -- cells ------------------------------------------------------------------------------


def _shown_name(line: Line) -> str:
    return line.name + (BASELINE if line.judge and line.judge.kind == OFFLINE else "")


def _prompt(judge: Judge | None) -> str:
    """A judge's prompt as the tables name it: the LLM's reference prompts, a variant, the
    tool an imported judge's results came from, or the rules' own (none)."""
    if judge is None or judge.prompt == ANY_PROMPT:
        return DASH
    return judge.prompt or REFERENCE


def _number(value: float | None, digits: int = 3) -> str:
    return DASH if value is None else f"{value:.{digits}f}"


def _interval(estimate: Estimate) -> str:
    if estimate.low is None or estimate.high is None:
        return DASH
    return f"{estimate.low:.3f} to {estimate.high:.3f}"


def _percent(share: float | None) -> str:
    return DASH if share is None else f"{100 * share:.1f}"


Grid = tuple[str, list[str], list[list[str]]]  # title, headers, rows


def judge_grids(section: Section) -> list[Grid]:
    """The tables of one dataset as strings: judges, and for choices alignment and Table 2."""
    from lmmreview.engine.agreement import SETTLED_BY

    grids: list[Grid] = [
        (
            "judges against human verdicts",
            ["Judge", "Prompt", "N", "Δ̄", "95% CI", "κ correct", "95% CI", "Run std"],
            [
                [
                    _shown_name(line), _prompt(line.judge),
                    str(r.delta.n), _number(r.delta.value), _interval(r.delta),
                    _number(r.kappa_correct.value), _interval(r.kappa_correct),
                    _number(r.run_std),
                ]
                for line in section.lines
                if (r := line.report)
            ],
        )
    ]  # fmt: skip
    if not section.choices:
        return grids + reliability_grids(section)
    grids.append(
        (
            "alignment with human choices where option matching failed",
            ["Judge", "N", "Aligned %", "Case I", "Case II", "κ choice", "95% CI"],
            [
                [
                    _shown_name(line),
                    str(a.n),
                    _percent(a.rate),
                    str(a.case_one),
                    str(a.case_two),
                    _number(line.report.kappa_choice.value),
                    _interval(line.report.kappa_choice),
                ]
                for line in section.lines
                if (a := line.report.alignment) is not None
            ],
        )
    )
    grids.append(
        (
            "share of answers settled by each step (%)",
            ["Judge", "Model", "Matched", "LLM", "Fallback"],
            [
                [_shown_name(line), model, *(_percent(shares.get(s)) for s in SETTLED_BY)]
                for line in section.lines
                for model, shares in line.report.settled.items()
            ],
        )
    )
    return grids + reliability_grids(section)


def _correlations(c: Correlation) -> list[str]:
    return [str(c.n), _number(c.pearson), _number(c.spearman), _number(c.kendall)]


def _kappas(k: Kappas) -> list[str]:
    return [str(k.n), _number(k.unweighted), _number(k.linear), _number(k.quadratic)]


def reliability_grids(section: Section) -> list[Grid]:
    """The judge-reliability papers' figures (engine.judge_stats), each in its own table:
    correlations, kappas over the levels (the reviewers among themselves beside the
    judges), calibration and its bins, order consistency and self-preference, and each
    judge's confusion matrix."""
    lines = section.lines
    correlation = ["N", "Pearson r", f"Spearman {RHO}", "Kendall τb"]
    grids: list[Grid] = [
        (
            "correlation with human scores, per answer",
            ["Judge", *correlation],
            [[_shown_name(line), *_correlations(line.report.answer_level)] for line in lines],
        ),
        (
            "correlation with human scores, per model (mean scores: do they rank the models "
            "alike?)",
            ["Judge", "Models", *correlation[1:]],
            [[_shown_name(line), *_correlations(line.report.system_level)] for line in lines],
        ),
        (
            "agreement on the score levels, judges with humans and humans with each other",
            ["Judge", "N", "κ", "κ linear", "κ quadratic"],
            [[_shown_name(line), *_kappas(line.report.kappas)] for line in lines]
            + [
                [f"human: {pair.first} vs {pair.second}", *_kappas(pair.kappas)]
                for pair in section.humans.pairs
            ],
        ),
    ]
    if section.humans.pairs:
        grids.append(
            (
                f"agreement among reviewers (Krippendorff's {ALPHA}, interval)",
                ["Reviewers", "Answers", ALPHA],
                [
                    [
                        _reviewer_names(section.humans),
                        str(section.humans.answers),
                        _number(section.humans.alpha),
                    ]
                ],
            )
        )
    return grids + _calibration_grids(lines) + [_order_grid(lines)] + _confusion_grids(lines)


def _reviewer_names(humans: HumanAgreement) -> str:
    return ", ".join(dict.fromkeys(n for p in humans.pairs for n in (p.first, p.second)))


def _calibration_grids(lines: list[Line]) -> list[Grid]:
    """ECE and Brier per judge giving grades, and the reliability diagram's non-empty bins."""
    rated = [(line, c) for line in lines if (c := line.report.calibration) is not None]
    if not rated:
        return []
    return [
        (
            "calibration of graded scores",
            ["Judge", "N", "ECE", "Brier"],
            [
                [_shown_name(line), str(sum(b.count for b in c.bins)), _number(c.ece),
                 _number(c.brier)]
                for line, c in rated
            ],
        ),
        (
            "reliability bins of the judge's score (empty bins left out)",
            ["Judge", "Bin", "N", "Mean judge", "Mean human"],
            [
                [_shown_name(line), f"{b.lower:.1f} to {b.upper:.1f}", str(b.count),
                 _number(b.mean_judge), _number(b.mean_human)]
                for line, c in rated
                for b in c.bins
                if b.count
            ],
        ),
    ]  # fmt: skip


def _order_grid(lines: list[Line]) -> Grid:
    """Order consistency (– where no item was asked in two orders) and the models of the
    judge's own family."""
    return (
        "order consistency and self-preference",
        ["Judge", "Items", "Consistent %", "Own-family models"],
        [
            [
                _shown_name(line),
                DASH if (o := line.report.order) is None else str(o.groups),
                _percent(o.rate) if o else DASH,
                ", ".join(line.report.same_family) or DASH,
            ]
            for line in lines
        ],
    )


def _confusion_grids(lines: list[Line]) -> list[Grid]:
    """Each judge's confusion matrix: its levels down, the human's across."""
    return [
        (
            f"confusion of {_shown_name(line)}: judge (rows) × human (columns)",
            ["Judge \\ human", *c.labels],
            [[label, *map(str, row)] for label, row in zip(c.labels, c.counts, strict=True)],
        )
        for line in lines
        if (c := line.report.confusion).n
    ]


# -- renderers ----------------------------------------------------------------------------


def to_markdown(sections: list[Section]) -> str:
    """Each dataset's tables in Markdown."""
    return grids_markdown((s.dataset, grid) for s in sections for grid in judge_grids(s))


def grids_markdown(grids: Iterable[tuple[str, Grid]]) -> str:
    """(dataset, table) pairs in Markdown, each under a heading naming its dataset."""
    parts = []
    for dataset, (title, headers, rows) in grids:
        lines = [
            f"### {md_escape(dataset)}: {md_escape(title)}",
            "",
            "| " + " | ".join(map(md_escape, headers)) + " |",
            "|" + "---|" * len(headers),
            *("| " + " | ".join(map(md_escape, row)) + " |" for row in rows),
        ]
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


def to_latex(sections: list[Section]) -> str:
    """Each dataset's tables as booktabs tables (\\usepackage{booktabs})."""
    parts = []
    for section in sections:
        for title, headers, rows in judge_grids(section):
            lines = [
                r"\begin{table}[t]",
                r"\centering",
                rf"\caption{{{tex(section.dataset)}: {_tex_header(title)}}}",
                r"\begin{tabular}{ll" + "r" * (len(headers) - 2) + "}",
                r"\toprule",
                " & ".join(_tex_header(h) for h in headers) + r" \\",
                r"\midrule",
                *(" & ".join(tex(cell).replace(DASH, "--") for cell in row) + r" \\"
                  for row in rows),
                r"\bottomrule",
                r"\end{tabular}",
                r"\end{table}",
            ]  # fmt: skip
            parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


_SYMBOLS = {
    "Δ̄": r"$\bar{\Delta}$",
    "κ": r"$\kappa$",
    RHO: r"$\rho$",
    "τb": r"$\tau_b$",
    ALPHA: r"$\alpha$",
    "×": r"$\times$",
}


def _tex_header(header: str) -> str:
    text = tex(header)
    for symbol, math in _SYMBOLS.items():
        text = text.replace(symbol, math)
    return text


def to_json(sections: list[Section]) -> str:
    """Every measure unrounded; non-ASCII text as \\u escapes, so nothing can drive a
    terminal that shows the file."""
    document = {
        "datasets": [
            {
                "dataset": section.dataset,
                "judges": [
                    {
                        "judge": line.name,
                        "kind": line.judge.kind if line.judge else "combined",
                        "model": line.judge.model if line.judge else None,
                        "prompt": _prompt(line.judge) if line.judge else None,
                        "baseline": bool(line.judge and line.judge.kind == OFFLINE),
                        **asdict(line.report),
                        "alignment_rate": line.report.alignment.rate
                        if line.report.alignment
                        else None,
                        "order_rate": line.report.order.rate if line.report.order else None,
                    }
                    for line in section.lines
                ],
                "human_agreement": asdict(section.humans),
            }
            for section in sections
        ]
    }
    return json.dumps(document, indent=2, ensure_ascii=True) + "\n"


RENDERERS: dict[str, Callable[[list[Section]], str]] = {
    "md": to_markdown,
    "latex": to_latex,
    "json": to_json,
}
