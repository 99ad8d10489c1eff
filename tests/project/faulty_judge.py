"""A behaviour whose judge is wrong, for the mini lecture's warmup cell (test_grader_errors).

Its judge raises when the hand-in's nano/protocol.py has `QUIRK = True`, and never on the
reference, so the reference passes it before grading and the fault shows only on one student's
code: the grader's mistake met mid-term. `install()` puts it in place of the course's behaviours;
in the grading processes, behaviour_site/sitecustomize.py calls it at start-up.
"""

from autograder.check import behaviour
from autograder.check.behaviour import Behaviour


def drive_quirk(subject, inputs):
    return {"quirk": subject.read("nano.protocol.QUIRK"), "warmup": subject.call("nano.protocol.warmup")}


def judge_trips_on_quirk(inputs, seen):
    if seen["quirk"].get("value") is True:
        raise KeyError("a judge written for another shape of observation")
    if seen["warmup"].get("value") != 61001:
        yield "warmup() must return 61001 (section 1)"


BEHAVIOURS = [Behaviour("mini_warmup", drive_quirk, judge_trips_on_quirk)]


def lecture(number):
    return BEHAVIOURS


def install():
    behaviour.lecture = lecture
