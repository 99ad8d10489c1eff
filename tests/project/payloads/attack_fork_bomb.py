"""Attack `fork-bomb` of test_sandbox.py's hostile class: forks until the process limit stops it,
each child sleeping an hour. Appended to the student's nano/protocol.py after attack_prelude.py,
it runs when the kernel imports it."""

import time
forks = 0
try:
    while forks < 100_000:
        if os.fork() == 0:
            time.sleep(3600)
            os._exit(0)
        forks += 1
except OSError:
    pass
