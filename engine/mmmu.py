"""MMMU: subjects, disciplines, and the question-type names of its files."""

from __future__ import annotations

from engine.types import QuestionType

DISCIPLINES: dict[str, tuple[str, ...]] = {
    "Art and Design": ("Art", "Art_Theory", "Design", "Music"),
    "Business": ("Accounting", "Economics", "Finance", "Manage", "Marketing"),
    "Science": ("Biology", "Chemistry", "Geography", "Math", "Physics"),
    "Health and Medicine": (
        "Basic_Medical_Science",
        "Clinical_Medicine",
        "Diagnostics_and_Laboratory_Medicine",
        "Pharmacy",
        "Public_Health",
    ),
    "Humanities and Social Science": ("History", "Literature", "Sociology", "Psychology"),
    "Tech and Engineering": (
        "Agriculture",
        "Architecture_and_Engineering",
        "Computer_Science",
        "Electronics",
        "Energy_and_Power",
        "Materials",
        "Mechanical_Engineering",
    ),
}

DISCIPLINE_OF: dict[str, str] = {
    subject: discipline for discipline, subjects in DISCIPLINES.items() for subject in subjects
}

QUESTION_TYPES: dict[str, QuestionType] = {
    "multiple-choice": QuestionType.CHOICE,
    "open": QuestionType.OPEN,
    "short-answer": QuestionType.OPEN,
}


def subject_of(sample_id: str) -> str:
    """The middle of an MMMU id: ``validation_Art_Theory_12`` -> ``Art_Theory``.

    Raises ValueError when the id is not ``<split>_<Subject>_<n>``.
    """
    parts = sample_id.split("_")
    if len(parts) < 3 or not parts[-1].isdigit():
        raise ValueError(f"id {sample_id!r} is not of the form <split>_<Subject>_<number>")
    return "_".join(parts[1:-1])


def question_type_of(name: str) -> QuestionType:
    """Map MMMU's question_type strings; raises ValueError on anything else."""
    try:
        return QUESTION_TYPES[name.strip().lower()]
    except KeyError:
        raise ValueError(
            f"question_type {name!r} is not one of {', '.join(QUESTION_TYPES)}"
        ) from None
