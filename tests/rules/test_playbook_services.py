import pytest

from reviewapp.accounts.models import Organisation
from reviewapp.rules.models import Playbook, PlaybookVersion
from reviewapp.rules.services import (
    PlaybookInvalid,
    playbook_activate,
    playbook_copy,
    playbook_sync_defaults,
    playbook_version_create,
    playbook_version_for,
)

pytestmark = pytest.mark.django_db

MINIMAL = """
name: {name}
version: "1"
language: en
rules:
  - id: en.test.notice
    category: Anti-Assignment
    severity: medium
    action: verify
    patterns: ['{pattern}']
"""


def test_shipped_playbooks_load_once_and_again_only_when_changed():
    # ``migrate`` loaded them (post_migrate): loading again changes nothing.
    shipped = Playbook.objects.filter(organisation=None)
    assert set(shipped.values_list("name", flat=True)) >= {"commercial-en", "commercial-zh"}
    assert playbook_sync_defaults() == []
    assert PlaybookVersion.objects.filter(playbook__name="commercial-en").count() == 1


@pytest.mark.django_db(transaction=True)
def test_migrate_loads_a_changed_shipped_playbook_as_a_new_version(tmp_path, monkeypatch):
    from django.core.management import call_command

    from reviewapp.rules import services

    call_command("migrate", verbosity=0)  # a fresh database after the flush: version 1
    shipped = services.DEFAULTS_DIR / "commercial-en.yaml"
    changed = shipped.read_text(encoding="utf-8").replace(
        "description: Price or terms parity", "description: Price parity", 1
    )
    (tmp_path / "commercial-en.yaml").write_text(changed, encoding="utf-8")
    monkeypatch.setattr(services, "DEFAULTS_DIR", tmp_path)
    call_command("migrate", verbosity=0)  # what every start and deploy runs
    versions = PlaybookVersion.objects.filter(playbook__name="commercial-en").order_by("number")
    assert [v.number for v in versions] == [1, 2]
    assert versions[1].source == changed


def test_every_edit_is_a_new_version_and_old_versions_stay():
    playbook_sync_defaults()
    org = Organisation.objects.create(name="Firm")
    copy = playbook_copy(
        playbook=Playbook.objects.get(name="commercial-en"), organisation=org, name="ours"
    )
    edited = playbook_version_create(
        playbook=copy, source=MINIMAL.format(name="ours", pattern="assign")
    )
    assert edited.number == 2
    assert list(copy.versions.values_list("number", flat=True)) == [2, 1]
    assert "commercial-en" not in edited.source


def test_lint_refuses_backtracking_constructs_on_save():
    org = Organisation.objects.create(name="Firm")
    playbook_sync_defaults()
    copy = playbook_copy(
        playbook=Playbook.objects.get(name="commercial-en"), organisation=org, name="ours"
    )
    with pytest.raises(PlaybookInvalid) as invalid:
        playbook_version_create(
            playbook=copy, source=MINIMAL.format(name="ours", pattern="(a+)\\1")
        )
    assert any("en.test.notice" in problem for problem in invalid.value.problems)
    assert copy.versions.count() == 1


def test_broken_yaml_is_explained():
    org = Organisation.objects.create(name="Firm")
    playbook = Playbook.objects.create(organisation=org, name="x", language="en")
    with pytest.raises(PlaybookInvalid, match="Not valid YAML"):
        playbook_version_create(playbook=playbook, source="rules: [unclosed")


def test_shipped_playbook_cannot_be_edited_in_place():
    playbook_sync_defaults()
    shipped = Playbook.objects.get(name="commercial-en")
    with pytest.raises(PlaybookInvalid, match="copy"):
        playbook_version_create(playbook=shipped, source=MINIMAL.format(name="x", pattern="a"))


def test_active_copy_is_used_for_the_organisations_new_reviews():
    playbook_sync_defaults()
    org = Organisation.objects.create(name="Firm")
    default = playbook_version_for(organisation_id=org.pk, language="en")
    assert default.playbook.name == "commercial-en"
    copy = playbook_copy(playbook=default.playbook, organisation=org, name="ours")
    playbook_activate(playbook=copy)
    assert playbook_version_for(organisation_id=org.pk, language="en").playbook == copy
    other = Organisation.objects.create(name="Other")
    assert playbook_version_for(organisation_id=other.pk, language="en") == default
    zh = playbook_version_for(organisation_id=org.pk, language="zh")
    assert zh.playbook.name == "commercial-zh"
