from django.apps import AppConfig


class PortfolioConfig(AppConfig):
    """A matter as a whole: the portfolio grid, its exports, and re-runs on a newer playbook.

    The top layer: it reads contracts, reviews and the queue, and imports nothing above it.
    """

    name = "reviewapp.portfolio"
