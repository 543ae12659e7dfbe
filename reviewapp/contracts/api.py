"""REST API for contracts. Views check input and call services or selectors."""

from __future__ import annotations

from django.conf import settings
from django.http import FileResponse, Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from reviewapp.accounts.selectors import matter_get_for_user
from reviewapp.contracts.deletion import (
    DELETION_REASONS,
    ContractDeletionRefused,
    contract_delete,
    contract_get_for_deletion,
    contract_may_delete,
)
from reviewapp.contracts.models import Contract
from reviewapp.contracts.selectors import (
    contract_get_for_user,
    contract_list_for_user,
    passage_list,
)
from reviewapp.contracts.serializers import (
    ContractSerializer,
    ErrorResponseSerializer,
    PassageSerializer,
    PasswordSerializer,
    UploadResultSerializer,
    UploadSerializer,
)
from reviewapp.contracts.services import (
    UploadRejected,
    contract_retry_with_password,
    contract_upload,
)
from reviewapp.contracts.unlocked import contract_display_open


def _error(code: str, message: str, http_status: int) -> Response:
    return Response({"error": {"code": code, "message": message}}, status=http_status)


def _contract_or_404(request: Request, contract_id: int) -> Contract:
    contract = contract_get_for_user(user=request.user, contract_id=contract_id)
    if contract is None:
        raise Http404("No such contract.")
    return contract


class MatterContractsView(APIView):
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(summary="List a matter's contracts", responses=ContractSerializer(many=True))
    def get(self, request: Request, matter_id: int) -> Response:
        if matter_get_for_user(user=request.user, matter_id=matter_id) is None:
            raise Http404("No such matter.")
        contracts = contract_list_for_user(user=request.user, matter_id=matter_id)
        return Response(ContractSerializer(contracts, many=True).data)

    @extend_schema(
        summary="Upload a contract (PDF, DOCX or TXT) into a matter",
        description="The type is decided by the file's content, not its name. The same file "
        "uploaded twice into a matter returns the existing contract with `duplicate: true`. "
        "Ingestion runs in the background: follow `status` and `progress`, or the websocket.",
        request={"multipart/form-data": UploadSerializer},
        responses={
            201: UploadResultSerializer,
            200: OpenApiResponse(UploadResultSerializer, description="Duplicate of an upload"),
            400: ErrorResponseSerializer,
            404: OpenApiResponse(description="No such matter, or not a member"),
            413: OpenApiResponse(ErrorResponseSerializer, description="File over the limit"),
        },
    )
    def post(self, request: Request, matter_id: int) -> Response:
        # Refused before the body is read: the limit is the file's plus Django's for the rest.
        declared = request.META.get("CONTENT_LENGTH") or "0"
        limit = settings.UPLOAD_MAX_BYTES + settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if declared.isdigit() and int(declared) > limit:
            megabytes = settings.UPLOAD_MAX_BYTES / (1024 * 1024)
            message = f"The upload is larger than the limit of {megabytes:.1f} MB."
            return _error("TOO_LARGE", message, status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
        matter = matter_get_for_user(user=request.user, matter_id=matter_id)
        if matter is None:
            raise Http404("No such matter.")
        form = UploadSerializer(data=request.data)
        if not form.is_valid():
            return _error("INVALID", "Choose a file to upload (form field `file`).", 400)
        upload = form.validated_data["file"]
        try:
            contract, created = contract_upload(
                matter=matter,
                file=upload,
                name=upload.name or "upload",
                size=upload.size or 0,
                uploaded_by=request.user,
            )
        except UploadRejected as rejected:
            return _error(rejected.code, rejected.message, status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
        data = UploadResultSerializer(contract, context={"duplicate": not created}).data
        return Response(data, status=201 if created else 200)


class ContractDetailView(generics.RetrieveAPIView):
    serializer_class = ContractSerializer

    @extend_schema(summary="A contract's status, progress and metadata")
    def get(self, request: Request, contract_id: int) -> Response:
        return Response(ContractSerializer(_contract_or_404(request, contract_id)).data)

    @extend_schema(
        summary="Delete a contract and everything read from it",
        description="Organisation admins; the uploader too while the upload failed or is not "
        "read yet. Erases the original file, text, passages, review, verifications and queue "
        "items, and the file name in stored live events; the audit log keeps the fact and "
        "hashes. Refused with 409 `LEGAL_HOLD` while the matter is on legal hold.",
        parameters=[
            OpenApiParameter(
                "reason",
                OpenApiTypes.STR,
                enum=list(DELETION_REASONS),
                default="requested",
                description="why the contract is deleted (recorded in the audit log)",
            )
        ],
        responses={
            204: OpenApiResponse(description="Deleted"),
            400: OpenApiResponse(ErrorResponseSerializer, description="Unknown reason"),
            403: OpenApiResponse(ErrorResponseSerializer, description="Not allowed to delete"),
            404: OpenApiResponse(ErrorResponseSerializer, description="No such contract"),
            409: OpenApiResponse(ErrorResponseSerializer, description="Matter on legal hold"),
        },
    )
    def delete(self, request: Request, contract_id: int) -> Response:
        contract = contract_get_for_deletion(user=request.user, contract_id=contract_id)
        if contract is None:
            raise Http404("No such contract.")
        if not contract_may_delete(user=request.user, contract=contract):
            return _error(
                "PERMISSION_DENIED",
                "Only an admin of the organisation can delete this contract.",
                403,
            )
        body = request.data if isinstance(request.data, dict) else {}
        reason = request.query_params.get("reason") or body.get("reason") or "requested"
        try:
            contract_delete(contract=contract, deleted_by=request.user, reason=str(reason))
        except ContractDeletionRefused as refused:
            code = status.HTTP_400_BAD_REQUEST if refused.code == "INVALID" else 409
            return _error(refused.code, refused.message, code)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ContractPassagesView(APIView):
    @extend_schema(summary="A contract's passages in order", responses=PassageSerializer(many=True))
    def get(self, request: Request, contract_id: int) -> Response:
        contract = _contract_or_404(request, contract_id)
        return Response(PassageSerializer(passage_list(contract=contract), many=True).data)


class ContractPasswordView(APIView):
    @extend_schema(
        summary="Supply the password of an encrypted PDF and ingest it again",
        request=PasswordSerializer,
        responses={202: ContractSerializer, 409: ErrorResponseSerializer},
    )
    def post(self, request: Request, contract_id: int) -> Response:
        contract = _contract_or_404(request, contract_id)
        form = PasswordSerializer(data=request.data)
        if not form.is_valid():
            return _error("INVALID", "Enter the document's password.", 400)
        try:
            contract = contract_retry_with_password(
                contract=contract, password=form.validated_data["password"]
            )
        except UploadRejected as rejected:
            return _error(rejected.code, rejected.message, status.HTTP_409_CONFLICT)
        return Response(ContractSerializer(contract).data, status=202)


INLINE_TYPES = {"pdf": "application/pdf"}  # only what the browser shows safely (pdf.js)


class ContractDownloadView(APIView):
    @extend_schema(
        summary="Download the original file",
        description="`?inline=1` serves a PDF inline as `application/pdf` (for the page's "
        "viewer); other types are always attachments.",
        parameters=[OpenApiParameter("inline", OpenApiTypes.BOOL, default=False)],
        responses={(200, "*/*"): bytes},
    )
    def get(self, request: Request, contract_id: int) -> FileResponse:
        contract = _contract_or_404(request, contract_id)
        inline_type = INLINE_TYPES.get(contract.kind)
        inline = request.query_params.get("inline") == "1" and inline_type is not None
        return FileResponse(
            contract_display_open(contract=contract) if inline else contract.file.open("rb"),
            as_attachment=not inline,
            filename=contract.original_name,
            content_type=inline_type if inline else "application/octet-stream",
        )
