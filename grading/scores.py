"""A score in three parts: autograded, graded by hand, and waiting to be graded by hand.

nbgrader counts a written answer that nobody has graded yet as 0 points, so "8 / 10" reads as two
points lost when they are two points not graded yet. :class:`Scores` keeps the parts apart; the
autograde table, the feedback HTML (grading/feedback.py) and grades.csv (:func:`export_csv`) show
them.

A cell is *graded by hand* when it is an answer cell with points (a written answer, or code graded
by reading it) or a task; every other graded cell is an autograder test. A hand-graded cell
*waits* while nbgrader flags it ``needs_manual_grade`` (also after a changed resubmission was
autograded again: its old hand grade must be looked at).
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Scores:
    """Points of one submitted notebook, or summed over several."""

    auto: float = 0.0
    auto_max: float = 0.0
    hand: float = 0.0  # given by hand so far
    hand_max: float = 0.0  # all hand-graded cells, graded or not
    pending: float = 0.0  # points of the hand-graded cells not graded yet
    pending_cells: list[str] = field(default_factory=list)  # "notebook: grade_id"
    late_penalty: float = 0.0

    @property
    def total(self) -> float:
        """The score so far (what nbgrader reports): autograded + graded by hand - late penalty."""
        return self.auto + self.hand - self.late_penalty

    @property
    def total_max(self) -> float:
        return self.auto_max + self.hand_max

    def __add__(self, other: Scores) -> Scores:
        return Scores(self.auto + other.auto, self.auto_max + other.auto_max,
                      self.hand + other.hand, self.hand_max + other.hand_max,
                      self.pending + other.pending, self.pending_cells + other.pending_cells,
                      self.late_penalty + other.late_penalty)

    def hand_text(self) -> str:
        """'1 / 2', '0 / 1 (1 pending)', '-' (no hand-graded cell)."""
        if not self.hand_max:
            return "-"
        text = f"{self.hand:g} / {self.hand_max:g}"
        return text + (f" ({self.pending:g} pending)" if self.pending else "")

    @classmethod
    def from_dict(cls, d: dict) -> Scores:
        """The inverse of :meth:`as_dict`."""
        return cls(**{k: v for k, v in d.items() if k not in ("total", "total_max")})

    def as_dict(self) -> dict:
        return {"auto": self.auto, "auto_max": self.auto_max, "hand": self.hand,
                "hand_max": self.hand_max, "pending": self.pending,
                "pending_cells": list(self.pending_cells), "late_penalty": self.late_penalty,
                "total": self.total, "total_max": self.total_max}


def _hand_graded_names(notebook) -> set[str]:
    """grade_ids of the hand-graded cells of a (source) nbgrader.api.Notebook."""
    return {c.name for c in notebook.solution_cells} | {c.name for c in notebook.task_cells}


def _maximum(assignment) -> tuple[float, float]:
    """(autograded, hand-graded) maximum points of an nbgrader.api.Assignment."""
    auto = hand = 0.0
    for nb in assignment.notebooks:
        names = _hand_graded_names(nb)
        for cell in [*nb.grade_cells, *nb.task_cells]:
            if cell.name in names:
                hand += cell.max_score
            else:
                auto += cell.max_score
    return auto, hand


def notebook_scores(submitted_notebook) -> Scores:
    """Scores of an nbgrader.api.SubmittedNotebook."""
    hand_names = _hand_graded_names(submitted_notebook.notebook)
    s = Scores(late_penalty=submitted_notebook.late_submission_penalty or 0.0)
    for grade in submitted_notebook.grades:
        if grade.name not in hand_names:
            s.auto += grade.score
            s.auto_max += grade.max_score
            continue
        s.hand_max += grade.max_score
        if grade.needs_manual_grade:
            s.pending += grade.max_score
            s.pending_cells.append(f"{submitted_notebook.name}: {grade.name}")
        else:
            s.hand += grade.score
    return s


def submission_scores(gradebook, assignment: str, student: str) -> Scores:
    """Scores of a student's whole submission of an assignment."""
    sub = gradebook.find_submission(assignment, student)
    return sum((notebook_scores(nb) for nb in sub.notebooks), Scores())


def assignment_scores(gradebook, assignment: str) -> dict[str, Scores]:
    """{student: Scores} of every submission of an assignment."""
    from nbgrader.api import MissingEntry

    try:
        a = gradebook.find_assignment(assignment)
    except MissingEntry:
        return {}
    return {s.student.id: sum((notebook_scores(nb) for nb in s.notebooks), Scores())
            for s in a.submissions}


CSV_COLUMNS = ["assignment", "duedate", "timestamp", "student_id", "last_name", "first_name",
               "email", "raw_score", "late_submission_penalty", "score", "max_score",
               "auto_score", "auto_max_score", "hand_score", "hand_max_score",
               "pending_hand_points", "pending_hand_answers"]


def export_csv(gradebook, out: Path | str, assignments: Iterable[str] | None = None) -> int:
    """nbgrader's grades.csv columns (one row per student and assignment, 0 for no submission),
    then the parts: autograded, graded by hand, and the points and number of answers still
    waiting to be graded by hand. Returns the number of rows."""
    from nbgrader.api import MissingEntry

    wanted = set(assignments or [])
    rows = 0
    with open(out, "w", newline="") as f:
        writer = csv.DictWriter(f, CSV_COLUMNS)
        writer.writeheader()
        for a in gradebook.assignments:
            if wanted and a.name not in wanted:
                continue
            auto_max, hand_max = _maximum(a)
            for student in gradebook.students:
                row = {"assignment": a.name, "duedate": a.duedate or "", "student_id": student.id,
                       "last_name": student.last_name or "", "first_name": student.first_name or "",
                       "email": student.email or "", "max_score": a.max_score}
                try:
                    sub = gradebook.find_submission(a.name, student.id)
                except MissingEntry:
                    row.update(timestamp="", raw_score=0.0, late_submission_penalty=0.0, score=0.0,
                               auto_score=0.0, auto_max_score=auto_max, hand_score=0.0,
                               hand_max_score=hand_max, pending_hand_points=0.0,
                               pending_hand_answers=0)
                else:
                    s = sum((notebook_scores(nb) for nb in sub.notebooks), Scores())
                    row.update(timestamp=sub.timestamp or "", raw_score=sub.score,
                               late_submission_penalty=sub.late_submission_penalty or 0.0,
                               score=sub.score - (sub.late_submission_penalty or 0.0),
                               auto_score=s.auto, auto_max_score=s.auto_max, hand_score=s.hand,
                               hand_max_score=s.hand_max, pending_hand_points=s.pending,
                               pending_hand_answers=len(s.pending_cells))
                writer.writerow(row)
                rows += 1
    return rows
