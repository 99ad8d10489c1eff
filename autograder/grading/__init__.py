"""Grading a class. The coordinator (grade.py) takes in hand-ins (intake.py), hands one student
at a time to a grading process (autograde.py: nbgrader's autograde, its kernels in the sandbox),
on this machine or a Dask cluster (cluster.py), and writes the gradebook, grades.csv,
problems.csv, the feedback pages, the report and the LMS export."""
