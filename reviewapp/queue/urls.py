"""The lawyers' queue pages."""

from django.urls import path

from reviewapp.queue import views

urlpatterns = [
    path("", views.queue_page, name="queue"),
    path("counts/", views.queue_counts, name="queue-counts"),
    path("bulk/", views.queue_bulk, name="queue-bulk"),
    path("<int:item_id>/", views.queue_item_fragment, name="queue-item"),
    path("<int:item_id>/claim/", views.queue_claim, name="queue-claim"),
    path("<int:item_id>/release/", views.queue_release, name="queue-release"),
    path("<int:item_id>/decide/", views.queue_decide, name="queue-decide"),
    path("<int:item_id>/undo/", views.queue_undo, name="queue-undo"),
    path("<int:item_id>/comment/", views.queue_comment, name="queue-comment"),
    path("<int:item_id>/note/", views.queue_note, name="queue-note"),
]
