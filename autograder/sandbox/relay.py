"""What runs outside the sandbox in place of a kernel forked by a zygote (bwrap.Zygote.spawn):
`python -S -c SOURCE fd` waits on the kernel's line and exits with its status; killed, it closes
the line and the zygote kills the kernel. jupyter_client manages it as the kernel's process."""

import os
import sys

try:
    status = os.read(int(sys.argv[1]), 16)
except OSError:
    status = b""
sys.exit(int(status) if status.isdigit() else 1)
