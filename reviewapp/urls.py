from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path, re_path
from django.views.i18n import JavaScriptCatalog
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from reviewapp import converters  # noqa: F401  (registers the <id:...> converter)
from reviewapp.accounts import views as accounts_views
from reviewapp.accounts.api import MatterListView
from reviewapp.api_errors import api_not_found
from reviewapp.contracts import api as contracts_api
from reviewapp.contracts import views as contracts_views
from reviewapp.health import healthz
from reviewapp.portfolio import matter_views
from reviewapp.portfolio.api import MatterGridView
from reviewapp.queue import api as queue_api
from reviewapp.queue import views as queue_views
from reviewapp.realtime.api import EventListView
from reviewapp.reviews import views as reviews_views
from reviewapp.reviews.acting_for import urls as acting_for_urls
from reviewapp.reviews.api import (
    ContractPassagesView,
    ReviewDraftView,
    ReviewStateView,
    VerificationDetailView,
)
from reviewapp.reviews.batches.api import (
    MatterModelBatchesView,
    ModelBatchCancelView,
    ModelBatchDetailView,
)
from reviewapp.reviews.export_api import ReviewExportView
from reviewapp.reviews.redlines import api_urls as redline_urls
from reviewapp.rules import views as rules_views
from reviewapp.rules.api import PlaybookTestView

api_patterns = [
    path("matters/", MatterListView.as_view(), name="api-matters"),
    path(
        "matters/<id:matter_id>/contracts/",
        contracts_api.MatterContractsView.as_view(),
        name="api-matter-contracts",
    ),
    path(
        "matters/<id:matter_id>/intake/",
        contracts_api.MatterIntakeView.as_view(),
        name="api-matter-intake",
    ),
    path("intake/<id:batch_id>/", contracts_api.IntakeBatchView.as_view(), name="api-intake"),
    path(
        "intake/<id:batch_id>/dismiss/",
        contracts_api.IntakeBatchDismissView.as_view(),
        name="api-intake-dismiss",
    ),
    path(
        "contracts/<id:contract_id>/",
        contracts_api.ContractDetailView.as_view(),
        name="api-contract",
    ),
    path(
        "contracts/<id:contract_id>/passages/",
        ContractPassagesView.as_view(),
        name="api-contract-passages",
    ),
    path(
        "contracts/<id:contract_id>/passages/<id:index>/flags/",
        queue_api.PassageFlagsView.as_view(),
        name="api-passage-flags",
    ),
    path("queue/", queue_api.QueueListView.as_view(), name="api-queue"),
    path("queue/<id:item_id>/", queue_api.QueueItemView.as_view(), name="api-queue-item"),
    path("queue/<id:item_id>/claim/", queue_api.QueueClaimView.as_view(), name="api-queue-claim"),
    path(
        "queue/<id:item_id>/release/",
        queue_api.QueueReleaseView.as_view(),
        name="api-queue-release",
    ),
    path(
        "queue/<id:item_id>/decide/",
        queue_api.QueueDecideView.as_view(),
        name="api-queue-decide",
    ),
    path("queue/<id:item_id>/undo/", queue_api.QueueUndoView.as_view(), name="api-queue-undo"),
    path(
        "contracts/<id:contract_id>/password/",
        contracts_api.ContractPasswordView.as_view(),
        name="api-contract-password",
    ),
    path(
        "contracts/<id:contract_id>/download/",
        contracts_api.ContractDownloadView.as_view(),
        name="api-contract-download",
    ),
    path("matters/<id:matter_id>/grid/", MatterGridView.as_view(), name="api-matter-grid"),
    path("events/", EventListView.as_view(), name="api-events"),
    path("reviews/<id:review_id>/state/", ReviewStateView.as_view(), name="api-review-state"),
    path("reviews/<id:review_id>/draft/", ReviewDraftView.as_view(), name="api-review-draft"),
    path(
        "reviews/<id:review_id>/export.<str:fmt>",
        ReviewExportView.as_view(),
        name="api-review-export",
    ),
    path(
        "verifications/<id:verification_id>/",
        VerificationDetailView.as_view(),
        name="api-verification",
    ),
    path(
        "matters/<id:matter_id>/model-batches/",
        MatterModelBatchesView.as_view(),
        name="api-matter-model-batches",
    ),
    path("model-batches/<id:batch_id>/", ModelBatchDetailView.as_view(), name="api-model-batch"),
    path(
        "model-batches/<id:batch_id>/cancel/",
        ModelBatchCancelView.as_view(),
        name="api-model-batch-cancel",
    ),
    path("playbooks/test/", PlaybookTestView.as_view(), name="api-playbook-test"),
    *redline_urls.urlpatterns,
    *acting_for_urls.api_urlpatterns,
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    re_path(r"^(?P<path>[\s\S]*)$", api_not_found),  # last: JSON 404 for any unknown API path
]


def _favicon(request: HttpRequest) -> HttpResponsePermanentRedirect:
    # Resolved per request: with hashed static names the manifest exists only after collectstatic.
    return HttpResponsePermanentRedirect(static("img/favicon.svg"))


urlpatterns = [
    path("", matter_views.home, name="home"),
    path("matters/<id:matter_id>/", matter_views.matter_detail, name="matter"),
    path("matters/<id:matter_id>/rows/", matter_views.matter_rows, name="matter-rows"),
    path(
        "matters/<id:matter_id>/batches/",
        matter_views.matter_batches_panel,
        name="matter-batches",
    ),
    path("matters/new/", accounts_views.matter_new, name="matter-new"),
    path("matters/<id:matter_id>/members/", accounts_views.member_set, name="member-set"),
    path(
        "matters/<id:matter_id>/members/<id:membership_id>/remove/",
        accounts_views.member_remove,
        name="member-remove",
    ),
    path(
        "matters/<id:matter_id>/retention/",
        accounts_views.retention_set,
        name="matter-retention",
    ),
    path(
        "matters/<id:matter_id>/legal-hold/",
        accounts_views.legal_hold_set,
        name="matter-legal-hold",
    ),
    path(
        "matters/<id:matter_id>/legal-hold/lift/",
        accounts_views.legal_hold_lift,
        name="matter-legal-hold-lift",
    ),
    path("contracts/<id:contract_id>/", reviews_views.contract_detail, name="contract"),
    path(
        "contracts/<id:contract_id>/passages/<id:index>/reopen/",
        reviews_views.passage_reopen,
        name="passage-reopen",
    ),
    path(
        "contracts/<id:contract_id>/passages/<id:index>/flag/",
        queue_views.passage_flag,
        name="passage-flag",
    ),
    path(
        "contracts/<id:contract_id>/delete/",
        contracts_views.contract_delete_view,
        name="contract-delete",
    ),
    path(
        "contracts/<id:contract_id>/passages/",
        reviews_views.contract_passages,
        name="contract-passages",
    ),
    path(
        "contracts/<id:contract_id>/redlines/",
        reviews_views.contract_redlines,
        name="contract-redlines",
    ),
    path(
        "contracts/<id:contract_id>/highlights/",
        reviews_views.contract_highlights,
        name="contract-highlights",
    ),
    path(
        "contracts/<id:contract_id>/document-text/",
        reviews_views.contract_document_text,
        name="contract-document-text",
    ),
    path("playbooks/", rules_views.playbook_list, name="playbooks"),
    path(
        "routers/<id:router_id>/activate/",
        rules_views.router_activate_view,
        name="router-activate",
    ),
    path("playbooks/<id:playbook_id>/", rules_views.playbook_detail, name="playbook"),
    path("playbooks/<id:playbook_id>/edit/", rules_views.playbook_edit, name="playbook-edit"),
    path("playbooks/<id:playbook_id>/copy/", rules_views.playbook_copy_view, name="playbook-copy"),
    path(
        "playbooks/<id:playbook_id>/activate/",
        rules_views.playbook_activate_view,
        name="playbook-activate",
    ),
    path("queue/", include("reviewapp.queue.urls")),
    path("reports/", include("reviewapp.audit.reports.urls")),
    path("", include("reviewapp.audit.pages.urls")),
    path("", include("reviewapp.reviews.urls")),
    path("", include(acting_for_urls.urlpatterns)),
    path("", include("reviewapp.portfolio.urls")),
    path("", include("reviewapp.accounts.two_factor.urls")),
    path("", include("reviewapp.accounts.profile.urls")),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("jsi18n/", JavaScriptCatalog.as_view(), name="jsi18n"),
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    # Browsers ask for /favicon.ico on pages that do not name an icon (API responses, downloads).
    path("favicon.ico", _favicon),
    path("api/", include(api_patterns)),
]
