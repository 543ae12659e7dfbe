from __future__ import annotations

from django.http import HttpRequest

from reviewapp.rules.selectors import organisations_administered


def admin_flags(request: HttpRequest) -> dict[str, bool]:
    return {"is_org_admin": organisations_administered(user=request.user).exists()}
