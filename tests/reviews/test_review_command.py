from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from tests.text import hostile_files as hf

pytestmark = pytest.mark.django_db

FIELDS = {
    "document",
    "status",
    "error",
    "pages",
    "chars",
    "contract_type",
    "passages",
    "timings_ms",
}
PASSAGE_FIELDS = {"index", "page", "start", "end", "state", "categories", "rules"}


def run_review(capsys, *args):
    code = 0
    try:
        call_command("review", *args)
    except SystemExit as exit_:
        code = exit_.code
    out = capsys.readouterr().out
    return code, out


def test_review_prints_one_json_object_per_document_and_goes_on_after_bad_ones(capsys, tmp_path):
    folder = tmp_path / "in"
    (folder / "sub").mkdir(parents=True)
    hf.make_text_pdf(folder)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    hf.make_truncated_pdf(scratch).rename(folder / "sub" / "truncated.pdf")
    text = "1. Assignment. Neither party may assign this Agreement without consent.\n"
    (folder / "sub" / "note.txt").write_text(text)
    code, out = run_review(capsys, str(folder), str(tmp_path / "missing.pdf"), "--with-text")
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 1
    by_name = {record["document"].rsplit("/", 1)[-1]: record for record in records}
    assert set(by_name) == {"contract.pdf", "truncated.pdf", "note.txt", "missing.pdf"}
    for record in records:
        assert set(record) >= FIELDS
    good = by_name["contract.pdf"]
    assert good["status"] == "INGESTED" and good["error"] is None and good["pages"] >= 1
    assert all(PASSAGE_FIELDS | {"text"} <= set(p) for p in good["passages"])
    assert by_name["truncated.pdf"]["error"]["code"] == "PARSE_FAILED"
    assert by_name["missing.pdf"]["error"]["code"] == "NOT_FOUND"
    note = by_name["note.txt"]["passages"]
    assert note[0]["text"] == text.strip()
    assert note[0]["trigger_state"] == "PENDING"
    assert note[0]["state"] in {"CONFIRMED", "REJECTED", "NEEDS_HUMAN_REVIEW"}
    assert note[0]["verification"]["engine"] == "offline"
    assert note[0]["verification"]["outcome"] == note[0]["state"]
    draft = by_name["note.txt"]["draft"]
    assert draft["engine"] == "offline" and draft["status"] == "COMPLETE"
    assert draft["issues"][0]["passage"] == 0
    assert by_name["note.txt"]["model_calls"] == []
    assert "Anti-Assignment" in note[0]["categories"]
    assert note[0]["rules"]


def test_review_table_format_and_exit_zero_when_all_good(capsys, tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("1. Price. The price is ten dollars.\n")
    code, out = run_review(capsys, str(path), "--format", "table")
    assert code == 0
    assert out.splitlines()[0].startswith("STATUS")
    assert "INGESTED" in out.splitlines()[1]


def test_review_without_text_omits_it(capsys, tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("1. Price. The price is ten dollars.\n")
    _, out = run_review(capsys, str(path))
    assert "text" not in json.loads(out)["passages"][0]


def test_anthropic_engine_without_key_is_explained(capsys, tmp_path, monkeypatch):
    from django.core.management.base import CommandError

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(CommandError, match="ANTHROPIC_API_KEY"):
        call_command("review", str(tmp_path), "--engine", "anthropic")


def test_review_runs_standalone_without_redis_or_web_server(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL")}
    env.update(
        DJANGO_SETTINGS_MODULE="reviewapp.settings.local",
        CLAUSEWISE_VAR_DIR=str(tmp_path / "var"),
        DATABASE_URL=f"sqlite:///{tmp_path / 'cli.sqlite3'}",
    )
    contract = tmp_path / "a.txt"
    contract.write_text("1. Assignment. Neither party may assign this Agreement without consent.\n")
    manage = [sys.executable, str(root / "manage.py")]
    subprocess.run([*manage, "migrate", "-v0"], env=env, check=True, timeout=120)
    done = subprocess.run(
        [*manage, "review", str(contract)], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    record = json.loads(done.stdout)
    assert record["status"] == "INGESTED"
    assert record["draft"]["status"] == "COMPLETE"


def test_a_document_known_from_an_anthropic_run_finishes_with_the_offline_engine(
    capsys, tmp_path, settings
):
    """The same file was reviewed earlier with Claude, which could not be reached: its draft
    failed and its checks are still queued. `--engine offline` (no key) finishes it offline."""
    from reviewapp.contracts.models import Passage
    from reviewapp.reviews.models import Draft, DraftStatus, Review, Verification

    document = tmp_path / "msa.txt"
    document.write_text(
        "1. Assignment. Neither party may assign this Agreement without consent.\n"
        "2. Notices. Notices shall be in writing.\n",
        encoding="utf-8",
    )
    code, _ = run_review(capsys, str(document), "--engine", "offline")
    assert code == 0
    review = Review.objects.get()
    # What an unreachable Claude leaves behind:
    Review.objects.filter(pk=review.pk).update(engine="anthropic")
    Draft.objects.filter(review=review).update(status=DraftStatus.FAILED, engine="anthropic")
    Verification.objects.filter(review=review).update(
        status="QUEUED", engine="anthropic", outcome=""
    )
    Passage.objects.filter(verification__review=review).update(state="PENDING")
    settings.ANTHROPIC_API_KEY = ""

    code, out = run_review(capsys, str(document), "--engine", "offline")
    [record] = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and record["status"] == "INGESTED", record
    review.refresh_from_db()
    assert review.engine == "offline"
    assert Draft.objects.get(review=review).status == DraftStatus.COMPLETE
    assert not Verification.objects.filter(review=review, status="QUEUED").exists()


def test_one_document_that_breaks_is_its_own_error_record(capsys, tmp_path, monkeypatch):
    from reviewapp.reviews.management.commands import review as command

    good, bad = tmp_path / "a-good.txt", tmp_path / "b-bad.txt"
    good.write_text("1. Assignment. Neither party may assign this Agreement.\n", encoding="utf-8")
    bad.write_text("1. Notices. Notices shall be in writing.\n", encoding="utf-8")
    real = command.contract_ingest

    def flaky(**kwargs):
        from reviewapp.contracts.models import Contract

        if Contract.objects.get(pk=kwargs["contract_id"]).original_name == "b-bad.txt":
            raise ValueError("LLMSettings.api_key is empty")
        return real(**kwargs)

    monkeypatch.setattr(command, "contract_ingest", flaky)
    code, out = run_review(capsys, str(bad), str(good))
    records = {r["document"].rsplit("/", 1)[-1]: r for r in map(json.loads, out.splitlines())}
    assert code == 1
    assert records["b-bad.txt"]["error"]["code"] == "REVIEW_FAILED"
    assert "api_key is empty" in records["b-bad.txt"]["error"]["message"]
    assert records["a-good.txt"]["status"] == "INGESTED"


def test_review_on_a_fresh_clone_sets_up_the_local_database(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    document = tmp_path / "nda.txt"
    document.write_text("1. Confidentiality. Each party shall keep secrets.\n", encoding="utf-8")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "reviewapp.settings.local",
        "CLAUSEWISE_VAR_DIR": str(tmp_path / "var"),
        "REDIS_URL": "",
        "DATABASE_URL": "",
        "REVIEW_ENGINE": "offline",
    }
    env.pop("ANTHROPIC_API_KEY", None)
    done = subprocess.run(
        [sys.executable, "manage.py", "review", str(document)],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.splitlines()[-1])["status"] == "INGESTED"
    assert "Setting up the local database" in done.stderr
