"""The Chinese router: character n-grams, the quoted-label layout of ../shared/data/zh, training
from it, the shipped model, and the playbook's figures on the real Chinese dev contracts."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from reviewapp.rules.services import DEFAULTS_DIR
from reviewapp.text.evaluation import evaluate, load_documents
from reviewapp.text.router import shipped_router_path
from reviewapp.text.router.features import passage_view, readable, tokens
from reviewapp.text.router.model import load_router
from tests.rules.zh_corpus import AUDIT, LD, LD_CLAUSES, write_zh_folder


def test_chinese_text_is_read_as_character_grams_and_english_as_before():
    view = passage_view("乙方应支付违约金。", "第八条 违约责任", "上一条", "")
    found = tokens(view)
    assert {"c:违", "c:违约", "c:违约金", "h:违约", "n:上一"} <= set(found)
    assert readable("h:违约") == "heading: 违约"
    english = tokens(passage_view("The Licensee shall pay royalties.", "Royalties", "", ""))
    assert not any(t.startswith("c:") for t in english)
    assert "w:licensee shall" in english


def test_a_folder_of_quoted_labels_loads_as_spans_with_boilerplate_apart(tmp_path):
    folder = write_zh_folder(tmp_path / "zh", documents=3)
    documents, categories = load_documents(folder)
    assert [d.id for d in documents] == ["c00_sale", "c01_sale", "c02_sale"]
    assert categories == [AUDIT, LD]
    first = documents[0]
    start, end = first.labels[LD][0]
    assert first.text[start:end] == LD_CLAUSES[0][:12]
    report = evaluate(folder, DEFAULTS_DIR / "commercial-zh.yaml")
    assert report["boilerplate"] == 3 and report["boilerplate_flagged"] == 0
    assert report["categories"][LD]["caught"] == 3


def test_a_quote_missing_from_its_text_is_refused_with_the_file_named(tmp_path):
    folder = write_zh_folder(tmp_path / "zh", documents=1)
    (folder / "c00_sale.labels.json").write_text(
        json.dumps([{"article": "", "quote": "不在文中的引文", "category": LD}]), encoding="utf-8"
    )
    with pytest.raises(ValueError, match="c00_sale.labels.json"):
        load_documents(folder)


@pytest.mark.parametrize(
    ("spoil", "said"),
    [
        (lambda folder: (folder / "c00_sale.txt").unlink(), "c00_sale.txt"),
        (lambda folder: (folder / "c00_sale.labels.json").write_text("[{"), "not JSON"),
    ],
)
def test_evaluate_playbook_says_which_file_of_a_quoted_folder_is_unreadable(tmp_path, spoil, said):
    folder = write_zh_folder(tmp_path / "zh", documents=2)
    spoil(folder)
    with pytest.raises(CommandError, match=f"cannot read the labelled documents: .*{said}"):
        call_command("evaluate_playbook", str(folder), "--playbook", "commercial-zh")


def test_train_router_learns_chinese_clauses_from_a_quoted_folder(tmp_path, capsys):
    folder = write_zh_folder(tmp_path / "zh")
    out = tmp_path / "router-zh.npz"
    call_command("train_router", str(folder), "--playbook", "commercial-zh", "--out", str(out))
    assert "both" in capsys.readouterr().out
    model = load_router(out)
    assert LD in model.categories
    clause, filler = (
        passage_view("如甲方逾期付款，应向乙方支付违约金。", "违约责任", "", ""),
        passage_view("本合同正本一式四份。", "其他", "", ""),
    )
    scores = model.probabilities([clause, filler])
    column = model.categories.index(LD)
    assert scores[0, column] > scores[1, column]
    assert any("违约" in feature for feature in model.explain(clause, column))


def test_the_chinese_playbook_runs_the_shipped_chinese_router(db):
    from reviewapp.rules.learned.versions import router_for, router_sync_shipped
    from reviewapp.text.engine import load_playbook

    assert load_playbook(DEFAULTS_DIR / "commercial-zh.yaml").router.enabled
    model = load_router(shipped_router_path("zh"))
    assert model.meta["cross_validated"]["both"]["recall"] > 0.6
    router_sync_shipped()
    found, label = router_for(organisation_id=None, language="zh")
    assert found is not None and LD in found.categories and label


@pytest.mark.cuad
def test_the_chinese_rules_on_real_contracts_catch_more_and_leave_boilerplate(zh_dir):
    """Rules alone on the 32 dev contracts (half of the new vocabulary was written from the
    a-half; see README for the held-out figure)."""
    report = evaluate(zh_dir, DEFAULTS_DIR / "commercial-zh.yaml")
    assert report["labelled"] == 489 and report["boilerplate"] == 173
    assert report["overall_recall"] >= 0.5
    assert report["routed_share_pooled"] <= 0.30
    assert report["boilerplate_flagged"] <= 25
