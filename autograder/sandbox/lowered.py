"""What runs outside the sandbox in place of bwrap, as root, when sandboxes run in a CPU group of
their own (bwrap.cpu_group): `python -S -c SOURCE procs argv...` moves itself into the cgroup
whose cgroup.procs file is `procs`, then execs `argv` (bwrap). Everything the sandbox starts is
born in that cgroup, and nothing inside can leave it: the cgroup filesystem is not in the
sandbox's view, and its files are root's."""

import os
import sys

procs = os.open(sys.argv[1], os.O_WRONLY)
os.write(procs, b"0")  # 0: the writer itself
os.close(procs)
os.execv(sys.argv[2], sys.argv[2:])
