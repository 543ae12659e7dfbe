"""The lawyers' queue pages."""

from django.urls import path

from reviewapp.queue import views

urlpatterns = [
    path("", views.queue_page, name="queue"),
    path("<int:item_id>/claim/", views.queue_claim, name="queue-claim"),
    path("<int:item_id>/decide/", views.queue_decide, name="queue-decide"),
]
