from __future__ import annotations

import os

from reviewapp import redis_pool
from reviewapp.redis_pool import redis_client


def test_every_caller_in_a_process_shares_one_client():
    assert redis_client() is redis_client()
    assert redis_client().ping()


def test_a_forked_child_gets_its_own_client():
    parent = redis_client()

    redis_pool._forget_after_fork()  # what os.register_at_fork runs in the child

    child = redis_client()
    assert child is not parent and child is redis_client()
    assert child.ping()


def test_a_real_fork_does_not_reuse_the_parents_client():
    parent = redis_client()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report and leave without running pytest's clean-up
        try:
            fresh = redis_client() is not parent and bool(redis_client().ping())
            os.write(write_end, b"fresh" if fresh else b"shared")
        finally:
            os._exit(0)
    os.close(write_end)
    os.waitpid(pid, 0)
    with os.fdopen(read_end, "rb") as answer:
        assert answer.read() == b"fresh"
    assert redis_client() is parent
