"""MMMU-Pro: MMMU's subjects with up to ten options, parsed by the official MMMU-Pro rules (no
LLM); accuracy overall and by discipline, subject, difficulty and image type."""

from __future__ import annotations

from lmmreview.engine.benchmark import Importer, Option
from lmmreview.engine.benchmarks import (
    JUDGE_NAME,
    LMMS_EVAL_OPTIONS,
    MODEL_FROM_FILE_NAME,
    REPLACE,
)
from lmmreview.engine.benchmarks.mmmu.benchmark import SubjectBenchmark
from lmmreview.engine.benchmarks.mmmu.rules import MmmuVerdict
from lmmreview.engine.benchmarks.mmmu_pro import rules
from lmmreview.engine.types import Sample


class MMMUPro(SubjectBenchmark):
    name = "mmmu-pro"
    official_rules = True
    title = "MMMU-Pro"
    importer = Importer(
        "mmmu-pro",
        "MMMU-Pro: the official output files.\n\n"
        "As mmmu-pro/infer writes them (<model>_<setting>_<method>.jsonl): one line per "
        "question, with its options, answer, subject, difficulty and image type, and the "
        "model's response. A folder's *.jsonl files are one model each, named by the file.",
        Option(
            "outputs", "OUTPUTS", "An official output file, or a folder of them.", required=True
        ),
        (
            Option(
                "model",
                "NAME",
                "Model name for one file's answers (default: the file's name without .jsonl).",
                text=True,
            ),
            Option(
                "images",
                "FOLDER",
                "The questions' images (the output files name none): <id>_<n>.png, the "
                "dataset's image_<n>, or <id>.png, the vision setting's screenshot.",
            ),
            JUDGE_NAME,  # for the files' own verdicts (pred_indexs, if_right)
            REPLACE,
        ),
        demo="mmmu-pro-demo",
    )
    tool_importers: tuple[Importer, ...] = (
        Importer(
            "mmmu-pro-lmms-eval",
            "MMMU-Pro: lmms-eval --log_samples JSONL.\n\n"
            "The v0.3 to v0.7 layouts of the tasks mmmu_pro_standard and mmmu_pro_vision (and "
            "their _cot variants). Answers (the filtered response) and lmms-eval's verdict on "
            "each as an imported judgment (its parsed letter, or in the vision setting the "
            "response itself, against the answer); questions from each line's doc (v0.3). "
            "v0.4 lines carry no question: import the official files first (lmmreview import "
            "mmmu-pro DB OUTPUTS).",
            Option("samples", "JSONL", "*_samples_mmmu_pro_standard.jsonl, ...", required=True),
            (*LMMS_EVAL_OPTIONS, JUDGE_NAME, REPLACE),
            command="mmmu-pro-lmms-eval",
        ),
        Importer(
            "mmmu-pro-vlmevalkit",
            "MMMU-Pro: VLMEvalKit predictions, results.\n\n"
            "VLMEvalKit's {model}_MMMU_Pro_10c.xlsx or _V (or .tsv, .json; _COT for the cot "
            "prompt, whose answers are the model's row {model}_COT): questions (index, "
            "question, options A-J, answer; no subject: the tables show the overall accuracy) "
            "and answers, into the dataset MMMU_Pro_10c or MMMU_Pro_V unless --dataset. Its "
            "result workbook {model}_{dataset}_{judge}_result.xlsx also holds its judge's "
            "verdicts (hit), imported as that judge's; a _COT one "
            "({model}_{dataset}_cotpost_{judge}_result.xlsx) only those, on the answers of "
            "the prediction file imported before.",
            Option("file", "FILE", "Prediction file or result workbook.", required=True),
            (MODEL_FROM_FILE_NAME, JUDGE_NAME, REPLACE),
            command="mmmu-pro-vlmevalkit",
        ),
    )

    def verdict(self, sample: Sample, answer: str) -> MmmuVerdict:
        return rules.judge(sample, answer)


MMMU_PRO = MMMUPro()
