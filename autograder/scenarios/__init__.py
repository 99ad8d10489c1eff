"""The independent check's scenarios, one module per lecture (l01.py .. l06.py).

Each module's SCENARIOS lists `autograder.verify.Scenario`s, one or more per graded test cell of
its lecture: what to run in the student's process, and how the grader judges what it observed.
"""
