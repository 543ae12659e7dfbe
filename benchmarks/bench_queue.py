"""The lawyers' queue page with 5,000 open items, in PostgreSQL.

    DATABASE_URL=postgres://user@host:5432/any .venv/bin/python benchmarks/bench_queue.py
        [--items 5000] [--contracts 50] [--runs 20]

Target: `/queue/` answers in at most 300 ms p95 (Django's test Client, after a warm-up) for a
lawyer of three matters holding 5,000 open items between them, unfiltered and with the
filters a lawyer uses (a severity, a contract, grouping by contract, overdue, mine): each
view is timed ``--runs`` times and the p95 is over all of them. Items come with their rule
firings (a rule of the shipped playbook), a verification on every third passage, some claims,
some overdue. The data goes into a dedicated database, `clausewise_bench_queue`, created for
the run and dropped after. Skipped (exit 0, with a message) when DATABASE_URL is not PostgreSQL.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _postgres import in_own_database, postgres_url  # noqa: E402

BENCH_DB = "clausewise_bench_queue"
TARGET_P95_S = 0.300
PLAYBOOK = ROOT / "reviewapp" / "rules" / "playbooks" / "commercial-en.yaml"
CLAUSE = (
    "The Supplier shall not assign or transfer this Agreement, in whole or in part, without "
    "the prior written consent of the Customer, and the Customer shall receive pricing no less "
    "favourable than that offered to any other customer of the Supplier. "
)


def _rules() -> list[tuple[str, str, str]]:
    """(rule id, category, severity) of the shipped playbook's routing rules."""
    import yaml

    rules = yaml.safe_load(PLAYBOOK.read_text(encoding="utf-8"))["rules"]
    return [
        (r["id"], r["category"], r.get("severity", "medium"))
        for r in rules
        if not r.get("only_with")
    ]


def _people():
    from django.contrib.auth import get_user_model

    from reviewapp.accounts.models import Matter, Membership, Organisation, Role
    from reviewapp.rules.models import Playbook, PlaybookVersion

    users = get_user_model().objects
    org = Organisation.objects.create(name="Bench LLP")
    matters = [Matter.objects.create(organisation=org, name=f"Matter {n}") for n in range(3)]
    lawyer, colleague = users.create_user("lawyer", password="x"), users.create_user("colleague")
    for matter in matters:
        for user in (lawyer, colleague):
            Membership.objects.create(user=user, matter=matter, role=Role.LAWYER)
    playbook = Playbook.objects.create(organisation=org, name="bench", language="en")
    version = PlaybookVersion.objects.create(
        playbook=playbook, number=1, source=PLAYBOOK.read_text(encoding="utf-8")
    )
    return lawyer, colleague, matters, version


def _generate(items: int, contract_count: int) -> dict:
    """Contracts, passages, reviews, firings, verifications and open items, in bulk."""
    from django.conf import settings

    from reviewapp.contracts.models import Contract, DocumentStatus, Passage, PassageState
    from reviewapp.queue.models import ItemStatus, QueueItem
    from reviewapp.reviews.models import Review, RuleFiring, Verification, VerificationStatus

    rng = random.Random(7)
    lawyer, colleague, matters, version = _people()
    rules = _rules()
    per_contract = -(-items // contract_count)
    now = datetime.now(UTC)
    made = 0
    for c in range(contract_count):
        count = min(per_contract, items - made)
        if count <= 0:
            break
        text = "".join(f"{n + 1}. {CLAUSE}\n\n" for n in range(count * 2))
        contract = Contract.objects.create(
            matter=matters[c % len(matters)],
            original_name=f"Supply agreement {c:03d}.pdf",
            file=f"contracts/bench/{c}.pdf",
            sha256=f"{c:064d}",
            size=len(text),
            kind="pdf",
            status=DocumentStatus.INGESTED,
            text=text,
            page_count=max(1, count // 10),
            page_spans=[[0, len(text)]],
            progress=100,
        )
        review = Review.objects.create(
            contract=contract, playbook_version=version, status="BLOCKED", engine="offline"
        )
        step = len(CLAUSE) + 5
        passages = Passage.objects.bulk_create(
            Passage(
                contract=contract,
                index=n,
                page=1 + n // 20,
                start=n * step,
                end=n * step + step - 2,
                number=f"{n + 1}.",
                text=CLAUSE,
                state=(PassageState.REJECTED if n % 4 == 0 else PassageState.NEEDS_HUMAN_REVIEW)
                if n % 2 == 0
                else PassageState.CONFIRMED,
            )
            for n in range(count * 2)
        )
        flagged = [p for p in passages if p.state != PassageState.CONFIRMED]
        firings, verifications, queue = [], [], []
        for passage in flagged:
            for rule_id, category, severity in rng.sample(rules, 2):
                firings.append(
                    RuleFiring(
                        review=review,
                        passage=passage,
                        playbook_version=version,
                        rule_id=rule_id,
                        category=category,
                        action="reject" if passage.state == PassageState.REJECTED else "verify",
                        severity=severity,
                        match_start=passage.start + 4,
                        match_end=passage.start + 30,
                        passage_state=passage.state,
                        text_start=4,
                        text_end=30,
                    )
                )
            if passage.index % 3 == 0:
                verifications.append(
                    Verification(
                        review=review,
                        passage=passage,
                        rule_ids=[firings[-1].rule_id],
                        engine="offline",
                        status=VerificationStatus.DONE,
                        outcome=PassageState.NEEDS_HUMAN_REVIEW,
                        rationale="The clause departs from the playbook's position.",
                    )
                )
            category, severity = firings[-1].category, firings[-1].severity
            claimed = rng.random() < 0.1
            queue.append(
                QueueItem(
                    passage=passage,
                    review=review,
                    matter_id=contract.matter_id,
                    state=passage.state,
                    severity=severity,
                    category=category,
                    reason="NO_OFFLINE_VERDICT",
                    status=ItemStatus.CLAIMED if claimed else ItemStatus.OPEN,
                    claimed_by=rng.choice([lawyer, colleague]) if claimed else None,
                    claimed_at=now if claimed else None,
                    due_at=now
                    + timedelta(hours=settings.QUEUE_SLA_HOURS[severity] * rng.uniform(-0.5, 1)),
                )
            )
        RuleFiring.objects.bulk_create(firings, batch_size=2000)
        Verification.objects.bulk_create(verifications, batch_size=2000)
        QueueItem.objects.bulk_create(queue, batch_size=2000)
        made += len(queue)
    return {"lawyer": lawyer, "items": made, "contract": Contract.objects.order_by("pk").first()}


def _views(contract_id: int) -> list[str]:
    return [
        "",
        "severity=critical",
        "severity=high&group=contract",
        f"contract={contract_id}",
        "overdue=1&group=contract",
        "mine=1",
        "page=40",
    ]


def _measure(lawyer, contract_id: int, runs: int) -> dict[str, list[tuple[float, float]]]:
    from django.test import Client

    client = Client()
    client.force_login(lawyer)
    times: dict[str, list[tuple[float, float]]] = {}
    for query in _views(contract_id):
        url = f"/queue/?{query}"
        assert client.get(url).status_code == 200  # warm-up
        runs_of_view = []
        for _ in range(runs):
            started, cpu = time.perf_counter(), time.process_time()
            response = client.get(url)
            runs_of_view.append((time.perf_counter() - started, time.process_time() - cpu))
            assert response.status_code == 200, response.status_code
        times[query or "(no filter)"] = runs_of_view
    return times


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1]


def _report(times: dict[str, list[tuple[float, float]]], items: int) -> int:
    """Wall time is the target; the CPU time of this process (Django's side, without the
    database server) is printed beside it, because a shared machine inflates the former."""
    for view, pairs in times.items():
        wall, cpu = [w for w, _ in pairs], [c for _, c in pairs]
        print(
            f"  {view:32} p50 {statistics.median(wall) * 1000:4.0f} ms, "
            f"p95 {_p95(wall) * 1000:4.0f} ms (CPU p95 {_p95(cpu) * 1000:4.0f} ms)"
        )
    wall = [w for pairs in times.values() for w, _ in pairs]
    cpu = [c for pairs in times.values() for _, c in pairs]
    p95 = _p95(wall)
    verdict = "PASS" if p95 <= TARGET_P95_S else "MISS"
    print(
        f"/queue/ with {items:,} open items: p50 {statistics.median(wall) * 1000:.0f} ms, "
        f"p95 {p95 * 1000:.0f} ms, max {max(wall) * 1000:.0f} ms over {len(wall)} requests; "
        f"CPU p50 {statistics.median(cpu) * 1000:.0f} ms, p95 {_p95(cpu) * 1000:.0f} ms "
        f"(target p95 <= {TARGET_P95_S * 1000:.0f} ms): {verdict}",
        flush=True,
    )
    return 0 if verdict == "PASS" else 1


def _run(args: argparse.Namespace) -> int:
    from django.core.management import call_command

    call_command("migrate", "--no-input", verbosity=0)
    started = time.perf_counter()
    data = _generate(args.items, args.contracts)
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    print(
        f"generated {data['items']:,} open items in {time.perf_counter() - started:.0f} s",
        flush=True,
    )
    times = _measure(data["lawyer"], data["contract"].pk, args.runs)
    verdict = _report(times, data["items"])
    if args.attribute:  # the same views without the redline editor's panels, for comparison
        from reviewapp.reviews.redlines.panels import Panels
        from reviewapp.reviews.templatetags import redlines

        redlines.panels_for = lambda **_kwargs: Panels([])
        print("without the redline editor's panels (attribution only, not the target):")
        _report(_measure(data["lawyer"], data["contract"].pk, args.runs), data["items"])
    return verdict


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=5_000)
    parser.add_argument("--contracts", type=int, default=50)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument(
        "--attribute", action="store_true", help="also time the page without redline panels"
    )
    args = parser.parse_args()
    url = postgres_url()
    if url is None:
        return 0
    return in_own_database(url, BENCH_DB, lambda: _run(args))


if __name__ == "__main__":
    sys.exit(main())
