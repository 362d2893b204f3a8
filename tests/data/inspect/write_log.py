"""Write a small Inspect AI log by running a tiny task with inspect_ai's mock model (run in a
subprocess by tests/test_inspect.py, so inspect_ai's evaluation leaves the test process as
it was). Usage: write_log.py LOG_DIR [EPOCHS]. Prints the log's path.

Samples: "q1" an image and text (a chat message), target "A"; "q2" plain text with two
acceptable targets; 3 (an int id) multiple choice. Scorers: `letter` (C/I), `stars` (a
number, 7 on q2: not in [0, 1]) and Inspect's own `match`. Each ModelOutput carries its
usage, so the mock model does not fetch a tokenizer (offline).
"""

import base64
import io
import sys

from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.model import (
    ChatMessageUser,
    ContentImage,
    ContentText,
    ModelOutput,
    ModelUsage,
    get_model,
)
from inspect_ai.scorer import (
    CORRECT,
    INCORRECT,
    Score,
    Scorer,
    Target,
    accuracy,
    match,
    mean,
    scorer,
)
from inspect_ai.solver import TaskState, generate
from PIL import Image


def png_uri() -> str:
    buffer = io.BytesIO()
    Image.new("RGB", (4, 3), "red").save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


@scorer(metrics=[accuracy()])
def letter() -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        answer = state.output.completion.strip()[:1]
        value = CORRECT if answer == target.text else INCORRECT
        return Score(value=value, answer=answer, explanation="first letter")

    return score


@scorer(metrics=[mean()])
def stars() -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        return Score(value=7 if state.sample_id == "q2" else 0.25)

    return score


SAMPLES = [
    Sample(
        id="q1",
        input=[
            ChatMessageUser(
                content=[ContentImage(image=png_uri()), ContentText(text="Colour? A red B blue")]
            )
        ],
        target="A",
    ),
    Sample(id="q2", input="What is 2+2?", target=["4", "four"]),
    Sample(id=3, input="Pick the sky's colour", choices=["red", "blue"], target="B"),
]


def outputs(epochs: int) -> list[ModelOutput]:
    made = []
    for text in ("A, it is red", "4", "B") * epochs:
        output = ModelOutput.from_content(model="mockllm/model", content=text)
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        made.append(output)
    return made


if __name__ == "__main__":
    task = Task(
        dataset=SAMPLES, solver=generate(), scorer=[letter(), stars(), match()], name="tiny"
    )
    epochs = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    model = get_model("mockllm/model", custom_outputs=outputs(epochs))
    (log,) = eval(task, model=model, log_dir=sys.argv[1], display="none", epochs=epochs)
    assert log.status == "success", log.error
    print(log.location)
