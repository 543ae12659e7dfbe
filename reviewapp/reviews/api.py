from __future__ import annotations

from django.http import Http404
from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    inline_serializer,
)
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from reviewapp.contracts.models import Passage
from reviewapp.contracts.selectors import contract_get_for_user, passage_list
from reviewapp.contracts.serializers import PassageSerializer
from reviewapp.reviews.drafting import draft_payload
from reviewapp.reviews.lawyer_labels import categories_standing
from reviewapp.reviews.models import Draft
from reviewapp.reviews.selectors import review_get_for_user, verification_get_for_user
from reviewapp.reviews.snapshot import snapshot_get
from reviewapp.reviews.verdicts import verification_payload

SnapshotSerializer = inline_serializer(
    "ReviewStateSnapshot",
    {
        "review_id": serializers.IntegerField(),
        "contract_id": serializers.IntegerField(),
        "status": serializers.CharField(),
        "playbook_version": serializers.CharField(),
        "counts": serializers.DictField(child=serializers.IntegerField()),
        "passages": serializers.ListField(child=serializers.DictField()),
    },
)


class ReviewStateView(APIView):
    @extend_schema(
        summary="A review's state register: counts per state and each passage's state",
        description="Served from a Redis snapshot (`state:{review_id}`, 300 s).",
        responses=SnapshotSerializer,
    )
    def get(self, request: Request, review_id: int) -> Response:
        review = review_get_for_user(user=request.user, review_id=review_id)
        if review is None:
            raise Http404("No such review.")
        return Response(snapshot_get(review))


VerificationSerializer = inline_serializer(
    "Verification",
    {
        "id": serializers.IntegerField(),
        "url": serializers.CharField(),
        "contract_id": serializers.IntegerField(),
        "passage": serializers.IntegerField(),
        "status": serializers.ChoiceField(choices=["QUEUED", "DONE"]),
        "outcome": serializers.CharField(),
        "engine": serializers.ChoiceField(choices=["offline", "anthropic"]),
        "risk": serializers.CharField(),
        "rationale": serializers.CharField(),
        "quote": serializers.CharField(),
        "redline": serializers.CharField(),
        "question": serializers.CharField(),
        "reason": serializers.CharField(allow_null=True),
    },
)


class VerificationDetailView(APIView):
    @extend_schema(
        summary="One passage's verification: outcome, rationale, quote, redline, question",
        description="The URL is stable from the moment the verification is queued; `status` "
        "turns DONE when it is settled (also pushed live as `verification.done`).",
        responses=VerificationSerializer,
    )
    def get(self, request: Request, verification_id: int) -> Response:
        verification = verification_get_for_user(user=request.user, verification_id=verification_id)
        if verification is None:
            raise Http404("No such verification.")
        return Response(verification_payload(verification))


class ReviewDraftView(APIView):
    @extend_schema(
        summary="The review's draft: summary, key facts, issues, and flags on the draft",
        responses=inline_serializer(
            "Draft",
            {
                "engine": serializers.CharField(),
                "status": serializers.CharField(),
                "summary": serializers.CharField(),
                "key_facts": serializers.DictField(),
                "issues": serializers.ListField(child=serializers.DictField()),
                "flags": serializers.ListField(child=serializers.DictField()),
                "ttft_ms": serializers.FloatField(allow_null=True),
                "error": serializers.CharField(allow_null=True),
                "verifications": serializers.ListField(child=serializers.CharField()),
            },
        ),
    )
    def get(self, request: Request, review_id: int) -> Response:
        review = review_get_for_user(user=request.user, review_id=review_id)
        if review is None:
            raise Http404("No such review.")
        draft = Draft.objects.filter(review=review).first()
        if draft is None:
            raise Http404("This review has no draft.")
        urls = [
            f"/api/verifications/{pk}/" for pk in review.verifications.values_list("pk", flat=True)
        ]
        return Response({**draft_payload(draft), "verifications": urls})


class StandingPassageSerializer(PassageSerializer):
    """A passage with its id and the categories standing on it."""

    categories = serializers.SerializerMethodField()

    class Meta(PassageSerializer.Meta):
        fields = ["id", *PassageSerializer.Meta.fields, "categories"]
        read_only_fields = fields

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_categories(self, passage: Passage) -> list[str]:
        """Named by the review and kept by the check, less false flags, plus lawyers' flags."""
        standing: dict[int, list[str]] = self.context["standing"]
        return standing.get(passage.pk, [])


class ContractPassagesView(APIView):
    @extend_schema(
        summary="A contract's passages in order, each with its id and the categories standing",
        description="`categories`: the categories the review named there and the second-stage "
        "check kept, without those a lawyer called not this kind of clause, with those a "
        "lawyer flagged. Use the `id` and `index` with the queue and flag endpoints.",
        responses={
            200: StandingPassageSerializer(many=True),
            401: OpenApiResponse(description="No credentials (a token or a session)"),
            404: OpenApiResponse(description="No such contract, or not a member of its matter"),
            429: OpenApiResponse(description="Too many requests"),
        },
    )
    def get(self, request: Request, contract_id: int) -> Response:
        contract = contract_get_for_user(user=request.user, contract_id=contract_id)
        if contract is None:
            raise Http404("No such contract.")
        passages = list(passage_list(contract=contract))
        standing = categories_standing(passage_ids=[p.pk for p in passages])
        serializer = StandingPassageSerializer(passages, many=True, context={"standing": standing})
        return Response(serializer.data)
