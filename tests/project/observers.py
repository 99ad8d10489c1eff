"""Observe functions that misbehave, for the independent check's runner to survive (test_verify).

Each is turned into runner code by `behaviour.standalone`, exactly as a lecture's are.
"""


def observe_twice(inputs, answers):
    from nano.m import twice

    return {"got": twice(inputs["n"])}


def observe_raises(inputs, answers):
    raise KeyError("boom")


def observe_odd_values(inputs, answers):
    return {"q": answers.get("q"), "odd": type("Odd", (str,), {})("x"), "obj": object()}


def observe_exits_hard(inputs, answers):
    import os

    os._exit(3)


def observe_ignores_the_alarm(inputs, answers):
    import signal

    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    while True:
        pass


def observe_after(inputs, answers):
    import os

    return {"after": 1, "cwd": os.getcwd()}


def observe_exits(inputs, answers):
    import sys

    sys.exit(0)
