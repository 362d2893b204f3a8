"""MME's Benchmark: its tables (a subtask's score is acc + acc+, Perception and Cognition
the sums of their subtasks' scores, out of 2000 and 800) and the offline rule, on a small
dataset of our own."""

from __future__ import annotations

import pytest

from lmmreview.engine.benchmarks.mme import rules
from lmmreview.engine.benchmarks.mme.benchmark import IMAGE, MME_BENCHMARK, ORDER, PAIR, SUBTASK
from lmmreview.engine.breakdown import summed
from lmmreview.engine.scoring import Outcome
from lmmreview.engine.tables import Cell
from lmmreview.engine.types import QuestionType, Sample
from tests.test_breakdown import Keyed, _cells, _layout


def question(subtask: str, pair: int, order: int) -> Sample:
    """The yes-gold first, the no-gold second, as MME's files have them."""
    image = f"{pair}.png"
    return Sample(
        f"{subtask}/{image}/{order}",
        "Is the ball red? Please answer yes or no.",
        QuestionType.OPEN,
        "Yes" if order == 1 else "No",
        axes={SUBTASK: (subtask,)},
        extra={IMAGE: image, PAIR: f"{subtask}/{pair}", ORDER: order},
    )


# existence: 3 images, color: 1 image; commonsense_reasoning: 2 images
SAMPLES = [
    question(subtask, pair, order)
    for subtask, images in (("existence", 3), ("color", 1), ("commonsense_reasoning", 2))
    for pair in range(1, images + 1)
    for order in (1, 2)
]
RIGHT, WRONG = Outcome.of((1.0,)), Outcome.of((0.0,))


def _scored(right: set[str], runs: int = 1) -> Keyed:
    breakdown = Keyed(_layout("mme", MME_BENCHMARK, SAMPLES), runs=runs)
    breakdown.load_keyed({"m": {s.key: RIGHT if s.key in right else WRONG for s in SAMPLES}})
    return breakdown


def test_the_tables_sum_subtask_scores() -> None:
    right = {
        "existence/1.png/1", "existence/1.png/2",  # image 1 both right
        "existence/2.png/1",  # image 2 one right, image 3 none
        "color/1.png/1", "color/1.png/2",  # a perfect subtask: 200
        "commonsense_reasoning/2.png/2",
    }  # fmt: skip
    breakdown = _scored(right)
    parts = _cells(breakdown, "mme.subtasks")
    assert parts["existence acc"].value == pytest.approx(50.0)  # 3 of 6
    assert parts["existence acc+"].value == pytest.approx(100 / 3)  # 1 of 3 images
    assert (parts["existence acc"].n, parts["existence acc+"].n) == (6, 3)
    perception = _cells(breakdown, "mme.perception")
    assert perception["existence"].value == pytest.approx(50 + 100 / 3)
    assert perception["color"].value == pytest.approx(200.0)
    assert perception["perception"].value == pytest.approx(250 + 100 / 3)
    cognition = _cells(breakdown, "mme.cognition")
    assert cognition["cognition"].value == pytest.approx(25.0)  # acc 1/4, acc+ 0/2
    assert set(cognition) == {"cognition", "commonsense_reasoning"}


def test_the_same_as_the_rules_by_hand() -> None:
    """The tables equal rules.subtask and rules.totals on the same verdicts."""
    right = {s.key for i, s in enumerate(SAMPLES) if i % 3 != 1}
    verdicts: dict[str, list[tuple[bool, bool]]] = {}
    for first, second in zip(SAMPLES[::2], SAMPLES[1::2], strict=True):
        pair = (first.key in right, second.key in right)
        verdicts.setdefault(first.axes[SUBTASK][0], []).append(pair)
    expected = rules.totals({name: rules.subtask(pairs) for name, pairs in verdicts.items()})
    breakdown = _scored(right)
    assert _cells(breakdown, "mme.perception")["perception"].value == pytest.approx(
        expected["perception"]
    )
    assert _cells(breakdown, "mme.cognition")["cognition"].value == pytest.approx(
        expected["cognition"]
    )


def test_a_changed_answer_updates_the_sums_as_a_full_recompute() -> None:
    breakdown = _scored(set())
    breakdown.put("m", "color/1.png/1", RIGHT)
    breakdown.put("m", "color/1.png/2", RIGHT)
    assert breakdown.tables() == _scored({"color/1.png/1", "color/1.png/2"}).tables()


def test_the_tables_in_the_papers_order() -> None:
    tables = _scored(set()).tables()
    assert [t.name for t in tables] == ["mme.perception", "mme.cognition", "mme.subtasks"]
    assert [c.title for c in tables[0].columns] == ["Perception", "Existence", "Color"]
    assert [c.key for c in tables[2].columns][:2] == ["existence acc", "existence acc+"]


def test_a_summed_cell_counts_each_answer_once() -> None:
    """acc and acc+ read the same answers: a subtask's score counts its questions (not
    questions + images), and a reviewed answer once, after a full recompute or a change."""
    reviewed = Outcome.of((1.0,), reviewed=True)
    full = _scored(set())
    full.load_keyed(
        {"m": {s.key: reviewed if s.key == "color/1.png/1" else WRONG for s in SAMPLES}}
    )
    live = _scored(set())
    live.put("m", "color/1.png/1", reviewed)
    for breakdown in (full, live):
        perception = _cells(breakdown, "mme.perception")
        assert {k: (c.n, c.reviewed) for k, c in perception.items()} == {
            "perception": (8, 1), "existence": (6, 0), "color": (2, 1),
        }  # fmt: skip
        parts = _cells(breakdown, "mme.subtasks")
        assert (parts["color acc"].reviewed, parts["color acc+"].reviewed) == (1, 1)
    assert full.tables() == live.tables()


def test_a_summed_cell_holds_the_answers_it_counts() -> None:
    """The review list filtered on a sum column's cell shows the answers its n counts."""
    layout = _scored(set()).layout
    keys = layout.samples.keys
    existence = [k.startswith("existence/") for k in keys]
    assert layout.in_cell("mme.perception", "existence").tolist() == existence
    perception = [not k.startswith("commonsense") for k in keys]
    assert layout.in_cell("mme.perception", "perception").tolist() == perception
    assert layout.in_cell("mme.subtasks", "existence acc+").tolist() == existence


def test_a_sum_keeps_its_runs_and_their_spread() -> None:
    counts = Cell(value=None, n=6, offline=6)
    total = summed([(40.0, 60.0), (20.0, 20.0)], counts)
    assert (total.value, total.per_run, total.n, total.offline) == (70.0, (60.0, 80.0), 6, 6)
    assert total.std == pytest.approx(10.0)
    assert summed([(40.0, 60.0), (None, None)], counts).value is None


@pytest.mark.parametrize(
    ("answer", "score", "said"),
    [("Yes, it is.", 1.0, "reads as yes"), ("No", 0.0, "reads as no"),
     ("**Yes**", 0.0, "other: no yes or no")],
)  # fmt: skip
def test_the_offline_rule_is_the_official_parse(answer: str, score: float, said: str) -> None:
    judgment = MME_BENCHMARK.offline(SAMPLES[0], answer)  # gold Yes
    assert judgment is not None
    assert judgment.score == score and judgment.reply.startswith(said)
    assert MME_BENCHMARK.judge_work(SAMPLES[0]) is None  # no judge: the rule decides all
