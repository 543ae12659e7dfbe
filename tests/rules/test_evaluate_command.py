import json

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def test_evaluate_playbook_on_a_small_labelled_folder(tmp_path, capsys):
    text = (
        "1. Assignment. Neither party may assign this Agreement without consent.\n\n"
        "2. Price. Ten dollars.\n"
    )
    (tmp_path / "a.txt").write_text(text)
    start = text.index("Neither")
    end = text.index("consent.") + len("consent.")
    row = {
        "id": "a",
        "type": "Supply",
        "txt": "a.txt",
        "labels": {"Anti-Assignment": [[start, end]]},
    }
    (tmp_path / "labels.jsonl").write_text(json.dumps(row) + "\n")
    call_command("evaluate_playbook", str(tmp_path), "--format", "json")
    report = json.loads(capsys.readouterr().out)
    assert report["categories"]["Anti-Assignment"]["recall"] == 1.0


def test_evaluate_playbook_explains_missing_labels(tmp_path):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="labels.jsonl"):
        call_command("evaluate_playbook", str(tmp_path))


def test_evaluate_playbook_works_before_the_database_is_migrated(tmp_path, capsys, monkeypatch):
    from django.db import DatabaseError

    from reviewapp.rules.models import Playbook

    def no_table(*args, **kwargs):
        raise DatabaseError("no such table: rules_playbook")

    monkeypatch.setattr(Playbook.objects, "filter", no_table)
    test_evaluate_playbook_on_a_small_labelled_folder(tmp_path, capsys)
