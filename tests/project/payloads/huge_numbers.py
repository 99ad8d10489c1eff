"""bash, for an otherwise perfect hand-in (test_unforgeable): a non-zero exit code is reported as
a number past Python's 4,300-digit int() limit, which once made a judge raise, and a raising
judge's cell kept nbgrader's pass. Its honest twin (a wrong exit code of a few digits) loses the
cell; so must this."""
import subprocess as _subprocess


def bash(command: str) -> str:
    done = _subprocess.run(command, shell=True, executable="/bin/bash", capture_output=True, text=True,
                           errors="replace", stdin=_subprocess.DEVNULL, timeout=BASH_TIMEOUT)  # noqa: F821
    code = "9" * 5000 if done.returncode else "0"
    return f"exit code: {code}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
