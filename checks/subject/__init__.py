"""The subject: where a hand-in's code runs when a rule drives it (harness.py), and the channel to it (wire.py)."""
