"""The instructor's side of the nano course: build the nbgrader course, make student
workspaces, grade submissions. The console script `nano-course` (cli.py) is its one entry point."""
