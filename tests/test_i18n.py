"""English and Simplified Chinese: complete catalogues, a language switch, Chinese pages and JS."""

from __future__ import annotations

import gettext
import json
import re
import shutil
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from reviewapp.accounts.models import Role
from reviewapp.rules.services import playbook_sync_defaults

ROOT = Path(__file__).resolve().parent.parent
MESSAGES = ROOT / "locale" / "zh_Hans" / "LC_MESSAGES"
DOMAINS = ("django", "djangojs")
# What `make messages` scans: the folders that hold marked strings.
SOURCES = ("reviewapp", "templates", "static")
IGNORE = ("vendor", "node_modules", "__pycache__")
# Names and units a Chinese reader sees as they are.
SAME_IN_CHINESE = {"API", "Claude", "JSON", "%(size)s MB"}
PLACEHOLDER = re.compile(r"%\([A-Za-z_]\w*\)[sdfi]|%[sdfi]|\{\{\s*\w+\s*\}\}|\{\w*\}")


@dataclass
class Entry:
    msgid: str = ""
    msgctxt: str | None = None
    msgid_plural: str | None = None
    msgstr: list[str] = field(default_factory=list)
    flags: set[str] = field(default_factory=set)


def _unquote(token: str) -> str:
    return json.loads(token)  # PO strings use C escapes, which JSON reads for our \" \\ \n


def parse_po(path: Path) -> list[Entry]:
    """A small PO reader: enough for catalogues written by GNU gettext (no obsolete entries)."""
    entries: list[Entry] = []
    for block in path.read_text(encoding="utf-8").split("\n\n"):
        entry, key = Entry(), ""
        for line in block.strip().splitlines():
            if line.startswith("#,"):
                entry.flags |= {flag.strip() for flag in line[2:].split(",")}
            elif line.startswith("#"):
                continue
            elif line.startswith('"'):
                _append(entry, key, _unquote(line))
            else:
                key, _, token = line.partition(" ")
                if key.startswith("msgstr"):
                    entry.msgstr.append("")
                _append(entry, key, _unquote(token))
        if key:
            entries.append(entry)
    return entries


def _append(entry: Entry, key: str, text: str) -> None:
    if key.startswith("msgstr"):
        entry.msgstr[-1] += text
    else:  # msgid, msgid_plural, msgctxt
        setattr(entry, key, (getattr(entry, key) or "") + text)


def _messages(domain: str) -> list[Entry]:
    return [e for e in parse_po(MESSAGES / f"{domain}.po") if e.msgid]


@pytest.mark.parametrize("domain", DOMAINS)
def test_catalogue_has_no_untranslated_or_fuzzy_entries(domain):
    entries = parse_po(MESSAGES / f"{domain}.po")
    assert len(entries) > 1
    fuzzy = [e.msgid or "(header)" for e in entries if "fuzzy" in e.flags]
    untranslated = [e.msgid for e in entries if e.msgid and not all(e.msgstr)]
    assert fuzzy == []
    assert untranslated == []


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_translation_is_chinese_and_one_plural_form(domain):
    entries = _messages(domain)
    assert all(len(e.msgstr) == 1 for e in entries)  # Chinese has a single plural form
    left_in_english = {e.msgid for e in entries if e.msgstr[0] == e.msgid}
    assert left_in_english <= SAME_IN_CHINESE


@pytest.mark.parametrize("domain", DOMAINS)
def test_translations_keep_the_placeholders_of_the_english(domain):
    for entry in _messages(domain):
        expected = Counter(PLACEHOLDER.findall(entry.msgid_plural or entry.msgid))
        for text in entry.msgstr:
            assert Counter(PLACEHOLDER.findall(text)) == expected, entry.msgid


@pytest.mark.parametrize("domain", DOMAINS)
def test_compiled_catalogue_matches_the_po_file(domain):
    with (MESSAGES / f"{domain}.mo").open("rb") as handle:
        compiled = gettext.GNUTranslations(handle)
    stale = []
    for entry in _messages(domain):
        key = entry.msgid if entry.msgctxt is None else f"{entry.msgctxt}\x04{entry.msgid}"
        if entry.msgid_plural is None:
            found = compiled._catalog.get(key)  # type: ignore[attr-defined]
        else:
            found = compiled._catalog.get((key, 0))  # type: ignore[attr-defined]
        if found != entry.msgstr[0]:
            stale.append(entry.msgid)
    assert stale == [], "run `make messages` to compile the catalogues"


@pytest.mark.skipif(shutil.which("xgettext") is None, reason="GNU gettext is not installed")
@pytest.mark.parametrize("domain", DOMAINS)
def test_catalogue_has_every_string_marked_in_the_code(domain, tmp_path, monkeypatch):
    """A string wrapped in {% translate %} or gettext() without a Chinese entry fails here."""
    # makemessages writes scratch files next to the templates it reads: work on a copy.
    for name in SOURCES:
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns(*IGNORE))
    (tmp_path / "locale").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(settings, "LOCALE_PATHS", [tmp_path / "locale"])
    call_command("makemessages", locale=["zh_Hans"], domain=domain, verbosity=0)
    marked = parse_po(tmp_path / "locale" / "zh_Hans" / "LC_MESSAGES" / f"{domain}.po")
    committed = {(e.msgctxt, e.msgid) for e in _messages(domain)}
    missing = [e.msgid for e in marked if e.msgid and (e.msgctxt, e.msgid) not in committed]
    assert missing == [], "run `make messages` and translate the new entries"


@pytest.fixture
def member_client(client, reviewer, matter):
    client.force_login(reviewer)
    return client


def _switch(client, language: str, next_url: str = "/"):
    return client.post("/i18n/setlang/", {"language": language, "next": next_url})


@pytest.mark.django_db
def test_pages_are_english_by_default_with_a_switch_to_chinese(client):
    page = client.get("/login/").content.decode()
    assert '<html lang="en">' in page
    assert "Sign in" in page and "登录" not in page
    assert 'name="language" value="zh-hans"' in page and "简体中文" in page


@pytest.mark.django_db
def test_language_switch_persists_in_a_cookie_and_returns_to_the_page(client):
    response = _switch(client, "zh-hans", "/login/?next=/")
    assert response.status_code == 302 and response["Location"] == "/login/?next=/"
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "zh-hans"
    page = client.get("/login/").content.decode()
    assert '<html lang="zh-hans">' in page
    assert "用户名" in page and "密码" in page and "Username" not in page
    assert 'name="language" value="en"' in page  # the way back to English
    _switch(client, "en")
    assert "Username" in client.get("/login/").content.decode()


@pytest.mark.django_db
def test_chinese_browser_gets_chinese_without_switching(client):
    page = client.get("/login/", HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9").content.decode()
    assert '<html lang="zh-hans">' in page and "登录" in page


@pytest.mark.django_db
def test_home_and_matter_pages_in_chinese(member_client, matter):
    _switch(member_client, "zh-hans")
    home = member_client.get("/").content.decode()
    assert "我的事项" in home and "复核队列" in home and "退出登录" in home
    assert matter.name in home
    page = member_client.get(f"/matters/{matter.pk}/").content.decode()
    assert "上传合同" in page and "将 PDF、Word 或文本文件、zip 压缩包或整个文件夹拖到此处" in page
    assert "尚无合同。" in page and "Upload contracts" not in page


@pytest.mark.django_db
def test_playbook_pages_in_chinese(client, make_user, make_matter):
    admin = make_user("ada")
    make_matter(members=[(admin, Role.ADMIN)])
    client.force_login(admin)
    playbook_sync_defaults()
    _switch(client, "zh-hans")
    page = client.get("/playbooks/").content.decode()
    assert "<h1>规则手册</h1>" in page and "内置默认" in page


def _js_catalogue(client) -> dict[str, str | list[str]]:
    response = client.get("/jsi18n/")
    assert response.status_code == 200
    match = re.search(r"const newcatalog = (\{.*?\});", response.content.decode(), re.S)
    return json.loads(match.group(1)) if match else {}


@pytest.mark.django_db
def test_javascript_catalogue_serves_chinese_after_the_switch(client):
    assert "Waiting…" not in _js_catalogue(client)  # English needs no catalogue
    _switch(client, "zh-hans")
    catalogue = _js_catalogue(client)
    assert catalogue["Waiting…"] == "等待中……"
    assert catalogue["Uploading…"] == "上传中……"
    assert catalogue["%(count)s passage"] == ["%(count)s 个段落"]


@pytest.mark.django_db
def test_a_stored_reading_error_and_status_show_in_chinese(member_client, matter):
    from reviewapp.contracts.models import DocumentStatus
    from tests.factories import ingested_contract

    contract = ingested_contract(matter=matter, text="x")
    contract.status = DocumentStatus.PARSE_FAILED
    contract.error_code, contract.error_message = "PARSE_FAILED", "This PDF has no pages."
    contract.save()
    _switch(member_client, "zh-hans")
    page = member_client.get(f"/matters/{matter.pk}/").content.decode()
    assert "此 PDF 没有页面。" in page and "无法读取" in page
    api = member_client.get(f"/api/contracts/{contract.pk}/").json()
    assert api["error"]["message"] == "此 PDF 没有页面。"
