"""Run as a module forked from a kernel zygote: says it started, then sleeps (test_sandbox.py
kills its relay and checks that it dies too)."""

import time

open('started', 'w').close()
time.sleep(600)
