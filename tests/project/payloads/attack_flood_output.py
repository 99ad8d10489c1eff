"""Attack `flood-output` of test_sandbox.py's hostile class: prints 2 GB, a message a line.
Appended to the student's nano/protocol.py after attack_prelude.py, it runs when the kernel
imports it."""

for _ in range(2000):  # 2 GB, a message each
    print("x" * 1_000_000, flush=True)
