from __future__ import annotations

import json
from pathlib import Path

from conftest import dump, write_json

from lmmreview.db import Store


def test_imports_samples_images_and_answers(cli, mmvet_files, tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    f = mmvet_files
    result = cli("import", "mmvet", db, f["questions"], "--images", f["images"],
                 "--answers", f["alpha"], "--answers", f["beta"])  # fmt: skip
    assert result.code == 0, result.stderr
    assert "no answer for 1 sample(s): v1_2" in result.stderr  # beta is missing v1_2
    with Store.open(db) as store:
        samples = {s.key: s for s in store.samples("mmvet")}
        assert samples["v1_0"].axis("capability") == ("ocr", "math")  # paper order, not file order
        assert samples["v1_2"].axis("capability") == (
            "rec",
            "ocr",
            "spat",
        )  # comma-separated string
        assert samples["v1_0"].answer == "-1 <AND> -5"
        assert store.answers("mmvet", "alpha") == {"v1_0": "x=-1", "v1_1": "green", "v1_2": "$4"}
        assert store.answers("mmvet", "beta") == {"v1_0": "3", "v1_1": "red"}
        image = store.image_bytes(store.image_hashes("mmvet", "v1_1")[0])
        assert image == (f["images"] / "v1_1.png").read_bytes()


def test_reimport_changes_nothing_and_a_new_model_can_join(cli, mmvet_files, tmp_path) -> None:
    db = tmp_path / "r.db"
    f = mmvet_files
    args = ("import", "mmvet", db, f["questions"], "--images", f["images"], "--answers", f["alpha"])
    assert cli(*args).code == 0
    before = dump(db)
    again = cli(*args)
    assert again.code == 0
    assert "(0 new)" in again.stdout
    assert dump(db) == before
    later = cli("import", "mmvet", db, f["questions"], "--answers", f["beta"], "--model", "beta-v2")
    assert later.code == 0
    with Store.open(db) as store:
        assert store.answers("mmvet", "beta-v2") == {"v1_0": "3", "v1_1": "red"}
        assert len(store.samples("mmvet")) == 3
        assert store.image_hashes("mmvet", "v1_0")  # images kept from the first import


def test_unknown_ids_and_missing_images_are_reported_not_fatal(cli, mmvet_files, tmp_path) -> None:
    f = mmvet_files
    (f["images"] / "v1_2.png").unlink()
    extra = write_json(tmp_path / "extra.json", {"v1_0": "a", "v9_9": "b"})
    result = cli("import", "mmvet", tmp_path / "r.db", f["questions"], "--images", f["images"],
                 "--answers", extra)  # fmt: skip
    assert result.code == 0
    assert "1 image(s) missing: v1_2.png" in result.stderr
    assert "v9_9" in result.stderr and "skipped" in result.stderr
    with Store.open(tmp_path / "r.db") as store:
        assert store.answers("mmvet", "extra") == {"v1_0": "a"}
        assert store.image_hashes("mmvet", "v1_2") == []


def test_a_changed_answer_is_refused_and_nothing_is_written(cli, mmvet_files, tmp_path) -> None:
    db = tmp_path / "r.db"
    f = mmvet_files
    assert cli("import", "mmvet", db, f["questions"], "--answers", f["alpha"]).code == 0
    before = dump(db)
    changed = write_json(tmp_path / "alpha.json", {"v1_0": "x = -5", "v1_1": "green"})
    result = cli("import", "mmvet", db, f["questions"], "--answers", changed)
    assert result.code == 1
    assert "alpha.json: id v1_0:" in result.stderr and "different answer" in result.stderr
    assert dump(db) == before


def test_without_images_the_folder_beside_the_questions_is_used_and_said(
    cli, mmvet_files, tmp_path: Path
) -> None:
    db, f = tmp_path / "r.db", mmvet_files
    result = cli("import", "mmvet", db, f["questions"], "--answers", f["alpha"])
    assert result.code == 0, result.stderr
    assert f"no --images given: reading the images from {f['images']}" in result.stderr
    assert "3 new images" in result.stdout
    with Store.open(db) as store:
        image = store.image_bytes(store.image_hashes("mmvet", "v1_1")[0])
        assert image == (f["images"] / "v1_1.png").read_bytes()


def test_questions_naming_images_imported_without_any_are_warned_of(
    cli, mmvet_files, tmp_path: Path
) -> None:
    alone = tmp_path / "alone"
    alone.mkdir()
    questions = alone / "mm-vet.json"
    questions.write_bytes(mmvet_files["questions"].read_bytes())  # no images/ beside it
    result = cli("import", "mmvet", tmp_path / "r.db", questions)
    assert result.code == 0, result.stderr
    assert "0 new images" in result.stdout
    assert (
        f"warning: {questions}: 3 question(s) name image files, but no --images folder was "
        "given and there is no images/ beside the file: imported without images"
    ) in " ".join(result.stderr.split())


def test_a_question_file_whose_questions_differ_is_refused(
    cli, mmvet_files: dict[str, Path], tmp_path: Path
) -> None:
    """Re-importing a dataset whose v1_0 has another question (or gold) kept the old one
    and put the new model's answers, to the other question, on it."""
    db = tmp_path / "r.db"
    f = mmvet_files
    assert cli("import", "mmvet", db, f["questions"], "--images", f["images"]).code == 0
    before = dump(db)
    for field, value in (("question", "Another question?"), ("answer", "banana")):
        questions = json.loads(f["questions"].read_text())
        questions["v1_0"][field] = value
        changed = write_json(tmp_path / f"changed-{field}.json", questions)
        result = cli("import", "mmvet", db, changed, "--images", f["images"],
                     "--answers", f["beta"])  # fmt: skip
        assert result.code == 1
        what = "question" if field == "question" else "ground truth"
        assert f"sample 'v1_0': its {what} differs from the one 'mmvet' holds" in result.stderr
        assert str(changed) in result.stderr
        assert dump(db) == before
