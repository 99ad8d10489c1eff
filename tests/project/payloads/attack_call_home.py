"""Attack `call-home` of test_sandbox.py's hostile class: connects to a local listener and to
example.com. Appended to the student's nano/protocol.py after attack_prelude.py, it runs when
the kernel imports it."""

import socket
for target in [("127.0.0.1", PORT), ("example.com", 80)]:
    try:
        socket.create_connection(target, timeout=3).close()
    except OSError:
        pass
