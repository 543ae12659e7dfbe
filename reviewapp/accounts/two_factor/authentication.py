"""API tokens and two-factor sign-in.

A token cannot carry a code, and only a verified site admin can create one (Django admin), so
a token keeps working on its own. One rule on top: a user who must use a second factor and has
never set it up gets no API access with a token until they have (in the browser), so that a
token cannot stand in for a second factor that was never there.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from rest_framework.exceptions import AuthenticationFailed

from reviewapp.accounts.tokens import PasswordBoundTokenAuthentication
from reviewapp.accounts.two_factor.selectors import two_factor_enrolled, two_factor_required


class TwoFactorTokenAuthentication(PasswordBoundTokenAuthentication):
    """A token bound to its password (accounts.tokens), and to a second factor where one is due."""

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        user, token = super().authenticate_credentials(key)
        if two_factor_required(user=user) and not two_factor_enrolled(user=user):
            raise AuthenticationFailed(
                _("Set up two-factor sign-in in the browser before using an API token.")
            )
        return user, token
