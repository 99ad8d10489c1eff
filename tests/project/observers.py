"""Drives that meet a hostile nano/m.py (payloads/hostile_module.py), for test_verify's check that
the driver survives whatever student code does to its subject process."""


def drive_twice(subject, inputs):
    return {"got": subject.call("nano.m.twice", inputs.get("n", 4))}


def drive_boom(subject, inputs):
    return {"got": subject.call("nano.m.boom")}


def drive_odd(subject, inputs):
    return {"got": subject.call("nano.m.odd"), "answers": subject.answers(["q"])}


def drive_deep(subject, inputs):
    return {"got": subject.call("nano.m.deep"), "then": subject.call("nano.m.twice", 1)}


def drive_huge_text(subject, inputs):
    return {"got": subject.call("nano.m.huge_text"), "then": subject.call("nano.m.twice", 2)}


def drive_many(subject, inputs):
    return {"got": subject.call("nano.m.many"), "then": subject.call("nano.m.twice", 3)}


def drive_many_forged(subject, inputs):
    return {"got": subject.call("nano.m.many_forged")}


def drive_exits_hard(subject, inputs):
    return {"got": subject.call("nano.m.exits_hard")}


def drive_deaf(subject, inputs):
    return {"got": subject.call("nano.m.deaf")}


def drive_after(subject, inputs):
    return {"cwd": subject.call("os.getcwd")}


def drive_exits(subject, inputs):
    return {"got": subject.call("nano.m.exits")}


def drive_floods(subject, inputs):
    return {"got": subject.call("nano.m.floods")}


def drive_leaves_a_child(subject, inputs):
    return {"got": subject.call("nano.m.leaves_a_child", inputs["tag"]), "left": subject.processes()}


def judge_nothing(inputs, seen):
    return None
