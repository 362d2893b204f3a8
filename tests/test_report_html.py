"""`lmmreview report --format html`: one self-contained page, inert whatever the answers say,
read by a real headless browser with the network blocked."""

from __future__ import annotations

import base64
import io
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import dump, png_bytes, write_json, write_lines
from PIL import Image

from lmmreview.db import Store
from lmmreview.db.flagged import FLAGGED, JUDGE_HUMAN, JUDGES, NOTED, flagged_answers
from lmmreview.db.judges import disagreeing_judges, read_judges
from lmmreview.db.review import ReviewStore
from lmmreview.engine.benchmarks.mmvet.rules import PROMPT_VERSION
from lmmreview.engine.scoring import DEFAULT_CHOICE, Judgment, Status
from lmmreview.tui.cli.report_html import MAX_SIDE, picture

HOSTILE = (
    '<script>document.title="pwned"</script>'
    '<img src="http://example.invalid/x.png" onerror="document.title=\'pwned\'">'
    "</div></body>\x1b[2J"
)
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# A clipboard-writing escape, markup and a zero-width space, as a model, tag and axis name.
NAME = "\x1b]52;c;SGVsbG8=\x07<b onclick=x>[/]\u200b"


def _llm(score: float) -> Judgment:
    return Judgment(run=0, score=score, choice=None, status=Status.OK, method="llm",
                    kind="llm", judge_model="judge-1", prompt_version=PROMPT_VERSION,
                    reply=f"score {score}")  # fmt: skip


@pytest.fixture
def report_db(cli, mmvet_files: dict[str, Path], tmp_path: Path) -> Path:
    """The three-sample MM-Vet set, alpha answering v1_1 with markup and a script; judged by
    the offline rules and an LLM judge; a verdict against the judge, a note and a flag."""
    files = mmvet_files
    write_json(files["alpha"], {"v1_0": "x=-1", "v1_1": HOSTILE, "v1_2": "$4"})
    db = tmp_path / "report.db"
    assert cli("import", "mmvet", db, files["questions"], "--images", files["images"],
               "--answers", files["alpha"], "--answers", files["beta"]).code == 0  # fmt: skip
    assert cli("score", db).code == 0
    with Store.open(db) as store:
        ids = store.answer_ids("mmvet")
        with store.transaction():
            store.add_judgments([(ids["alpha", key], _llm(1.0)) for key in ("v1_0", "v1_1", "v1_2")]
                                + [(ids["beta", key], _llm(0.0)) for key in ("v1_0", "v1_1")])  # fmt: skip
        reviews = ReviewStore(store, "tester")
        reviews.grade(ids["alpha", "v1_1"], score=0.0)  # the judge said 1.0
        reviews.grade(ids["alpha", "v1_0"], score=1.0)  # agrees
        reviews.note(ids["beta", "v1_0"], "look <b>here</b>")
        reviews.set_flag(ids["alpha", "v1_2"], True)
    return db


class _Page(HTMLParser):
    """Every element with its attributes, and the text, of an HTML page."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _write(cli, db: Path, out: Path, *args: str) -> str:
    result = cli("report", db, "--format", "html", "--out", out, *args)
    assert result.code == 0, result.stderr
    return out.read_text(encoding="utf-8")


def test_the_flagged_answers_are_those_the_screens_filters_find(report_db: Path) -> None:
    with Store.open(report_db, create=False) as store:
        disagreeing = disagreeing_judges(read_judges(store, "mmvet"), 0.3)
        listed = flagged_answers(store, "mmvet", disagreeing, DEFAULT_CHOICE, 0.3)
    assert [(a.model, a.key, a.reasons) for a in listed] == [  # in the review list's order
        ("alpha", "v1_0", (JUDGES,)),  # judge-1 1.0, the offline rules 0.5; the human agrees
        ("beta", "v1_0", (NOTED,)),
        ("alpha", "v1_1", (JUDGE_HUMAN, JUDGES)),  # judge-1 1.0, the human 0, the rules 0
        ("alpha", "v1_2", (FLAGGED,)),
    ]


def test_the_page_is_self_contained_and_every_answer_is_inert_text(
    cli, report_db: Path, tmp_path: Path
) -> None:
    before = dump(report_db)
    html = _write(cli, report_db, tmp_path / "report.html")
    assert dump(report_db) == before  # reading only
    page = _Page(html)
    tags = [tag for tag, _ in page.elements]
    assert "script" not in tags and "iframe" not in tags and "link" not in tags
    for tag, attributes in page.elements:
        assert not any(name.startswith("on") for name in attributes), (tag, attributes)
        for name in ("src", "href"):
            assert (attributes.get(name) or "data:").startswith("data:"), (tag, attributes)
    policy = next(a["content"] for t, a in page.elements if a.get("http-equiv"))
    assert policy is not None and "default-src 'none'" in policy
    text = "".join(page.text)
    assert HOSTILE.replace("\x1b", "␛") in text  # the answer, literally, as text
    assert "look <b>here</b>" in text  # the note too
    assert "judges against human verdicts" in text and "judge-1" in text
    assert text.count("score 1.0") >= 3  # every verdict of the flagged answers, replies and all
    assert tags.count("svg") >= 2  # bars and a radar of the capabilities at least
    assert "mmvet: judge-1 × human" in text and "mmvet: offline rules × human" in text
    assert "mmvet: offline rules: reliability" in text  # graded: 0.5 for alpha's v1_0
    assert "mmvet: judge-1: reliability" not in text  # 0 or 1 only
    assert {a["alt"] for t, a in page.elements if t == "img"} == {"v1_0", "v1_1", "v1_2"}
    images = [a["src"] for t, a in page.elements if t == "img"]
    assert len(images) == 4  # one per flagged answer
    for uri in images:
        assert uri is not None and uri.startswith("data:image/jpeg;base64,")
        with Image.open(io.BytesIO(base64.b64decode(uri.partition(",")[2]))) as image:
            assert image.size == (8, 6)


def test_max_answers_caps_the_flagged_answers_and_says_how_many_were_left_out(
    cli, report_db: Path, tmp_path: Path
) -> None:
    page = _Page(_write(cli, report_db, tmp_path / "r.html", "--max-answers", "1"))
    text = "".join(page.text)
    assert "Flagged answers (1 of 4)" in text
    assert "3 more flagged answers left out (--max-answers)" in text
    assert sum(1 for _, a in page.elements if a.get("class") == "answer") == 1
    text = "".join(_Page(_write(cli, report_db, tmp_path / "r.html", "--max-answers", "0")).text)
    assert "4 flagged; none shown (--max-answers 0)" in text


def test_html_writes_a_file_and_needs_out(cli, report_db: Path, tmp_path: Path) -> None:
    before = dump(report_db)
    assert cli("report", report_db, "--out", tmp_path / "page.html").code == 0  # html implied
    assert "<!DOCTYPE html>" in (tmp_path / "page.html").read_text(encoding="utf-8")
    result = cli("report", report_db, "--out", tmp_path / "page.txt")
    assert result.code == 1 and "--out writes the HTML page: add --format html" in result.stderr
    assert not (tmp_path / "page.txt").exists()
    result = cli("report", report_db, "--format", "html")
    assert result.code == 1
    assert "--out FILE is needed" in result.stderr
    result = cli("report", report_db, "--format", "html", "--out", report_db)
    assert result.code == 1
    assert "not writing the tables to" in result.stderr
    assert dump(report_db) == before


def test_a_picture_is_shrunk_to_fit_and_a_broken_one_says_why() -> None:
    big = picture(png_bytes("blue", (2000, 1000)))
    assert big.uri is not None
    with Image.open(io.BytesIO(base64.b64decode(big.uri.partition(",")[2]))) as image:
        assert image.size == (MAX_SIDE, MAX_SIDE // 2)
    assert picture(b"not an image").problem == "broken image: not a known image format"
    assert picture(None).problem == "image missing from the database"


def test_names_from_the_data_are_visible_inert_text_in_tables_and_charts(
    cli, tmp_path: Path
) -> None:
    lines = [
        {"id": "q1", "question": "Q1?", "answer": "yes", "tags": {NAME: [NAME, "plain", "x"]},
         "prediction": "yes", "model": NAME},
        {"id": "q1", "prediction": "no", "model": "plain model"},
    ]  # fmt: skip
    db = tmp_path / "names.db"
    assert cli("import", "jsonl", db, write_lines(tmp_path / "names.jsonl", lines)).code == 0
    assert cli("score", db).code == 0
    html = _write(cli, db, tmp_path / "names.html")
    assert not any(c in html for c in "\x1b\x07\u200b")
    assert "<b onclick" not in html
    page = _Page(html)
    assert not any(name.startswith("on") for _, attributes in page.elements for name in attributes)
    assert "␛]52;c;SGVsbG8=␇<b onclick=x>[/]⟨U+200B⟩" in "".join(page.text)


def _chromium(*args: str, profile: Path) -> subprocess.CompletedProcess[str]:
    """Headless Chromium with every network request failing (no name resolves, the proxy
    is a closed port); skips the test, with the reason, where it cannot start."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (.ci/run installs it)")
    command = [
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run", f"--user-data-dir={profile}",
        "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9", *args,
    ]  # fmt: skip
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as error:
        pytest.skip(f"Chromium cannot start: {error}")
    if done.returncode != 0:
        pytest.skip(f"Chromium cannot start: {done.stderr.strip()[-300:]}")
    return done


def _near(pixel: tuple[int, ...], colour: tuple[int, int, int], within: int = 40) -> bool:
    return all(abs(a - b) <= within for a, b in zip(pixel, colour, strict=False))


def test_a_headless_browser_renders_the_page_offline(cli, report_db: Path, tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    _write(cli, report_db, page)
    dom = _chromium("--dump-dom", page.as_uri(), profile=tmp_path / "profile").stdout
    assert "<title>lmmreview report: report.db</title>" in dom  # no script renamed it
    assert "judges against human verdicts" in dom
    assert "&lt;script&gt;document.title" in dom
    assert "<svg" in dom
    shot = tmp_path / "shot.png"
    _chromium(f"--screenshot={shot}", "--window-size=1280,5000", "--hide-scrollbars",
              page.as_uri(), profile=tmp_path / "profile")  # fmt: skip
    with Image.open(shot) as image:
        pixels = list(image.convert("RGB").getdata())
    assert len(set(pixels)) > 50  # not blank: text, tables, charts, pictures
    bars = sum(_near(p, (0, 114, 178), 10) for p in pixels)  # the first model's colour
    assert bars > 500  # the charts were drawn
    assert any(_near(p, (255, 0, 0)) for p in pixels)  # v1_0's red picture was drawn


def test_each_interval_is_shown_once_and_said_what_it_is(
    cli, report_db: Path, tmp_path: Path
) -> None:
    text = "".join(_Page(_write(cli, report_db, tmp_path / "r.html")).text)
    assert "[" not in text.partition("Flagged answers")[0]  # not also " [low, high]"
    assert "95 % bootstrap interval" in text and "1,000 resamples, seed 0" in text


def test_without_human_verdicts_the_judges_section_is_one_line_and_one_judge_is_not_read(
    cli, mmvet_two_models_db: Path, tmp_path: Path, monkeypatch
) -> None:
    assert cli("score", mmvet_two_models_db).code == 0

    def unmeasured(*_: object) -> None:
        raise AssertionError("judges measured with no human verdict")

    with Store.open(mmvet_two_models_db) as store:  # a note is no verdict
        ReviewStore(store, "tester").note(store.answer_ids("mmvet")["beta", "v1_0"], "see")
    # One judge (the offline rules) and no verdict: no judgment needs reading either.
    monkeypatch.setattr("lmmreview.tui.cli.report_html.judge_section", unmeasured)
    monkeypatch.setattr("lmmreview.tui.cli.report_html.read_judges", unmeasured)
    text = "".join(_Page(_write(cli, mmvet_two_models_db, tmp_path / "r.html")).text)
    assert "No human verdict yet in this dataset" in text
    assert "Judges against human verdicts" not in text
    assert "Flagged answers (1 of 1)" in text and "has a note" in text
    assert "offline rules" in text  # the card's verdict, its judge named


def test_long_text_wraps_and_wide_tables_scroll_in_their_own_box(
    cli, report_db: Path, tmp_path: Path
) -> None:
    html = _write(cli, report_db, tmp_path / "r.html")
    style = html.partition("<style>")[2].partition("</style>")[0]
    assert "overflow-wrap: anywhere" in style.partition("}")[0]  # body's: every text
    assert ".wide { overflow-x: auto" in style
    assert html.count("<table") == html.count('<div class="wide"><table') > 0
    assert html.count('<table class="words">') == 4 + 3  # 4 answers judged, 3 reviewed: text
