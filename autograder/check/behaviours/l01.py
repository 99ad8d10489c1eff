"""Lecture 01's graded behaviours: the six answers about the Celsius trace, and warmup()'s rule
(checks/l01.py), which has no hidden case: the same call, judged the same way.

An answer is judged leniently: any value whose str() is the right whole number or letter. The
answers themselves live here, on the grader's side: the release strips the hidden part of a
graded cell, so students never see them. The answer cells run in the subject, which reports
the values they left; warmup's source is read by the driver, from the file as handed in, and
its value is what a call of it in the subject returned.
"""

import unicodedata

from autograder.check.behaviour import Behaviour, no_inputs
from checks import l01


def drive_answers(subject, inputs):
    """The answer variables the question names, as the student's answer cells left them."""
    return subject.answers(inputs["names"])


def _text(value):
    if isinstance(value, str):
        return value.strip()
    return str(value) if type(value) is int and -10**300 < value < 10**300 else None


def _whole(text):
    """The whole number `text` writes (its decimal digits, without leading zeros), as a str;
    None if it is not a whole number. Compared as text, so no length of digits can raise."""
    if not isinstance(text, str) or not text:
        return None
    digits = [unicodedata.decimal(c, None) for c in text]
    if None in digits:
        return None
    return "".join(map(str, digits)).lstrip("0") or "0"


def _answer(seen, name):
    return _text(seen.get(name))


def judge_number(inputs, seen):
    if _whole(_answer(seen, inputs["name"])) != str(inputs["truth"]):
        yield inputs["hint"]


def judge_letter(inputs, seen):
    got = _answer(seen, inputs["name"])
    if got is None or got.lower() != inputs["truth"]:
        yield inputs["hint"]


def judge_q3(inputs, seen):
    entry, key = _answer(seen, "answer_q3_entry"), _answer(seen, "answer_q3_field")
    if _whole(entry) != "2":
        yield "question 3: which entry answers toolu_01A? (sections 3 and 4)"
    if key is None or key.strip("\"'").lower() != "tool_use_id":
        yield "question 3: which key of a tool_result names the request it answers? (section 3)"


def question(grade_id, name, truth, hint, judge):
    """A question's behaviour: its answer cells are the question's own and those before it."""
    return Behaviour(grade_id, drive_answers, judge,
                     given={"names": [name], "name": name, "truth": truth, "hint": hint},
                     answers=tuple(f"l01_q{i}_answer" for i in range(1, int(grade_id[5]) + 1)))


BEHAVIOURS = [
    Behaviour.of(l01.RULES[0], no_inputs),
    question("l01_q1_entries_before_second_call", "answer_q1", 3,
             "question 1: count the entries pushed before the second model call (section 4)", judge_number),
    question("l01_q2_rule_for_roles", "answer_q2", "c",
             "question 2: reread why a tool result is a user message (section 2)", judge_letter),
    Behaviour("l01_q3_what_answers_toolu_01A", drive_answers, judge_q3,
              given={"names": ["answer_q3_entry", "answer_q3_field"]},
              answers=("l01_q1_answer", "l01_q2_answer", "l01_q3_answer")),
    question("l01_q4_failed_edit", "answer_q4", "b",
             "question 4: reread what is_error is for, and when the loop ends (sections 1 and 3)", judge_letter),
    question("l01_q5_text_and_tool_use", "answer_q5", "a",
             "question 5: reread what content may hold (section 3)", judge_letter),
    question("l01_q6_lost_tool_result", "answer_q6", "d",
             "question 6: reread the pairing rules for tool_use and tool_result (section 3)", judge_letter),
]
