"""A behaviour no hand-in can finish in time, the reference included, for the mini lecture's
warmup cell (test_grader_errors): the grader cannot confirm that it works, so its cell must be
held for everyone, and the class still graded. `install()` puts it in place of the course's
behaviours (behaviour_site/sitecustomize.py calls it in the grading processes)."""

from autograder.check import behaviour
from autograder.check.behaviour import Behaviour


def drive_slowly(subject, inputs):
    return {"slept": subject.call("time.sleep", 3)}


def judge_anything(inputs, seen):
    return None


BEHAVIOURS = [Behaviour("mini_warmup", drive_slowly, judge_anything, timeout=1)]


def lecture(number):
    return BEHAVIOURS


def install():
    behaviour.lecture = lecture
