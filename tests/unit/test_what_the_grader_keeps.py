"""What a hand-in sends the grader is kept up to a bound, whatever it sends: the Messages API
server a check runs (nano/server.py) reads at most its `max_read` bytes of request bodies in all,
and the kernels' own stderr reaches the student's log through a pipe (kernels.Drain), up to its
limit, so that no kernel holds a file of the course's disk."""

import ctypes
import json
import os
import urllib.error
import urllib.request

import pytest

from nano.server import MessagesServer


def post(url: str, body: bytes) -> int:
    request = urllib.request.Request(f"{url}/v1/messages", data=body, method="POST", headers={
        "x-api-key": "k", "anthropic-version": "2023-06-01", "content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.status
    except urllib.error.HTTPError as failed:
        return failed.code


def test_a_server_reads_its_bound_of_bodies_and_keeps_nothing_past_it():
    body = json.dumps({"model": "m", "max_tokens": 10, "messages": [[]] * 100_000}).encode()  # 400 KB
    with MessagesServer([], max_read=1_000_000) as server:
        statuses = [post(server.url, body) for _ in range(6)]
        kept = [request.body for request in server.requests]
    assert statuses[-1] == 413 and statuses[:2] != [413, 413], statuses
    assert len(kept) == 6 and all(body is None for body in kept[3:]), "past the bound, nothing is read or kept"


def test_the_kernels_stderr_is_a_pipe_copied_up_to_its_limit(tmp_path):
    from autograder.grading.kernels import Drain

    log = tmp_path / "kernels.log"
    drain = Drain(log, limit=1000)
    libc = ctypes.CDLL(None, use_errno=True)
    reserved = libc.fallocate(drain.fd, 1, ctypes.c_long(0), ctypes.c_long(1 << 30))  # FALLOC_FL_KEEP_SIZE
    assert reserved == -1, "a pipe has no blocks to reserve"
    child = os.fork()
    if child == 0:  # a kernel writing 5 MB to its stderr
        os.dup2(drain.fd, 2)
        for _ in range(50):
            os.write(2, b"x" * 100_000)
        os._exit(0)
    os.waitpid(child, 0)
    drain.say("[grading: a line of the grader's]")
    drain.close()
    assert not drain.thread.is_alive(), "the copy ends when every end is closed"
    assert log.stat().st_size == 1000 and log.read_bytes() == b"x" * 1000


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch):
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.setenv("no_proxy", "127.0.0.1")
