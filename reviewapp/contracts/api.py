"""REST API for contracts. Views check input and call services or selectors."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import FileResponse, Http404
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from reviewapp.accounts.selectors import matter_get_for_user
from reviewapp.api_errors import ErrorResponseSerializer
from reviewapp.contracts.deletion import (
    DELETION_REASONS,
    ContractDeletionRefused,
    contract_delete,
    contract_get_for_deletion,
    contract_may_delete,
)
from reviewapp.contracts.intake.archive import ZipRefused
from reviewapp.contracts.intake.codes import FailureCode
from reviewapp.contracts.intake.progress import intake_progress
from reviewapp.contracts.intake.selectors import intake_batch_get_for_user
from reviewapp.contracts.intake.serializers import (
    IntakeBatchSerializer,
    IntakeUploadSerializer,
    intake_batch_data,
)
from reviewapp.contracts.intake.services import (
    intake_batch_announce,
    intake_batch_dismiss,
    intake_file_receive,
    intake_zip_receive,
)
from reviewapp.contracts.models import Contract, IntakeBatch, IntakeStatus
from reviewapp.contracts.selectors import (
    contract_get_for_user,
    contract_list_for_user,
)
from reviewapp.contracts.serializers import (
    ContractSerializer,
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
        if form.validated_data.get("batch"):
            folder = form.validated_data.get("path", "")
            return _batch_file(request, matter.pk, form.validated_data["batch"], upload, folder)
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


def _batch_file(
    request: Request, matter_id: int, batch_id: int, upload: Any, folder: str
) -> Response:
    """One file of an announced batch (a dropped folder): a contract or a listed failure."""
    batch = _receiving_batch(request, str(batch_id), matter_id)
    if batch is None:
        return _error("INVALID", "No such upload batch receiving files in this matter.", 400)
    contract, created = intake_file_receive(
        batch=batch,
        file=upload,
        name=upload.name or "upload",
        size=upload.size or 0,
        folder_path=folder,
    )
    if contract is None:
        failure = IntakeBatch.objects.get(pk=batch.pk).failures[-1]
        return _error(failure["code"], gettext(failure["message"]), 413)
    data = UploadResultSerializer(contract, context={"duplicate": not created}).data
    return Response(data, status=201 if created else 200)


def _receiving_batch(request: Request, batch_id: str, matter_id: int) -> IntakeBatch | None:
    if not batch_id.isdigit():
        return None
    batch = intake_batch_get_for_user(user=request.user, batch_id=int(batch_id))
    if batch is None or batch.matter_id != matter_id or batch.status != IntakeStatus.RECEIVING:
        return None
    return batch


class MatterIntakeView(APIView):
    parser_classes = [MultiPartParser, FormParser, JSONParser]

    @extend_schema(
        summary="Bulk upload: a zip of contracts, or announce files to send one by one",
        description="With `file`, a zip: checked before anything is unpacked (at most "
        "`INTAKE_MAX_ENTRIES` files, `INTAKE_MAX_UNCOMPRESSED_BYTES` unpacked, the zip and "
        "each entry over 1 MiB expanding at most `INTAKE_MAX_RATIO` times, no absolute paths, "
        "`..` or links); a refused zip answers 400 with the reason (`ZIP_BOMB`, "
        "`PATH_TRAVERSAL`, `TOO_MANY_ENTRIES`, `ZIP_TOO_BIG`, `NOT_A_ZIP`, `EMPTY`), 413 with "
        "`TOO_LARGE` or `QUOTA_EXCEEDED` (the matter's `MATTER_STORAGE_QUOTA_BYTES`). The "
        "accepted zip is unpacked in the background; each document keeps its folder "
        '(`folder_path`), a name that comes twice in a folder is kept for both ("name (2).pdf"), '
        "archives inside the zip, entries without a name and unreadable entries are listed as "
        "failures (with a `code` of a fixed list) while the rest goes on. "
        "Without `file`, `manifest` (`kind` folder or files) announces files, then posted one "
        "by one to the matter's contracts with `batch` and `path`. Follow a batch at "
        "`/api/intake/{id}/`.",
        request={"multipart/form-data": IntakeUploadSerializer},
        responses={
            201: IntakeBatchSerializer,
            400: ErrorResponseSerializer,
            404: OpenApiResponse(description="No such matter, or not a member"),
            413: OpenApiResponse(
                ErrorResponseSerializer,
                description="Zip over the limit, or over the matter's storage quota",
            ),
        },
    )
    def post(self, request: Request, matter_id: int) -> Response:
        matter = matter_get_for_user(user=request.user, matter_id=matter_id)
        if matter is None:
            raise Http404("No such matter.")
        form = IntakeUploadSerializer(data=request.data)
        if not form.is_valid():
            return _error("INVALID", "Send a zip (`file`) or a `manifest` of files.", 400)
        fields = form.validated_data
        if fields.get("file") is None:
            return self._announce(request, matter, fields)
        batch = None
        if fields.get("batch"):
            batch = _receiving_batch(request, str(fields["batch"]), matter.pk)
            if batch is None:
                return _error("INVALID", "No such upload batch receiving files here.", 400)
        upload = fields["file"]
        try:
            batch = intake_zip_receive(
                matter=matter,
                file=upload,
                name=upload.name or "upload.zip",
                size=upload.size or 0,
                uploaded_by=request.user,
                use_model_batch=fields["use_model_batch"],
                batch=batch,
            )
        except ZipRefused as refused:
            message = gettext(refused.message) % dict(refused.params)
            too_much = (FailureCode.TOO_LARGE, FailureCode.QUOTA_EXCEEDED)
            return _error(refused.code, message, 413 if refused.code in too_much else 400)
        return Response(intake_batch_data(intake_progress(batch=batch)), status=201)

    def _announce(self, request: Request, matter: Any, fields: dict[str, Any]) -> Response:
        manifest = fields.get("manifest")
        if not isinstance(manifest, list) or not all(isinstance(i, dict) for i in manifest):
            return _error("INVALID", "Send a zip (`file`) or a `manifest` of files.", 400)
        batch = intake_batch_announce(
            matter=matter,
            uploaded_by=request.user,
            name=fields["name"],
            source=fields["kind"],
            entries=manifest,
            use_model_batch=fields["use_model_batch"],
        )
        return Response(intake_batch_data(intake_progress(batch=batch)), status=201)


class IntakeBatchView(APIView):
    @extend_schema(
        summary="A bulk upload's progress: n of N, and each failure with its reason",
        responses={200: IntakeBatchSerializer, 404: ErrorResponseSerializer},
    )
    def get(self, request: Request, batch_id: int) -> Response:
        batch = intake_batch_get_for_user(user=request.user, batch_id=batch_id)
        if batch is None:
            raise Http404("No such upload batch.")
        return Response(intake_batch_data(intake_progress(batch=batch)))


class IntakeBatchDismissView(APIView):
    @extend_schema(
        summary="Stop waiting for files a bulk upload announced and never sent",
        description="They are listed as failures: “Upload did not finish”.",
        request=None,
        responses={200: IntakeBatchSerializer, 404: ErrorResponseSerializer},
    )
    def post(self, request: Request, batch_id: int) -> Response:
        batch = intake_batch_get_for_user(user=request.user, batch_id=batch_id)
        if batch is None:
            raise Http404("No such upload batch.")
        batch = intake_batch_dismiss(batch=batch)
        return Response(intake_batch_data(intake_progress(batch=batch)))


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


BOOLEAN_QUERY = {"1": True, "true": True, "0": False, "false": False}


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
    def get(self, request: Request, contract_id: int) -> FileResponse | Response:
        contract = _contract_or_404(request, contract_id)
        inline_type = INLINE_TYPES.get(contract.kind)
        asked = request.query_params.get("inline", "0")
        if asked not in BOOLEAN_QUERY:
            return _error("INVALID", "`inline` is 1 or 0 (true or false).", 400)
        inline = BOOLEAN_QUERY[asked] and inline_type is not None
        return FileResponse(
            contract_display_open(contract=contract) if inline else contract.file.open("rb"),
            as_attachment=not inline,
            filename=contract.original_name,
            content_type=inline_type if inline else "application/octet-stream",
        )
