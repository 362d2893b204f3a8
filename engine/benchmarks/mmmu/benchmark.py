"""MMMU: rule-based parsing (the official method, no LLM), micro-averaged tables by
discipline and subject, and by difficulty, image type and subfield when known."""

from __future__ import annotations

import json
from abc import abstractmethod
from collections import Counter

from lmmreview.engine.axis_tables import axis_cells, axis_tables
from lmmreview.engine.benchmark import (
    Benchmark,
    Cells,
    ExportFormat,
    Importer,
    Option,
    Tables,
    TableSpec,
    Unit,
)
from lmmreview.engine.benchmarks import (
    JUDGE_NAME,
    LMMS_EVAL_OPTIONS,
    MODEL_FROM_FILE_NAME,
    REPLACE,
)
from lmmreview.engine.benchmarks.mmmu import rules as mmmu
from lmmreview.engine.offline import rules_judgment
from lmmreview.engine.scoring import Judgment, Status
from lmmreview.engine.tables import by_count, columns
from lmmreview.engine.types import QuestionType, Sample

SUBJECT, DISCIPLINE = "subject", "discipline"
# Further axes, each a table when any sample has it: (axis, table title after the benchmark's).
_MORE_AXES = (
    ("difficulty", "by difficulty"),
    ("img_type", "by image type"),
    ("subfield", "by subfield"),
)


class SubjectBenchmark(Benchmark):
    """MMMU's family (MMMU, MMMU-Pro): micro-averaged tables by discipline and subject, and
    by difficulty, image type and subfield when known, titled by the benchmark's title."""

    def tables(self, dataset: str, samples: list[Sample], counts: list[int]) -> Tables:
        present = {s.first(DISCIPLINE) for s in samples}
        disciplines = [d for d in mmmu.DISCIPLINES if d in present]
        subjects = [
            subject
            for d in disciplines
            for subject in mmmu.DISCIPLINES[d]
            if any(s.first(SUBJECT) == subject for s in samples)
        ]
        subjects += sorted(
            {s.first(SUBJECT) or "unknown" for s in samples if s.first(DISCIPLINE) is None}
        )
        overall, by_subject = f"{dataset}.disciplines", f"{dataset}.subjects"
        tables = [
            TableSpec(
                overall,
                f"{self.title}: overall and disciplines",
                columns(
                    [("overall", "Overall"), *((d, mmmu.DISCIPLINE_TITLES[d]) for d in disciplines)]
                ),
            ),
            TableSpec(
                by_subject,
                f"{self.title}: subjects",
                columns([(s, s.replace("_", " ")) for s in subjects]),
            ),
        ]
        more = axis_tables(dataset, self.title, samples, counts, _MORE_AXES, _axis_order)
        tables += [spec for _, spec in more]
        units_of = {}
        for s in samples:
            cells: Cells = ((overall, "overall"), (by_subject, s.first(SUBJECT) or "unknown"))
            if discipline := s.first(DISCIPLINE):
                cells += ((overall, discipline),)
            cells += axis_cells(more, s)
            units_of[s.key] = [Unit(s.key, cells, (s.key,))]
        return tables, units_of

    def facts(self, sample: Sample) -> list[str]:
        return [v for v in (sample.first(SUBJECT), sample.split) if v]

    def offline(self, sample: Sample, answer: str) -> Judgment | None:
        verdict = self.verdict(sample, answer)
        return rules_judgment(
            (1.0 if verdict.correct else 0.0) if sample.golds else None,
            verdict.method,
            json.dumps(verdict.prediction, ensure_ascii=False),
            choice=verdict.prediction if isinstance(verdict.prediction, str) else None,
            status=Status.FALLBACK if verdict.fallback else Status.OK,
        )

    def draws_at_random(self, sample: Sample, answer: str) -> bool:
        return sample.question_type == QuestionType.CHOICE and self.verdict(sample, answer).fallback

    @abstractmethod
    def verdict(self, sample: Sample, answer: str) -> mmmu.MmmuVerdict:
        """The benchmark's rule-based verdict on one answer (its parser's)."""


class MMMU(SubjectBenchmark):
    name = "mmmu"
    official_rules = True
    title = "MMMU"
    importer = Importer(
        "mmmu",
        "MMMU: outputs, answer dictionary, questions.\n\n"
        "Any of: the official example outputs, the answer dictionary, a question file.",
        Option("outputs", "OUTPUTS", "Folder of <Subject>/output.json, or one outputs file."),
        (
            Option(
                "answer_dict", "FILE", "answer_dict_val.json: id -> question_type, ground_truth."
            ),
            Option("questions", "FILE", "Questions in the Hugging Face layout (.json or .jsonl)."),
            Option(
                "model",
                "NAME",
                "Model name for the outputs (default: the outputs folder's name, or the "
                "file's name without its extension).",
                text=True,
            ),
        ),
        demo="mmmu-demo",
    )
    tool_importers: tuple[Importer, ...] = (
        Importer(
            "mmmu-lmms-eval",
            "MMMU: lmms-eval --log_samples JSONL.\n\n"
            "The v0.3 to v0.7 layouts. Answers (the filtered response) and lmms-eval's parsed "
            "choice of each multiple-choice answer as an imported judgment; questions from "
            "each line's doc (v0.3). v0.4 lines carry no question text or options: import "
            "the questions first (lmmreview import mmmu DB --questions FILE).",
            Option("samples", "JSONL", "*_samples_mmmu_val.jsonl.", required=True),
            (*LMMS_EVAL_OPTIONS, JUDGE_NAME, REPLACE),
            command="mmmu-lmms-eval",
        ),
        Importer(
            "mmmu-vlmevalkit",
            "MMMU: VLMEvalKit predictions, results.\n\n"
            "VLMEvalKit's {model}_MMMU_DEV_VAL.xlsx (or .tsv, .json): questions (index, "
            "question, options, answer, split: dev or validation) and answers, into the "
            "dataset MMMU_DEV_VAL unless --dataset, keyed by index. Open questions come as "
            'VLMEvalKit asks them: two options, A the gold and B "Other Answers". Its '
            "result workbook {model}_MMMU_DEV_VAL_{judge}_result.xlsx also holds its judge's "
            "verdicts (hit), imported as that judge's, a random letter flagged.",
            Option("file", "FILE", "Prediction file or result workbook.", required=True),
            (MODEL_FROM_FILE_NAME, JUDGE_NAME, REPLACE),
            command="mmmu-vlmevalkit",
        ),
    )

    exports = (
        ExportFormat(
            "mmmu-submission",
            "MMMU test-server JSON (id -> answer) per model (--out FILE or DIR)",
            "mmmu-submission",
            one_file_allowed=True,
        ),
    )

    def verdict(self, sample: Sample, answer: str) -> mmmu.MmmuVerdict:
        return mmmu.judge(sample, answer)


def _axis_order(axis: str, counts: Counter[str]) -> list[str]:
    """Difficulty from easy to hard, the other axes by count."""
    if axis != "difficulty":
        return by_count(counts)
    known = [d for d in ("Easy", "Medium", "Hard") if d in counts]
    return known + [d for d in by_count(counts) if d not in known]


MMMU_BENCHMARK = MMMU()
