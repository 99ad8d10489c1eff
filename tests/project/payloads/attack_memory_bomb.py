"""Attack `memory-bomb` of test_sandbox.py's hostile class: allocates 64 MB at a time until the
memory limit stops it. Appended to the student's nano/protocol.py after attack_prelude.py, it
runs when the kernel imports it."""

hoard = []
while True:
    hoard.append(b"x" * (64 << 20))
