"""Playbooks in the database: shipped defaults, copies, versioned edits, compiled engines."""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _

from reviewapp.accounts.models import Organisation
from reviewapp.audit.models import AuditAction
from reviewapp.audit.recorders import audit_playbook_change
from reviewapp.rules.models import Playbook, PlaybookVersion
from reviewapp.text.engine import (
    CompiledPlaybook,
    RuleError,
    compile_playbook,
    lint_rule,
    load_playbook_data,
    scan,
)
from reviewapp.text.engine.bounded_yaml import YamlRefused, load_bounded
from reviewapp.text.engine.model import Playbook as EnginePlaybook
from reviewapp.text.engine.scanner import CpuBudget, ScanTooLong
from reviewapp.text.segmentation import segment

DEFAULTS_DIR = Path(__file__).resolve().parent / "playbooks"
FALLBACK_LANGUAGE = "en"

_compiled: dict[tuple[int, int], CompiledPlaybook] = {}
_compiled_lock = threading.Lock()


@dataclass
class PlaybookInvalid(Exception):
    problems: list[str]

    def __str__(self) -> str:
        return "; ".join(self.problems)


def playbook_parse(source: str, *, label: str | None = None) -> EnginePlaybook:
    """Parse and lint a playbook's YAML; raises PlaybookInvalid listing every problem.

    A source that parsed once parses the same again (the result is immutable): the last few
    are kept, since reading and linting the shipped playbooks costs about 1.5 s of CPU and
    every sync of the defaults, copy and compile reads them."""
    return _parsed(source, label)


def _parse_uncached(source: str, label: str | None) -> EnginePlaybook:
    try:
        data = load_bounded(source)
    except YamlRefused as error:
        raise PlaybookInvalid([_("Not valid YAML: %(error)s") % {"error": error}]) from None
    if not isinstance(data, dict):
        raise PlaybookInvalid([_("A playbook is a YAML mapping with name, language and rules.")])
    if label:
        data = {**data, "version": label}
    try:
        playbook = load_playbook_data(data)
    except RuleError as error:
        raise PlaybookInvalid([str(error)]) from error
    problems = [f"{rule.id}: {problem}" for rule in playbook.rules for problem in lint_rule(rule)]
    if problems:
        raise PlaybookInvalid(problems)
    return playbook


_parsed = functools.lru_cache(maxsize=16)(_parse_uncached)


@transaction.atomic
def playbook_sync_defaults() -> list[PlaybookVersion]:
    """Load the shipped playbook files; a changed file becomes a new version."""
    created = []
    for path in sorted(DEFAULTS_DIR.glob("*.yaml")):
        source = path.read_text(encoding="utf-8")
        parsed = playbook_parse(source)
        playbook, _ = Playbook.objects.get_or_create(
            organisation=None, name=parsed.name, defaults={"language": parsed.language}
        )
        latest = playbook.versions.order_by("-number").first()
        if latest is None or latest.source != source:
            number = (latest.number if latest else 0) + 1
            created.append(
                PlaybookVersion.objects.create(
                    playbook=playbook, number=number, source=source, note=f"Shipped {path.name}"
                )
            )
    return created


def playbook_version_for(*, organisation_id: int | None, language: str) -> PlaybookVersion:
    """The version a new review runs with: the organisation's active playbook, else the default."""
    for lang in dict.fromkeys([language, FALLBACK_LANGUAGE]):
        version = _active_version(organisation_id, lang) or _default_version(lang)
        if version is not None:
            return version
    playbook_sync_defaults()
    version = _default_version(language) or _default_version(FALLBACK_LANGUAGE)
    if version is None:
        raise RuntimeError(f"no playbook for language {language!r}")
    return version


def _active_version(organisation_id: int | None, language: str) -> PlaybookVersion | None:
    if organisation_id is None:
        return None
    return (
        PlaybookVersion.objects.filter(
            playbook__organisation_id=organisation_id,
            playbook__language=language,
            playbook__is_active=True,
        )
        .select_related("playbook")
        .order_by("-number")
        .first()
    )


def _default_version(language: str) -> PlaybookVersion | None:
    return (
        PlaybookVersion.objects.filter(
            playbook__organisation__isnull=True, playbook__language=language
        )
        .select_related("playbook")
        .order_by("-playbook__created_at", "-number")
        .first()
    )


def playbook_compiled(version: PlaybookVersion) -> CompiledPlaybook:
    """Patterns are compiled once per playbook version and process."""
    key = (version.pk, hash(version.source))  # versions are immutable; the hash guards reuse
    with _compiled_lock:
        compiled = _compiled.get(key)
    if compiled is None:
        compiled = compile_playbook(playbook_parse(version.source, label=version.label))
        with _compiled_lock:
            _compiled[key] = compiled
    return compiled


@transaction.atomic
def playbook_version_create(
    *, playbook: Playbook, source: str, created_by: Any = None, note: str = ""
) -> PlaybookVersion:
    """Save an edit as a new version, after linting every rule."""
    if playbook.is_default:
        raise PlaybookInvalid([_("Shipped playbooks cannot be edited: make a copy first.")])
    parsed = playbook_parse(source)
    latest = Playbook.objects.select_for_update().get(pk=playbook.pk).versions.first()
    if parsed.language != playbook.language:
        raise PlaybookInvalid(
            [_("The language must stay %(language)r.") % {"language": playbook.language}]
        )
    version = PlaybookVersion.objects.create(
        playbook=playbook,
        number=(latest.number if latest else 0) + 1,
        source=source,
        created_by=created_by,
        note=note[:300],
    )
    audit_playbook_change(
        action=AuditAction.PLAYBOOK_VERSION_CREATED,
        playbook=playbook,
        version=version,
        user=created_by,
    )
    return version


@transaction.atomic
def playbook_copy(
    *, playbook: Playbook, organisation: Organisation, name: str, created_by: Any = None
) -> Playbook:
    latest = playbook.versions.order_by("-number").first()
    if latest is None:
        raise PlaybookInvalid([_("This playbook has no version to copy.")])
    if Playbook.objects.filter(organisation=organisation, name=name).exists():
        raise PlaybookInvalid(
            [_("Your organisation already has a playbook named %(name)r.") % {"name": name}]
        )
    copy = Playbook.objects.create(
        organisation=organisation, name=name, language=playbook.language, copied_from=playbook
    )
    source = _renamed(latest.source, name)
    version = PlaybookVersion.objects.create(
        playbook=copy, number=1, source=source, created_by=created_by, note=f"Copy of {latest}"
    )
    audit_playbook_change(
        action=AuditAction.PLAYBOOK_COPIED, playbook=copy, version=version, user=created_by
    )
    return copy


def _renamed(source: str, name: str) -> str:
    lines = source.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.startswith("name:"):
            lines[i] = f"name: {name}\n"
            break
    return "".join(lines)


@transaction.atomic
def playbook_activate(*, playbook: Playbook, activated_by: Any = None) -> Playbook:
    if playbook.organisation_id is None:
        raise PlaybookInvalid([_("Shipped playbooks are used when no copy is active.")])
    Playbook.objects.filter(
        organisation_id=playbook.organisation_id, language=playbook.language
    ).update(is_active=False)
    Playbook.objects.filter(pk=playbook.pk).update(is_active=True)
    playbook.refresh_from_db()
    audit_playbook_change(
        action=AuditAction.PLAYBOOK_ACTIVATED, playbook=playbook, user=activated_by
    )
    return playbook


class PlaybookTestTooLong(Exception):
    """The test spent its CPU budget (``PLAYBOOK_TEST_CPU_S``)."""


def playbook_test(*, source: str, text: str) -> list[dict[str, Any]]:
    """Run a playbook (as edited, not yet saved) on pasted text: what fires, and where.

    Nothing of it is kept (neither the parsed source nor its compiled RE2 programs), so sources
    under ever new names do not grow the web process; the scan runs on a CPU budget and raises
    ``PlaybookTestTooLong`` past it, since every organisation's admins share the web processes.
    """
    compiled = compile_playbook(_parse_uncached(source, "test"), cache=False)
    segments = segment(text)
    try:
        hits = scan(compiled, text, segments, budget=CpuBudget(settings.PLAYBOOK_TEST_CPU_S))
    except ScanTooLong:
        raise PlaybookTestTooLong(settings.PLAYBOOK_TEST_CPU_S) from None
    return [
        {
            "rule_id": hit.rule_id,
            "category": hit.category,
            "action": hit.action,
            "severity": hit.severity,
            "passage": hit.segment_index,
            "passage_start": segments[hit.segment_index].start,
            "passage_end": segments[hit.segment_index].end,
            "start": hit.match_start,
            "end": hit.match_end,
            "match": text[hit.match_start : hit.match_end],
        }
        for hit in hits
    ]
