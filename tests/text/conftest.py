"""Tests of the text core (reviewapp/text/): plain Python, no Django settings, no database.

`make test-text` runs them alone with Django's pytest plugin off and without the suite's
conftest (which sets up users and matters); `make test` runs them with everything else.
"""
