"""nano: a small coding agent, built one lecture at a time.

Modules in dependency order: protocol (01), tools (02-03), gate (04), model and loop (05),
repl (06); testing and trace are given helpers. Importing the package imports none of them,
so `import nano` is instant and never needs an API key.
"""
