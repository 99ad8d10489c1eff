"""Run on its own in a sandbox (test_processes): it leaves processes that a look at command
lines, at its own children or at its session would miss: a sleep renamed `innocent`, in a session
of its own; a sleep whose parent has ended; a sleep in a user and pid namespace of its own (where
the kernel lets the sandbox make one). Then it says "left" on stdout and waits."""
import os
import subprocess
import time

subprocess.Popen(["bash", "-c", "exec -a innocent sleep 30"], start_new_session=True)
if os.fork() == 0:
    subprocess.Popen(["sleep", "30"], start_new_session=True)
    os._exit(0)
os.wait()
subprocess.Popen(["unshare", "--user", "--map-root-user", "--pid", "--fork", "sleep", "30"], stderr=subprocess.DEVNULL)
time.sleep(1)
print("left", flush=True)
time.sleep(30)
