"""MMMU-Pro: MMMU's subjects with up to ten options, parsed by the official MMMU-Pro rules (no
LLM); accuracy overall and by discipline, subject, difficulty and image type."""

from __future__ import annotations

from lmmreview.engine.benchmark import Importer, Option
from lmmreview.engine.benchmarks.mmmu.benchmark import SubjectBenchmark
from lmmreview.engine.benchmarks.mmmu.rules import MmmuVerdict
from lmmreview.engine.benchmarks.mmmu_pro import rules
from lmmreview.engine.types import Sample


class MMMUPro(SubjectBenchmark):
    name = "mmmu-pro"
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
        ),
        demo="mmmu-pro-demo",
    )

    def verdict(self, sample: Sample, answer: str) -> MmmuVerdict:
        return rules.judge(sample, answer)


MMMU_PRO = MMMUPro()
