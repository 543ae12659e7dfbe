"""Who wrote a redline's words, as the editor says it: "standard wording, not yet reviewed" (a
proposal nobody has touched), "edited by Lee Lawyer" (a lawyer changed the words), "accepted
by Lee Lawyer"; and whether the standard wording names the parties as the contract does."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from reviewapp.reviews.redlines.models import RedlineSource, RedlineStatus


def full_name(user: Any) -> str:
    """The user's full name, blank for someone without one (or no user)."""
    return user.get_full_name().strip() if user is not None else ""


def person_name(user: Any) -> str:
    """How a page names a colleague: the full name, else the username."""
    if user is None:
        return ""
    return full_name(user) or user.get_username()


def source_label(*, source: str, unchanged: bool, status: str = "", author: Any = None) -> str:
    """Where a redline's words come from. Words that are still the clause's own are nobody's
    proposal; the playbook's words are "not yet reviewed" until a lawyer accepts them."""
    if unchanged:
        return _("Unchanged: the playbook has no standard wording for this")
    if source == RedlineSource.PLAYBOOK and status != RedlineStatus.ACCEPTED:
        return _("standard wording, not yet reviewed")
    if source == RedlineSource.LAWYER and author is not None:
        return _("edited by %(who)s") % {"who": person_name(author)}
    return str(RedlineSource(source).label)


def accepted_label(user: Any) -> str:
    return _("accepted by %(who)s") % {"who": person_name(user)} if user is not None else ""


def terms_note(*, swapped: tuple[tuple[str, str], ...], kept: tuple[str, ...], sides: bool) -> str:
    """What became of the standard wording's words for the parties (blank: it names none).
    ``sides``: whether the party the firm acts for is known."""
    # quoted: they are the playbook's and the contract's words, in their own language
    words = ", ".join(f"“{word}”" for word in kept)
    if kept and not sides:
        return _(
            "The standard wording names the parties as the playbook does (%(words)s): choose "
            "the party the firm acts for to have it use this contract's terms."
        ) % {"words": words}
    if kept:
        return _(
            "The standard wording names the parties as the playbook does (%(words)s): which "
            "party of this contract each one is cannot be told from their roles; check them."
        ) % {"words": words}
    if swapped:
        return _("Parties named as this contract defines them: %(pairs)s.") % {
            "pairs": ", ".join(f"“{word}” → “{term}”" for word, term in swapped)
        }
    return ""
