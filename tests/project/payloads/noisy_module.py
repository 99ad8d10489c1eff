"""A student module whose function writes to stdout and stderr before it answers (test_verify.py
writes it as nano/m.py: the check's runner must keep the noise out of what it observes)."""

import sys


def twice(x):
    print('noise')
    print('more', file=sys.stderr)
    return 2 * x
