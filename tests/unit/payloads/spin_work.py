"""A hand-in's function that needs CPU time, for the driver's clock (tests/unit/test_driver_clock.py)."""

import time


def spin(cpu: float) -> float:
    """Run until this process has used `cpu` more CPU-seconds; return `cpu`."""
    end = time.process_time() + cpu
    while time.process_time() < end:
        pass
    return cpu
