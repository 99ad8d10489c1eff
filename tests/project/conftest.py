"""Fixtures for the project's own tests: courses built with real nbgrader, student workspaces."""

from pathlib import Path

import pytest

from autograder.authoring import notebooks, release
from tests.project import one_class

ROOT = release.ROOT
MINI = Path(__file__).parent / "mini"


@pytest.fixture(scope="session")
def mini_course(tmp_path_factory):
    """A course built from the one-notebook mini lecture: fast, for testing the pipeline itself."""
    base = tmp_path_factory.mktemp("mini")
    lectures = base / "lectures"
    lectures.mkdir()
    for source in sorted(MINI.glob("*.md")):
        (lectures / f"{source.stem}.ipynb").write_text(notebooks.render(notebooks.build(source)))
    course = base / "course"
    release.build_course(course, lecture_dir=lectures)
    return course, lectures


@pytest.fixture(scope="session")
def course(tmp_path_factory):
    """The real course, built from lectures/ with real nbgrader."""
    course = tmp_path_factory.mktemp("course") / "course"
    release.build_course(course)
    return course


@pytest.fixture(scope="session")
def fresh_workspace(course, tmp_path_factory):
    """An untouched student workspace made from the real release."""
    return release.make_workspace(course / "release" / release.ASSIGNMENT,
                                  tmp_path_factory.mktemp("student") / "ws")



@pytest.fixture(scope="session")
def graded_class(course, tmp_path_factory):
    """The sample class, the mutant catalogue and the kernel's attackers, graded as one class with
    `nano-course grade` (one_class.py); the slow grading tests each read their own rows."""
    return one_class.grade_class(course, tmp_path_factory.mktemp("class"))
