"""Admin pages for playbooks: list, versions and rules with hit counts, editor with a test box."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from reviewapp.rules.learned.versions import router_version_activate
from reviewapp.rules.models import Playbook
from reviewapp.rules.selectors import (
    organisations_administered,
    playbook_get_for_admin,
    playbook_list_for_admin,
    router_get_for_admin,
    router_list_for_admin,
    rule_hit_counts,
)
from reviewapp.rules.services import (
    PlaybookInvalid,
    playbook_activate,
    playbook_copy,
    playbook_parse,
    playbook_sync_defaults,
    playbook_version_create,
)


def _admin_playbook(request: HttpRequest, playbook_id: int) -> Playbook:
    if not organisations_administered(user=request.user).exists():
        raise Http404("Playbooks are for organisation admins.")
    playbook = playbook_get_for_admin(user=request.user, playbook_id=playbook_id)
    if playbook is None:
        raise Http404("No such playbook.")
    return playbook


@login_required
def playbook_list(request: HttpRequest) -> HttpResponse:
    if not organisations_administered(user=request.user).exists():
        raise Http404("Playbooks are for organisation admins.")
    if not Playbook.objects.filter(organisation__isnull=True).exists():
        playbook_sync_defaults()
    context = {
        "playbooks": playbook_list_for_admin(user=request.user),
        "routers": router_list_for_admin(user=request.user),
    }
    return render(request, "rules/playbook_list.html", context)


@login_required
@require_POST
def router_activate_view(request: HttpRequest, router_id: int) -> HttpResponse:
    version = router_get_for_admin(user=request.user, router_id=router_id)
    if version is None:
        raise Http404("No such router version.")
    router_version_activate(version=version, activated_by=request.user)
    messages.success(request, _("New reviews now use router %(label)s.") % {"label": version.label})
    return redirect("playbooks")


@login_required
def playbook_detail(request: HttpRequest, playbook_id: int) -> HttpResponse:
    playbook = _admin_playbook(request, playbook_id)
    versions = list(playbook.versions.select_related("created_by").order_by("-number"))
    rules = playbook_parse(versions[0].source).rules if versions else ()
    hits = rule_hit_counts(playbook=playbook, user=request.user)
    rows = [{"rule": rule, "hits": hits.get(rule.id, 0)} for rule in rules]
    context = {"playbook": playbook, "versions": versions, "rows": rows}
    return render(request, "rules/playbook_detail.html", context)


@login_required
def playbook_edit(request: HttpRequest, playbook_id: int) -> HttpResponse:
    playbook = _admin_playbook(request, playbook_id)
    latest = playbook.versions.order_by("-number").first()
    source = latest.source if latest else ""
    problems: list[str] = []
    if request.method == "POST":
        source = request.POST.get("source", "")
        try:
            version = playbook_version_create(
                playbook=playbook,
                source=source,
                created_by=request.user,
                note=request.POST.get("note", ""),
            )
        except PlaybookInvalid as invalid:
            problems = invalid.problems
        else:
            messages.success(
                request, _("Saved as version %(number)s.") % {"number": version.number}
            )
            return redirect("playbook", playbook_id=playbook.pk)
    context = {"playbook": playbook, "source": source, "problems": problems}
    return render(request, "rules/playbook_edit.html", context, status=400 if problems else 200)


@login_required
@require_POST
def playbook_copy_view(request: HttpRequest, playbook_id: int) -> HttpResponse:
    playbook = _admin_playbook(request, playbook_id)
    organisation = organisations_administered(user=request.user).order_by("pk").first()
    if organisation is None:
        raise Http404("Playbooks are for organisation admins.")
    name = request.POST.get("name", "").strip() or f"{playbook.name}-copy"
    try:
        copy = playbook_copy(
            playbook=playbook, organisation=organisation, name=name, created_by=request.user
        )
    except PlaybookInvalid as invalid:
        messages.error(request, str(invalid))
        return redirect("playbook", playbook_id=playbook.pk)
    messages.success(
        request, _("Copied as %(name)s. Edit it, then make it active.") % {"name": copy.name}
    )
    return redirect("playbook", playbook_id=copy.pk)


@login_required
@require_POST
def playbook_activate_view(request: HttpRequest, playbook_id: int) -> HttpResponse:
    playbook = _admin_playbook(request, playbook_id)
    try:
        playbook_activate(playbook=playbook, activated_by=request.user)
    except PlaybookInvalid as invalid:
        messages.error(request, str(invalid))
    else:
        messages.success(
            request,
            _("New reviews in %(language)s now use %(name)s.")
            % {"language": playbook.language, "name": playbook.name},
        )
    return redirect("playbook", playbook_id=playbook.pk)
