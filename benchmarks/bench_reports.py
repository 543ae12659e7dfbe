"""The admins' reports page over a year of a large firm's history, in PostgreSQL.

    DATABASE_URL=postgres://user@host:5432/any .venv/bin/python benchmarks/bench_reports.py
        [--contracts 10000] [--passages 1000000] [--runs 20]

Target: the full `/reports/` view for a one-year period answers in at most 1 s p95 (Django's test
Client, after a warm-up), with 10,000 contracts and 1,000,000 passages spread over the past year,
plus proportional rule firings, verifications, queue items and model calls. The data is generated
with a fixed seed and loaded with COPY into a dedicated database, `clausewise_bench_reports`,
created for the run and dropped after. Skipped (exit 0, with a message) when DATABASE_URL is not
PostgreSQL.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _postgres import bench_url, in_own_database, postgres_url  # noqa: E402

BENCH_DB = "clausewise_bench_reports"
TARGET_P95_S = 1.0
MATTERS, REVIEWERS, LAWYERS = 20, 30, 12
PLAYBOOK = ROOT / "reviewapp" / "rules" / "playbooks" / "commercial-en.yaml"


def _shipped_rules() -> list[tuple[str, str]]:
    """Rule ids and categories of the shipped playbook's routing rules (the firings' mix)."""
    import yaml

    rules = yaml.safe_load(PLAYBOOK.read_text(encoding="utf-8"))["rules"]
    return [(r["id"], r["category"]) for r in rules if not r.get("only_with")]


RULES = _shipped_rules()
WORDS = tuple(
    [
        "the",
        "party",
        "shall",
        "not",
        "assign",
        "this",
        "agreement",
        "without",
        "prior",
        "written",
        "consent",
    ]
)


def _people_and_matters():
    """An organisation, its matters and people, and a playbook version, through the ORM."""
    from django.contrib.auth import get_user_model

    from reviewapp.accounts.models import Matter, Membership, Organisation, Role
    from reviewapp.rules.models import Playbook, PlaybookVersion

    users = get_user_model().objects
    org = Organisation.objects.create(name="Big Firm LLP")
    matters = [Matter.objects.create(organisation=org, name=f"Matter {n}") for n in range(MATTERS)]
    admin = users.create_user("admin", password="x")
    reviewers = [users.create_user(f"reviewer{n}", password="x") for n in range(REVIEWERS)]
    lawyers = [users.create_user(f"lawyer{n}", password="x") for n in range(LAWYERS)]
    for matter in matters:
        Membership.objects.create(user=admin, matter=matter, role=Role.ADMIN)
        Membership.objects.bulk_create(
            [Membership(user=u, matter=matter, role=Role.REVIEWER) for u in reviewers[:5]]
            + [Membership(user=u, matter=matter, role=Role.LAWYER) for u in lawyers[:4]]
        )
    playbook = Playbook.objects.create(organisation=org, name="bench", language="en")
    version = PlaybookVersion.objects.create(
        playbook=playbook, number=1, source=PLAYBOOK.read_text(encoding="utf-8")
    )
    return admin, matters, reviewers, lawyers, version


def _contracts_and_reviews(count: int, matters, reviewers, version, now: datetime):
    from reviewapp.contracts.models import Contract
    from reviewapp.reviews.models import Review

    rng = random.Random(1)
    uploaded = [now - timedelta(seconds=rng.uniform(0, 365 * 86400)) for _ in range(count)]
    contracts = Contract.objects.bulk_create(
        [
            Contract(
                matter=matters[n % len(matters)],
                uploaded_by=reviewers[n % len(reviewers)],
                original_name=f"contract-{n}.pdf",
                file=f"contracts/bench/{n}",
                sha256=f"{n:064x}",
                size=100_000,
                kind="pdf",
                status="INGESTED",
                progress=100,
                page_count=10,
            )
            for n in range(count)
        ],
        batch_size=2000,
    )
    reviews = Review.objects.bulk_create(
        [
            Review(
                contract=contract,
                playbook_version=version,
                status="IN_REVIEW",
                engine="anthropic" if n % 3 == 0 else "offline",
            )
            for n, contract in enumerate(contracts)
        ],
        batch_size=2000,
    )
    for contract, review, at in zip(contracts, reviews, uploaded, strict=True):
        contract.created_at = at
        review.created_at = at + timedelta(seconds=30)
    Contract.objects.bulk_update(contracts, ["created_at"], batch_size=2000)
    Review.objects.bulk_update(reviews, ["created_at"], batch_size=2000)
    return contracts, reviews


class Generator:
    """Passages and everything that happened to them, as rows for COPY."""

    def __init__(self, contracts, reviews, lawyers, version_id: int, passages: int, now):
        self.rng = random.Random(2)
        self.contracts, self.reviews, self.lawyers = contracts, reviews, lawyers
        self.version_id, self.now = version_id, now
        self.per_contract = passages // len(contracts)
        self.passage_count = self.last_length = 0
        self.pool = " ".join(self.rng.choices(WORDS, k=200_000))
        self.firings: list[tuple] = []
        self.verifications: list[tuple] = []
        self.items: list[tuple] = []
        self.calls: list[tuple] = []
        self.review_status: dict[int, tuple] = {}

    def run(self, write_passage: Callable[[tuple], None]) -> None:
        self.write_passage = write_passage
        passage_id = 0
        for contract, review in zip(self.contracts, self.reviews, strict=True):
            open_work, chars = False, 0
            for index in range(self.per_contract):
                passage_id += 1
                open_work |= self._passage(passage_id, index, contract, review)
                chars += self.last_length
            self._calls(review)
            finished = review.created_at + timedelta(hours=self.rng.uniform(1, 200))
            done = not open_work and finished < self.now
            status = ("COMPLETE", finished) if done else ("BLOCKED", None)
            self.review_status[review.pk] = (*status, self.per_contract, chars)
        self.passage_count = passage_id

    def _passage(self, pk: int, index: int, contract, review) -> bool:
        rng = self.rng
        length = self.last_length = rng.randint(60, 700)
        offset = rng.randrange(len(self.pool) - length)
        text = self.pool[offset : offset + length]
        flagged = rng.random() < 0.15
        state = "CONFIRMED"
        if flagged:
            state = self._flagged(pk, review, length)
        self.write_passage((pk, contract.pk, index, 1 + index // 10, 0, length, text, state))
        return state in ("PENDING", "NEEDS_HUMAN_REVIEW", "REJECTED")

    def _flagged(self, pk: int, review, length: int) -> str:
        rng = self.rng
        rules = rng.sample(RULES, 2 if rng.random() < 0.2 else 1)
        rule_reject = rng.random() < 0.05
        state = self._outcome(pk, review, rule_reject)
        for n, (rule_id, category) in enumerate(rules):
            action = "reject" if rule_reject else "verify"
            self.firings.append(
                (review.pk, pk, self.version_id, rule_id, category, action, 0, 5)
                + (state, length, n == 0)  # the passage's state and length, as the scan keeps them
            )
        return state

    def _outcome(self, pk: int, review, rule_reject: bool) -> str:
        rng = self.rng
        if rule_reject:
            return self._item(pk, review, "REJECTED")
        outcome = rng.choices(
            ["CONFIRMED", "REJECTED", "NEEDS_HUMAN_REVIEW", ""], [0.55, 0.15, 0.25, 0.05]
        )[0]
        done_at = review.created_at + timedelta(minutes=rng.uniform(1, 30))
        self.verifications.append(
            (review.pk, pk, review.engine, "DONE" if outcome else "QUEUED", outcome, done_at)
        )
        if outcome in ("REJECTED", "NEEDS_HUMAN_REVIEW"):
            return self._item(pk, review, outcome)
        return outcome or "PENDING"

    def _item(self, pk: int, review, state: str) -> str:
        rng = self.rng
        opened = review.created_at + timedelta(minutes=rng.uniform(1, 60))
        due = opened + timedelta(hours=rng.choice([4, 24, 72]))
        lawyer = rng.choice(self.lawyers).pk
        decided_at = opened + timedelta(hours=rng.expovariate(1 / 20))
        if decided_at > self.now or rng.random() < 0.1:
            escalated = due if due < self.now else None
            self._item_row(pk, review, state, "CLAIMED", lawyer, None, "", due, escalated, opened)
            return state
        decision = "accept" if rng.random() < 0.3 else "reject"
        self._item_row(pk, review, state, "DONE", lawyer, decided_at, decision, due, None, opened)
        return "CONFIRMED" if decision == "accept" else "REJECTED"

    def _item_row(
        self, pk, review, state, status, lawyer, decided_at, decision, due, escalated, opened
    ) -> None:
        matter_id = review.contract.matter_id
        decider = lawyer if decided_at else None
        self.items.append(
            (
                pk,
                review.pk,
                matter_id,
                state,
                "high",
                "",
                status,
                lawyer,
                opened,
                decider,
                decision,
                "",
                due,
                escalated,
                opened,
                decided_at,
            )
        )

    def _calls(self, review) -> None:
        if review.engine != "anthropic":
            return
        for purpose in ["draft"] + ["verify"] * self.rng.randint(1, 12):
            tokens = [self.rng.randint(100, 20000) for _ in range(4)]
            cost = sum(tokens) * 3 / 1_000_000
            self.calls.append(
                (review.pk, purpose, "claude-bench", *tokens, cost, review.created_at)
            )


def _copy(cursor, table: str, columns: str, rows: Iterator[tuple] | list[tuple]) -> None:
    with cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def _load(url: str, g: Generator) -> None:
    import psycopg

    from reviewapp.queue.models import QueueItem

    with psycopg.connect(url) as conn, conn.cursor() as cursor:
        columns = (
            'id, contract_id, index, page, start, "end", text, number, heading, is_heading, '
            "from_ocr, state"
        )
        with cursor.copy(f"COPY contracts_passage ({columns}) FROM STDIN") as copy:
            g.run(lambda row: copy.write_row((*row[:7], "", "", False, False, row[7])))
        _copy(
            cursor,
            "reviews_rulefiring",
            "review_id, passage_id, playbook_version_id, rule_id, category, action, severity, "
            "match_start, match_end, passage_state, passage_chars, passage_first, words, "
            "check_features, dropped",
            ((*row[:6], "high", *row[6:], "[]", "[]", False) for row in g.firings),
        )
        _copy(
            cursor,
            "reviews_verification",
            "review_id, passage_id, rule_ids, engine, status, outcome, risk, rationale, quote, "
            "redline, question, reason, model, attempts, created_at, completed_at",
            (
                (
                    r,
                    p,
                    "[]",
                    e,
                    s,
                    o,
                    "",
                    "",
                    "",
                    "",
                    "",
                    "",
                    "",
                    1,
                    at,
                    at if s == "DONE" else None,
                )
                for r, p, e, s, o, at in g.verifications
            ),
        )
        _copy(
            cursor,
            QueueItem._meta.db_table,
            "passage_id, review_id, matter_id, state, severity, reason, status, claimed_by_id, "
            "claimed_at, decided_by_id, decision, note, due_at, escalated_at, created_at, "
            "decided_at, category, categories, decisions",
            ((*row, "", "[]", "{}") for row in g.items),
        )
        _copy(
            cursor,
            "reviews_modelcall",
            "review_id, purpose, model, input_tokens, output_tokens, cache_read_input_tokens, "
            "cache_creation_input_tokens, latency_ms, outcome, cost_usd, created_at",
            ((*row[:7], 900.0, "ok", *row[7:]) for row in g.calls),
        )
        cursor.execute("SELECT setval('contracts_passage_id_seq', %s)", [g.passage_count])
        conn.commit()
    _set_review_status(url, g)


def _set_review_status(url: str, g: Generator) -> None:
    import psycopg

    with psycopg.connect(url) as conn, conn.cursor() as cursor:
        cursor.execute(
            "CREATE TEMP TABLE bench_status (id int, status text, completed_at timestamptz, "
            "passages int, chars bigint)"
        )
        _copy(
            cursor,
            "bench_status",
            "id, status, completed_at, passages, chars",
            ((pk, *row) for pk, row in g.review_status.items()),
        )
        cursor.execute(
            "UPDATE reviews_review r SET status = s.status, completed_at = s.completed_at, "
            "passage_count = s.passages, char_count = s.chars FROM bench_status s WHERE r.id = s.id"
        )
        conn.commit()
        conn.autocommit = True
        cursor.execute("VACUUM ANALYZE")


def _pass_second_factor(client, admin) -> None:
    """Reports are for admins, who sign in with a second factor: the session passed it."""
    from django_otp import DEVICE_ID_SESSION_KEY
    from django_otp.plugins.otp_totp.models import TOTPDevice

    device, _ = TOTPDevice.objects.get_or_create(
        user=admin, name="benchmark", defaults={"confirmed": True}
    )
    session = client.session
    session[DEVICE_ID_SESSION_KEY] = device.persistent_id
    session.save()


def _measure(admin, runs: int, now: datetime) -> list[float]:
    from django.test import Client

    client = Client()
    client.force_login(admin)
    _pass_second_factor(client, admin)
    query = {
        "date_from": (now - timedelta(days=364)).date().isoformat(),
        "date_to": now.date().isoformat(),
    }
    for _ in range(2):  # warm-up
        assert client.get("/reports/", query).status_code == 200
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        response = client.get("/reports/", query)
        times.append(time.perf_counter() - started)
        assert response.status_code == 200, response.status_code
    return times


def _run(url: str, args: argparse.Namespace) -> int:
    from django.core.management import call_command

    call_command("migrate", "--no-input", verbosity=0)
    now = datetime.now(UTC)
    if args.reuse:
        from django.contrib.auth import get_user_model

        print("reusing the kept data", flush=True)
        return _report_times(get_user_model().objects.get(username="admin"), args.runs, now)
    started = time.perf_counter()
    admin, matters, reviewers, lawyers, version = _people_and_matters()
    contracts, reviews = _contracts_and_reviews(args.contracts, matters, reviewers, version, now)
    generator = Generator(contracts, reviews, lawyers, version.pk, args.passages, now)
    _load(url, generator)
    print(
        f"generated {len(contracts):,} contracts, {generator.passage_count:,} passages, "
        f"{len(generator.firings):,} firings, {len(generator.verifications):,} verifications, "
        f"{len(generator.items):,} queue items, {len(generator.calls):,} model calls "
        f"in {time.perf_counter() - started:.0f} s",
        flush=True,
    )
    del generator
    return _report_times(admin, args.runs, now)


def _report_times(admin, runs: int, now: datetime) -> int:
    times = _measure(admin, runs, now)
    p50 = statistics.median(times)
    p95 = statistics.quantiles(times, n=20, method="inclusive")[-1]
    verdict = "PASS" if p95 <= TARGET_P95_S else "MISS"
    print(
        f"/reports/ over one year: p50 {p50 * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, "
        f"max {max(times) * 1000:.0f} ms over {len(times)} runs "
        f"(target p95 <= {TARGET_P95_S * 1000:.0f} ms): {verdict}"
    )
    return 0 if verdict == "PASS" else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contracts", type=int, default=10_000)
    parser.add_argument("--passages", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--keep", action="store_true", help="keep the database for a look")
    parser.add_argument(
        "--reuse", action="store_true", help="measure again on the data a --keep run left"
    )
    args = parser.parse_args()
    url = postgres_url()
    if url is None:
        return 0
    return in_own_database(
        url,
        BENCH_DB,
        lambda: _run(bench_url(url, BENCH_DB), args),
        create=not args.reuse,
        keep=args.keep or args.reuse,
    )


if __name__ == "__main__":
    sys.exit(main())
