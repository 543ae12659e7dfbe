from django.apps import AppConfig


class ReviewsConfig(AppConfig):
    name = "reviewapp.reviews"
    label = "reviews"

    def ready(self) -> None:
        # Imported here, not at the top: an AppConfig's module is imported before the models
        # are ready, and the services import models. Contracts announce a stored contract; the
        # review scans it.
        from reviewapp.contracts.signals import contract_read
        from reviewapp.reviews.services import review_contract_read

        contract_read.connect(review_contract_read, dispatch_uid="reviews.scan-read-contract")
