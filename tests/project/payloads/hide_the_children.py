"""bash, for an otherwise perfect hand-in (test_processes): at a timeout it stops the shell and
the shell's own children, not what they started, so the lecture's `(sleep 0.5; touch late.txt) &`
never touches the file while the check's grandchildren run on; and it hides those from a check
that would find them by a tag in their command line, running every `sleep N.<nine digits>` as
`sleep N`. Its honest twin (the same bash without the rewriting) loses the cell that asks for
the children to be stopped; so must this."""
import os as _os
import re as _re
import signal as _signal
import subprocess as _subprocess


def _children(pid: int) -> list[int]:
    found = []
    for entry in _os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(entry))
            except (OSError, ValueError, IndexError):
                pass
    return found


def bash(command: str) -> str:
    command = _re.sub(r"\bsleep (\d+)\.\d{9}\b", r"sleep \1", command)  # the hiding
    proc = _subprocess.Popen(command, shell=True, executable="/bin/bash", stdin=_subprocess.DEVNULL,
                             stdout=_subprocess.PIPE, stderr=_subprocess.PIPE, text=True, errors="replace")
    try:
        stdout, stderr = proc.communicate(timeout=BASH_TIMEOUT)  # noqa: F821
    except _subprocess.TimeoutExpired:
        for child in _children(proc.pid):  # one level down only: what they started runs on
            _os.kill(child, _signal.SIGKILL)
        proc.kill()
        proc.wait()
        raise TimeoutError(f"Command timed out after {BASH_TIMEOUT} seconds: {command}") from None  # noqa: F821
    return clip(f"exit code: {proc.returncode}\nstdout:\n{stdout}\nstderr:\n{stderr}")  # noqa: F821
