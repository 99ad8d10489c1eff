"""Attack `flood-output` of test_sandbox.py's hostile class, appended to the student's
nano/protocol.py after attack_prelude.py: it runs when the kernel imports it.

It looks for the kernel's own stderr as a file it could reserve disk space in (fallocate with
FALLOC_FL_KEEP_SIZE is not bounded by the file-size limit) and says whether it found one; then
past the notebook's output limit, it sends a hundred thousand error messages of its own, each of
which a grader that kept them all would add; then it prints 2 GB, a message a line. `os` comes
from the prelude."""

import stat
import sys

from IPython import get_ipython

held = [fd for fd in map(int, os.listdir("/proc/self/fd"))
        if os.path.exists(f"/proc/self/fd/{fd}") and stat.S_ISREG(os.stat(f"/proc/self/fd/{fd}").st_mode)
        and os.readlink(f"/proc/self/fd/{fd}").endswith("kernels.log")]
print(f"KERNEL STDERR IS A FILE: {bool(held)}", flush=True)

print("x" * 1_100_000, flush=True)  # past the notebook's output limit
kernel = get_ipython().kernel
content = {"ename": "E" * 200, "evalue": "v" * 2000, "traceback": []}
for _ in range(100_000):
    kernel.session.send(kernel.iopub_socket, "error", content, parent=kernel.get_parent(), ident=b"error")
sys.stdout.flush()

for _ in range(2000):  # 2 GB, a message each
    print("x" * 1_000_000, flush=True)
