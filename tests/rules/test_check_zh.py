"""The second-stage check for Chinese contracts: character grams as its words, boilerplate
labels as negatives and as a figure, training from a quoted folder, and the shipped check-zh."""

from __future__ import annotations

import json

import numpy as np
from django.core.management import call_command

from reviewapp.rules.checks import check_for
from reviewapp.rules.services import DEFAULTS_DIR
from reviewapp.text.check import shipped_check_path
from reviewapp.text.check.features import text_words
from reviewapp.text.check.model import load_check
from reviewapp.text.check.training import examples_from_documents
from reviewapp.text.contract_type import detect_contract_type
from reviewapp.text.engine import compile_playbook, load_playbook
from reviewapp.text.evaluation import BOILERPLATE, load_documents
from reviewapp.text.router.features import passage_view, tokens
from reviewapp.text.segmentation import segment
from tests.rules.zh_corpus import LD, LD_CLAUSES, write_zh_folder


def test_a_chinese_check_reads_character_grams_and_an_english_one_words_alone():
    mixed = tokens(passage_view("The Seller (北京钢铁公司) shall pay 违约金.", "违约责任", "", ""))
    chinese = text_words(mixed, language="zh")
    assert {"c:违约金", "c:违约", "h:违约", "w:seller"} <= set(chinese)
    english = text_words(mixed, language="en")
    assert "w:seller" in english and not any(t.startswith("c:") for t in english)


def test_a_boilerplate_span_the_first_stage_names_is_a_negative_and_counted(tmp_path):
    folder = write_zh_folder(tmp_path / "zh", documents=2)
    # Label the first contract's penalty clause as boilerplate: the rules still name it.
    path = folder / "c00_sale.labels.json"
    labels = [row for row in json.loads(path.read_text(encoding="utf-8")) if row["category"] != LD]
    labels.append(
        {"article": "第一条 违约责任", "quote": LD_CLAUSES[0][:12], "category": BOILERPLATE}
    )
    path.write_text(json.dumps(labels, ensure_ascii=False), encoding="utf-8")
    documents, categories = load_documents(folder)
    compiled = compile_playbook(load_playbook(DEFAULTS_DIR / "commercial-zh.yaml"))
    examples = examples_from_documents(
        documents,
        categories,
        compiled,
        router=None,
        segmenter=segment,
        contract_type=detect_contract_type,
    )
    spoiled = examples[0]
    rows = spoiled.boilerplate[1]  # the penalty clause, after the contract's own boilerplate
    named = [k for k, c in enumerate(spoiled.candidates) if c.row in rows and c.category == LD]
    assert named, "the rules should name the penalty clause"
    assert not spoiled.target[named].any() and spoiled.judged[named].all()
    assert len(examples[1].boilerplate) == 1
    audit = [k for k, c in enumerate(examples[1].candidates) if c.category == "Audit Rights"]
    assert audit and examples[1].target[audit].any()


def test_train_check_on_a_chinese_folder_writes_a_check_with_boilerplate_figures(tmp_path, capsys):
    folder = write_zh_folder(tmp_path / "zh", documents=9)
    out = tmp_path / "check-zh.npz"
    call_command(
        "train_check", str(folder), "--playbook", "commercial-zh", "--out", str(out), "--folds", "3"
    )
    printed = capsys.readouterr().out
    assert "boilerplate reaching a lawyer 0 of 9" in printed
    model = load_check(out)
    assert model.meta["playbook"] == "commercial-zh" and model.meta["documents"] == 9
    assert LD in model.thresholds
    assert any(model.coef[model.idf > 0])  # the character grams weigh


def test_the_shipped_chinese_check_loads_without_pickle_and_records_held_out_figures():
    path = shipped_check_path("zh")
    with np.load(path, allow_pickle=False) as arrays:
        header = json.loads(arrays["header"].tobytes())
    assert header["format"] == "clausewise.check/1"
    meta = load_check(path).meta
    assert meta["playbook"] == "commercial-zh" and meta["documents"] == 32
    first, checked = meta["cross_validated"]["first_stage"], meta["cross_validated"]["checked"]
    assert checked["recall"] >= first["recall"] - 0.06
    assert checked["category_precision"] > 1.5 * first["category_precision"]
    assert checked["categories_per_item"] < first["categories_per_item"] / 1.5
    assert checked["boilerplate"] == 173
    assert checked["boilerplate_reached"] <= first["boilerplate_reached"]


def test_a_chinese_review_loads_the_chinese_check():
    assert load_playbook(DEFAULTS_DIR / "commercial-zh.yaml").check.enabled
    check, label = check_for(language="zh")
    assert check is not None and label.startswith("check-zh@")
    assert check_for(language="en")[1].startswith("check-en@")
