from __future__ import annotations

from django.db.models import Count, IntegerField, OuterRef, QuerySet, Subquery, Sum
from django.db.models.functions import Coalesce

from reviewapp.accounts.selectors import AnyUser, matter_list_for_user
from reviewapp.contracts.models import Contract, Passage


def contract_list_for_user(*, user: AnyUser, matter_id: int | None = None) -> QuerySet[Contract]:
    contracts = Contract.objects.filter(matter__in=matter_list_for_user(user=user)).defer("text")
    if matter_id is not None:
        contracts = contracts.filter(matter_id=matter_id)
    # A count per row from the passages' index, not a GROUP BY over every contract column.
    counted = (
        Passage.objects.filter(contract=OuterRef("pk"))
        .order_by()
        .values("contract")
        .annotate(n=Count("pk"))
        .values("n")
    )
    passages = Coalesce(Subquery(counted, output_field=IntegerField()), 0)
    return contracts.select_related("matter").annotate(passage_count=passages)


def contract_get_for_user(*, user: AnyUser, contract_id: int) -> Contract | None:
    return contract_list_for_user(user=user).filter(pk=contract_id).first()


def passage_list(*, contract: Contract) -> QuerySet[Passage]:
    return Passage.objects.filter(contract=contract).order_by("index")


def matter_storage_used(*, matter_id: int) -> int:
    """Bytes of the original files stored for a matter's contracts."""
    total = Contract.objects.filter(matter_id=matter_id).aggregate(total=Sum("size"))["total"]
    return int(total or 0)
