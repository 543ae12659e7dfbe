"""Learned routers in the database: the shipped model, organisations' retrained versions, and
which one a review runs with."""

from __future__ import annotations

import hashlib
import threading
from typing import Any

from django.db import transaction

from reviewapp.audit.models import AuditAction
from reviewapp.audit.recorders import audit_router_change
from reviewapp.rules.models import RouterVersion
from reviewapp.text.check.model import CheckModel
from reviewapp.text.router import SHIPPED_DIR
from reviewapp.text.router.model import RouterModel, load_router

_loaded: dict[tuple[int, str], RouterModel] = {}
_loaded_lock = threading.Lock()


@transaction.atomic
def router_sync_shipped() -> list[RouterVersion]:
    """Load the shipped model files; a changed file becomes a new shipped version."""
    created = []
    for path in sorted(SHIPPED_DIR.glob("router-*.npz")):
        language = path.stem.removeprefix("router-")
        data = path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        latest = (
            RouterVersion.objects.filter(organisation=None, language=language)
            .order_by("-number")
            .first()
        )
        if latest is not None and latest.sha256 == digest:
            continue
        model = load_router(data)
        created.append(
            RouterVersion.objects.create(
                organisation=None,
                language=language,
                number=(latest.number if latest else 0) + 1,
                artefact=data,
                sha256=digest,
                figures=model.meta.get("cross_validated", {}),
                note=f"Shipped {path.name}",
                is_active=True,
            )
        )
    return created


def router_version_for(*, organisation_id: int | None, language: str) -> RouterVersion | None:
    """The organisation's active router for the language, else the newest shipped one."""
    versions = RouterVersion.objects.filter(language=language).defer("artefact")
    if organisation_id is not None:
        own = versions.filter(organisation_id=organisation_id, is_active=True).first()
        if own is not None:
            return own
    return versions.filter(organisation=None).order_by("-number").first()


def router_model(version: RouterVersion) -> RouterModel:
    """A version's model, read once per process (versions never change; keyed by the file's
    digest too, as a test database gives a rolled-back row's id to the next one)."""
    key = (version.pk, version.sha256)
    with _loaded_lock:
        model = _loaded.get(key)
    if model is None:
        data = RouterVersion.objects.values_list("artefact", flat=True).get(pk=version.pk)
        model = load_router(bytes(data))
        model.meta["name"] = version.label
        with _loaded_lock:
            _loaded[key] = model
    return model


def router_for(*, organisation_id: int | None, language: str) -> tuple[RouterModel | None, str]:
    """The model a new review runs with and its label; (None, "") when there is none."""
    version = router_version_for(organisation_id=organisation_id, language=language)
    if version is None:
        return None, ""
    return router_model(version), version.label


@transaction.atomic
def router_version_create(
    *,
    organisation: Any,
    model: RouterModel,
    decisions: int,
    note: str = "",
    check: CheckModel | None = None,
) -> RouterVersion:
    """Store a retrained model (and the check retrained with it) as the organisation's next
    version, inactive until an admin activates it."""
    data = model.to_bytes()
    latest = (
        RouterVersion.objects.select_for_update()
        .filter(organisation=organisation, language="en")
        .order_by("-number")
        .first()
    )
    version = RouterVersion.objects.create(
        organisation=organisation,
        language="en",
        number=(latest.number if latest else 0) + 1,
        artefact=data,
        sha256=hashlib.sha256(data).hexdigest(),
        figures=model.meta.get("figures", {}),
        note=note[:300],
        decisions=decisions,
        check_artefact=check.to_bytes() if check is not None else None,
    )
    audit_router_change(
        action=AuditAction.ROUTER_TRAINED, organisation_id=organisation.pk, version=version
    )
    return version


@transaction.atomic
def router_version_activate(*, version: RouterVersion, activated_by: Any) -> RouterVersion:
    """Make ``version`` the one its organisation's new reviews use (one active per language)."""
    RouterVersion.objects.filter(
        organisation=version.organisation, language=version.language
    ).exclude(pk=version.pk).update(is_active=False)
    version.is_active = True
    version.save(update_fields=["is_active"])
    audit_router_change(
        action=AuditAction.ROUTER_ACTIVATED,
        organisation_id=version.organisation_id,
        version=version,
        user=activated_by,
    )
    return version
