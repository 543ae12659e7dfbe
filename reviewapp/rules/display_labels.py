"""What a lawyer reads for the rules' own vocabulary: clause categories (the exact CUAD names
are the data; these are their labels, in a lawyer's capitals: "IP", "ROFR", "Change of Control"),
severities and actions, in the user's language.

Names stay English in the database, playbooks, exports' machine columns and the API; pages and
human-facing exports show ``category_label(name)``. A category nobody labelled yet (an
organisation's own) is shown as written.
"""

from __future__ import annotations

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from reviewapp.contracts.models import PassageState

CATEGORY_LABELS = {
    "Document Name": _("Document Name"),
    "Parties": _("Parties"),
    "Agreement Date": _("Agreement Date"),
    "Effective Date": _("Effective Date"),
    "Expiration Date": _("Expiration Date"),
    "Renewal Term": _("Renewal Term"),
    "Notice Period To Terminate Renewal": _("Notice Period to Terminate Renewal"),
    "Governing Law": _("Governing Law"),
    "Most Favored Nation": _("Most Favored Nation"),
    "Competitive Restriction Exception": _("Competitive Restriction Exception"),
    "Non-Compete": _("Non-Compete"),
    "Exclusivity": _("Exclusivity"),
    "No-Solicit Of Customers": _("No-Solicit of Customers"),
    "No-Solicit Of Employees": _("No-Solicit of Employees"),
    "Non-Disparagement": _("Non-Disparagement"),
    "Termination For Convenience": _("Termination for Convenience"),
    "Rofr/Rofo/Rofn": _("ROFR/ROFO/ROFN"),
    "Change Of Control": _("Change of Control"),
    "Anti-Assignment": _("Anti-Assignment"),
    "Revenue/Profit Sharing": _("Revenue/Profit Sharing"),
    "Price Restrictions": _("Price Restrictions"),
    "Minimum Commitment": _("Minimum Commitment"),
    "Volume Restriction": _("Volume Restriction"),
    "Ip Ownership Assignment": _("IP Ownership Assignment"),
    "Joint Ip Ownership": _("Joint IP Ownership"),
    "License Grant": _("License Grant"),
    "Non-Transferable License": _("Non-Transferable License"),
    "Affiliate License-Licensor": _("Affiliate License (Licensor)"),
    "Affiliate License-Licensee": _("Affiliate License (Licensee)"),
    "Unlimited/All-You-Can-Eat-License": _("Unlimited/All-You-Can-Eat License"),
    "Irrevocable Or Perpetual License": _("Irrevocable or Perpetual License"),
    "Source Code Escrow": _("Source Code Escrow"),
    "Post-Termination Services": _("Post-Termination Services"),
    "Audit Rights": _("Audit Rights"),
    "Uncapped Liability": _("Uncapped Liability"),
    "Cap On Liability": _("Cap on Liability"),
    "Liquidated Damages": _("Liquidated Damages"),
    "Warranty Duration": _("Warranty Duration"),
    "Insurance": _("Insurance"),
    "Covenant Not To Sue": _("Covenant Not to Sue"),
    "Third Party Beneficiary": _("Third Party Beneficiary"),
    "Confidentiality": _("Confidentiality"),
    "Force Majeure": _("Force Majeure"),
    "Late Payment Interest": _("Late Payment Interest"),
    "Indemnity": _("Indemnity"),
    "Data Protection": _("Data Protection"),
    "Dispute Resolution": _("Dispute Resolution"),
    "Prompt Injection": _("Prompt Injection"),
    "Legal Citation": _("Legal Citation"),
    "Time Anchor": _("Time Anchor"),
    "Model-raised": _("Raised by the model"),
}

SEVERITY_LABELS = {
    "low": _("low"),
    "medium": _("medium"),
    "high": _("high"),
    "critical": _("critical"),
}

ACTION_LABELS = {
    "verify": _("checked by the verifier"),
    "human": _("sent to a lawyer"),
    "reject": _("rejected by the rule"),
}

CONTRACT_TYPE_LABELS = {  # the CUAD contract types rules.detect names
    "Non-Compete/Non-Solicit": _("Non-Compete/Non-Solicit"),
    "IP": _("IP"),
    "Strategic Alliance": _("Strategic Alliance"),
    "Joint Venture": _("Joint Venture"),
    "Co-Branding": _("Co-Branding"),
    "Hosting": _("Hosting"),
    "Collaboration": _("Collaboration"),
    "Outsourcing": _("Outsourcing"),
    "Transportation": _("Transportation"),
    "Franchise": _("Franchise"),
    "Endorsement": _("Endorsement"),
    "Sponsorship": _("Sponsorship"),
    "Reseller": _("Reseller"),
    "Distributor": _("Distributor"),
    "Manufacturing": _("Manufacturing"),
    "Supply": _("Supply"),
    "Maintenance": _("Maintenance"),
    "Consulting": _("Consulting"),
    "Promotion": _("Promotion"),
    "Marketing": _("Marketing"),
    "Affiliate": _("Affiliate"),
    "Agency": _("Agency"),
    "Development": _("Development"),
    "License": _("License"),
    "Service": _("Service"),
}


def state_label(value: str) -> str:
    """A passage state in words ("Needs human review"), whatever case it is stored in."""
    try:
        return str(PassageState(value).label)
    except ValueError:
        return value


def category_label(name: str) -> str:
    label = CATEGORY_LABELS.get(name)
    return str(label) if label is not None else name


def severity_label(name: str) -> str:
    label = SEVERITY_LABELS.get((name or "").lower())
    return str(label) if label is not None else name


def action_label(name: str) -> str:
    label = ACTION_LABELS.get(name)
    return str(label) if label is not None else name


def contract_type_label(name: str) -> str:
    if not name:
        return gettext("not recognised")
    label = CONTRACT_TYPE_LABELS.get(name)
    return str(label) if label is not None else name
