"""What runs outside the sandbox in place of bwrap, as root, when sandboxes run in cgroups of
their own (bwrap.cpu_group, bwrap.memory_group): `python -S -c SOURCE procs... -- argv...`
moves itself into each cgroup whose cgroup.procs file is named (one per hierarchy), then execs
`argv` (bwrap). Everything the sandbox starts is born in those cgroups, and nothing inside can
leave them: the cgroup filesystem is not in the sandbox's view, and its files are root's."""

import os
import sys

end = sys.argv.index("--")
for name in sys.argv[1:end]:
    procs = os.open(name, os.O_WRONLY)
    os.write(procs, b"0")  # 0: the writer itself
    os.close(procs)
os.execv(sys.argv[end + 1], sys.argv[end + 1:])
