"""MM-Vet's official files from the store: the grader's capability CSVs and its grade
JSON per model (export formats mmvet-csv and mmvet-grades)."""

from __future__ import annotations

from lmmreview.db.official import OfficialFile, OfficialFiles, verdicts_in_force
from lmmreview.db.scoring import dataset_scores
from lmmreview.db.store import Store
from lmmreview.engine.benchmark import Benchmark
from lmmreview.engine.benchmarks.mmvet import official
from lmmreview.engine.benchmarks.mmvet.official import GradeRun
from lmmreview.engine.scoring import Judge


def grader_csvs(
    store: Store, dataset: str, benchmark: Benchmark, judge: Judge | None, unscored_as_zero: bool
) -> OfficialFiles:
    """The cap-score and cap-int-score CSVs of the dataset's tables; a model with no scored
    answer is left out, and answers without a score are left out of the means (each
    said), unless `unscored_as_zero`."""
    breakdown = dataset_scores(store, dataset, benchmark, judge).breakdown
    tables = {t.name: t for t in breakdown.tables(unscored_as_zero)}
    capabilities = tables[f"{dataset}.capabilities"]
    integrations = tables[f"{dataset}.integrations"]
    left_out = official.unscored(capabilities)
    warnings = [
        f"{dataset}: {model} has no scored answer: left out of the CSVs (score or judge it, "
        "or --unscored-as-zero counts its answers as 0)"
        for model in left_out
    ]
    partly = {} if unscored_as_zero else official.partly_scored(capabilities)
    if partly:
        counts = ", ".join(f"{model} {count}" for model, count in partly.items())
        warnings.append(
            f"{dataset}: answers with no score ({counts}) are left out of the means, as the "
            "tables leave them; the official grader scores every question (judge them, or "
            "--unscored-as-zero counts them as 0, as `import mmvet-grades --check` does)"
        )
    if len(left_out) == len(capabilities.rows):
        return OfficialFiles([], warnings)
    names = official.grader_csv_names(dataset, capabilities.runs)
    contents = map(official.grader_csv, (capabilities, integrations))
    files = [OfficialFile(name, None, text) for name, text in zip(names, contents, strict=True)]
    return OfficialFiles(files, warnings)


def grade_jsons(
    store: Store, dataset: str, benchmark: Benchmark, judge: Judge | None, unscored_as_zero: bool
) -> OfficialFiles:
    """The grader's grade JSON of each model."""
    return OfficialFiles(
        [
            OfficialFile(
                official.grade_file_name(model, grades), model, official.grade_json(grades)
            )
            for model, grades in grade_files(store, dataset, judge).items()
        ]
    )


def grade_files(
    store: Store, dataset: str, judge: Judge | None
) -> dict[str, dict[str, list[GradeRun]]]:
    """model -> sample key -> its grade runs, for every answer judged or human-scored (an
    answer with neither has nothing to say to the grader and is left out)."""
    runs = store.judge_runs(dataset, judge)
    latest = store.latest_judgments(dataset, judge)
    verdicts = verdicts_in_force(store, dataset)
    files: dict[str, dict[str, list[GradeRun]]] = {}
    for answer, model, key in store.answer_keys(dataset):
        found = verdicts.get(answer)
        verdict, reviewer = (found.verdict, found.reviewer) if found else (None, "")
        judgments = [latest.get((answer, run)) for run in range(runs)]
        if (verdict is None or verdict.score is None) and not any(judgments):
            continue
        files.setdefault(model, {})[key] = [
            official.grade_run(judgment, verdict, reviewer) for judgment in judgments
        ]
    return files
