"""Fixtures for the project's own tests: courses built with real nbgrader, student workspaces."""

from pathlib import Path

import pytest

from autograder.authoring import notebooks, release
from tests.project import groups, one_class

ROOT = release.ROOT
MINI = Path(__file__).parent / "mini"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """The tests that read the shared class run in one pytest-xdist worker (groups.py), so that
    the class is graded once; pytest-xdist starts the largest group first. The slow tests come
    before the quick ones, so that the workers end on short tests, not one long one."""
    groups.mark(items, "class", lambda item: "graded_class" in getattr(item, "fixturenames", ()))
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's, which sends the names to the scheduler
def pytest_collection_finish(session):
    groups.rename(session.config, session.items)


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
