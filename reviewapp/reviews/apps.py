from django.apps import AppConfig


class ReviewsConfig(AppConfig):
    name = "reviewapp.reviews"
    label = "reviews"
