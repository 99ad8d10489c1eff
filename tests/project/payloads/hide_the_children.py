"""bash, for an otherwise perfect hand-in (test_processes): at a timeout it stops only the shell,
leaving what the command started running, and it hides those from a check that would find them
by their command line, running every `sleep N.<digits>` as `sleep N`. Its honest twin (the same
bash without the rewriting) loses the cell that asks for the children to be stopped; so must this."""
import re as _re
import subprocess as _subprocess


def bash(command: str) -> str:
    command = _re.sub(r"\bsleep (\d+)\.\d+", r"sleep \1", command)  # the hiding
    proc = _subprocess.Popen(command, shell=True, executable="/bin/bash", stdin=_subprocess.DEVNULL,
                             stdout=_subprocess.PIPE, stderr=_subprocess.PIPE, text=True, errors="replace")
    try:
        stdout, stderr = proc.communicate(timeout=BASH_TIMEOUT)  # noqa: F821
    except _subprocess.TimeoutExpired:
        proc.kill()  # the shell only: what it started runs on
        proc.wait()
        raise TimeoutError(f"Command timed out after {BASH_TIMEOUT} seconds: {command}") from None  # noqa: F821
    return clip(f"exit code: {proc.returncode}\nstdout:\n{stdout}\nstderr:\n{stderr}")  # noqa: F821
