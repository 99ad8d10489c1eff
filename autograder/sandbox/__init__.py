"""The sandbox every piece of student code runs in: bubblewrap from the grader's side (bwrap.py)
and what runs first inside it, as root, before dropping to the sandbox's uid (inside.py); outside
it, what starts a sandbox in its CPU group (lowered.py) and stands in for a forked kernel (relay.py)."""
