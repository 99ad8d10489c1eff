"""nano: a small coding agent, built one lecture at a time.

Modules in dependency order: protocol (01), tools (02-03), gate (04), model and loop (05),
repl (06); askers (the terminal's and the notebook's), testing, trace, server, failures and cost
are given helpers. Importing the package imports none of them, so `import nano` is instant and
never needs an API key. In a notebook it also imports the
given nano.diagnose, so that a saved nano/*.py that does not parse is named, file and line.
"""

import sys as _sys

if "IPython" in _sys.modules:
    from nano.diagnose import watch_notebook as _watch_notebook

    _watch_notebook()
