"""Category labels as a lawyer writes them, whatever capitals CUAD's names carry."""

from __future__ import annotations

import re

from django.utils import translation

from reviewapp.rules.display_labels import CATEGORY_LABELS, category_label
from tests.rules.cuad_categories import CUAD_CLAUSES


def test_acronyms_are_capitals_and_small_words_are_not():
    assert category_label("Ip Ownership Assignment") == "IP Ownership Assignment"
    assert category_label("Rofr/Rofo/Rofn") == "ROFR/ROFO/ROFN"
    assert category_label("Change Of Control") == "Change of Control"
    with translation.override("en"):
        for name in CUAD_CLAUSES:
            label = category_label(name)
            assert not re.search(r"\b(?:Ip|Of|To|For|On|Or)\b", label), label


def test_every_cuad_clause_has_a_chinese_label():
    with translation.override("zh-hans"):
        assert category_label("Ip Ownership Assignment") == "知识产权归属与转让"
        labelled = [name for name in CUAD_CLAUSES if name in CATEGORY_LABELS]
        assert len(labelled) == len(CUAD_CLAUSES)
        assert all(re.search(r"[\u4e00-\u9fff]", category_label(n)) for n in labelled)
