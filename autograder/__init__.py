"""The instructor's side of the nano course: build the nbgrader course, make student
workspaces, grade submissions. The console script `nano-course` (cli.py) is its one entry point."""

import sys

# jsonschema, which nbformat imports, builds 38 lark parsers at import to check one string format
# ("iri") that no notebook or nbgrader schema uses: 2 to 3 s of CPU in every process that reads a
# notebook (the command, each grading worker), saved by not letting it find their package.
sys.modules.setdefault("rfc3987_syntax", None)
