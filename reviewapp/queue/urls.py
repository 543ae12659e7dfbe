"""The lawyers' queue pages."""

from django.urls import path

from reviewapp import converters  # noqa: F401  (registers the <id:...> converter)
from reviewapp.queue import views

urlpatterns = [
    path("", views.queue_page, name="queue"),
    path("counts/", views.queue_counts, name="queue-counts"),
    path("bulk/", views.queue_bulk, name="queue-bulk"),
    path("<id:item_id>/", views.queue_item_fragment, name="queue-item"),
    path("<id:item_id>/claim/", views.queue_claim, name="queue-claim"),
    path("<id:item_id>/release/", views.queue_release, name="queue-release"),
    path("<id:item_id>/decide/", views.queue_decide, name="queue-decide"),
    path("<id:item_id>/undo/", views.queue_undo, name="queue-undo"),
    path("<id:item_id>/comment/", views.queue_comment, name="queue-comment"),
    path("<id:item_id>/note/", views.queue_note, name="queue-note"),
]
