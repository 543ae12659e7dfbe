"""A password sign-in that needs no second step is complete: it clears the sign-in failures."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver

from reviewapp.accounts.two_factor.selectors import two_factor_needed
from reviewapp.accounts.two_factor.services import sign_in_failures_clear


@receiver(user_logged_in, dispatch_uid="two-factor-complete-sign-in")
def _signed_in(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    if request is not None and not two_factor_needed(user=user):
        sign_in_failures_clear(request=request, user=user)
