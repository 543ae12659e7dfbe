"""The embedded Redis of `make run` keeps its data across a restart (append-only file)."""

from __future__ import annotations

import redis

from reviewapp.embedded import _stop, free_port, start_redis


def test_a_restarted_embedded_redis_still_holds_the_queue(tmp_path):
    port = free_port()
    process, url = start_redis(tmp_path / "redis", port, persist=True)
    try:
        redis.Redis.from_url(url).rpush("celery", b"task-1", b"task-2")
    finally:
        _stop(process)
    process, url = start_redis(tmp_path / "redis", port, persist=True)
    try:
        assert redis.Redis.from_url(url).lrange("celery", 0, -1) == [b"task-1", b"task-2"]
    finally:
        _stop(process)
    assert any((tmp_path / "redis").rglob("*.aof*"))
