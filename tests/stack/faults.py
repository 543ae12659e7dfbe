"""What the fault tests share: a Redis of their own they can stop, uploads over HTTP, and the
check that a batch ended with nothing left queued."""

from __future__ import annotations

import json
import signal
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from reviewapp.contracts.models import FAILED_STATUSES, Contract, DocumentStatus
from reviewapp.embedded import free_port, start_redis
from reviewapp.reviews.models import Draft, DraftStatus, Verification, VerificationStatus

# Short limits so the broker re-delivers a dead worker's task, and beat sweeps, within seconds.
FAST_RECOVERY = {
    "CELERY_TASK_TIME_LIMIT": "20",
    "CELERY_VISIBILITY_TIMEOUT": "21",
    "CELERY_UNACKED_RESTORE_INTERVAL": "1",
    "INGEST_PARSE_TIMEOUT_S": "15",
    "SWEEP_STALLED_AFTER_S": "10",
    "SWEEP_EVERY_S": "2",
    "SWEEP_MAX_ATTEMPTS": "4",
    "LIVE_CATCH_UP_S": "2",
}


class OwnRedis:
    """An embedded Redis with an append-only file, on a port that stays the same across a stop,
    so the processes that use it reconnect to it when it comes back."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process, self.url = start_redis(self.data_dir, self.port, persist=True)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)
        self.process = None

    def env(self) -> dict[str, str]:
        return {"REDIS_URL": self.url, "CELERY_BROKER_URL": self.url, **FAST_RECOVERY}


@contextmanager
def own_redis(data_dir: Path) -> Iterator[OwnRedis]:
    redis = OwnRedis(data_dir)
    redis.start()
    try:
        yield redis
    finally:
        redis.stop()


def upload(url: str, matter_id: int, token: str, name: str, body: bytes) -> tuple[int, dict]:
    """POST a file to the upload API as a client would; returns (status, JSON body)."""
    boundary = uuid.uuid4().hex
    payload = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n"
        ).encode()
        + body
        + f"\r\n--{boundary}--\r\n".encode()
    )
    request = urllib.request.Request(
        f"{url}/api/matters/{matter_id}/contracts/",
        data=payload,
        method="POST",
        headers={
            "Authorization": f"Token {token}",
            "Content-Type": f"multipart/form-data; boundary={boundary}",
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, {"body": error.read()[:2000].decode(errors="replace")}


def unfinished(contract_ids: list[int]) -> list[str]:
    """Each contract that is neither reviewed (draft done, no verification queued) nor failed."""
    problems = []
    for contract in Contract.objects.filter(pk__in=contract_ids).select_related("review"):
        if contract.status in FAILED_STATUSES:
            continue
        if contract.status != DocumentStatus.INGESTED:
            problems.append(f"{contract.original_name}: {contract.status}")
            continue
        review = getattr(contract, "review", None)
        if review is None:
            problems.append(f"{contract.original_name}: ingested, never scanned")
            continue
        draft = Draft.objects.filter(review=review).values_list("status", flat=True).first()
        if draft in (None, DraftStatus.QUEUED, DraftStatus.STREAMING):
            problems.append(f"{contract.original_name}: draft {draft}")
        queued = Verification.objects.filter(review=review, status=VerificationStatus.QUEUED)
        if queued.exists():
            problems.append(f"{contract.original_name}: {queued.count()} verifications queued")
    missing = set(contract_ids) - set(
        Contract.objects.filter(pk__in=contract_ids).values_list("pk", flat=True)
    )
    problems += [f"contract {pk} is gone" for pk in sorted(missing)]
    return problems


def wait_for_all_finished(contract_ids: list[int], timeout_s: float) -> list[str]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not unfinished(contract_ids):
            return []
        time.sleep(1)
    return unfinished(contract_ids)
