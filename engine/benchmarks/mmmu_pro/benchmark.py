"""MMMU-Pro: MMMU's subjects with up to ten options, parsed by the official MMMU-Pro rules (no
LLM); accuracy overall and by discipline, subject, difficulty and image type."""

from __future__ import annotations

from lmmreview.engine.benchmarks.mmmu.benchmark import SubjectBenchmark
from lmmreview.engine.benchmarks.mmmu.rules import MmmuVerdict
from lmmreview.engine.benchmarks.mmmu_pro import rules
from lmmreview.engine.types import Sample


class MMMUPro(SubjectBenchmark):
    name = "mmmu-pro"
    title = "MMMU-Pro"

    def verdict(self, sample: Sample, answer: str) -> MmmuVerdict:
        return rules.judge(sample, answer)


MMMU_PRO = MMMUPro()
