"""Small Chinese contracts in the quoted-label layout of ../shared/data/zh (NAME.txt beside
NAME.labels.json): a liquidated-damages clause, an audit clause and a boilerplate line each."""

from __future__ import annotations

import json

from reviewapp.text.evaluation import BOILERPLATE

LD = "Liquidated Damages"
AUDIT = "Audit Rights"
LD_CLAUSES = [
    "乙方逾期交货的，每逾期一日应按合同总价的千分之三向甲方支付违约金。",
    "卖方未能按期交货的，应按迟交货物价款的百分之一交付罚金。",
    "一方违约的，应向守约方支付合同总额百分之十的违约金。",
]
AUDIT_CLAUSES = [
    "甲方有权在正常工作时间内查阅乙方与本合同有关的账簿和记录。",
    "许可方有权委托会计师事务所对被许可方的销售账目进行审计。",
]
FILLER = [
    "本合同一式两份，双方各执一份，具有同等法律效力。",
    "双方的通知地址以本合同首页所载为准。",
    "本合同自双方签字盖章之日起生效。",
]


def write_zh_folder(folder, documents: int = 10):
    """``documents`` small contracts in the quoted layout: NAME.txt beside NAME.labels.json."""
    folder.mkdir()
    for n in range(documents):
        ld, audit, filler = LD_CLAUSES[n % 3], AUDIT_CLAUSES[n % 2], FILLER[n % 3]
        text = f"第一条 违约责任\n{ld}\n\n第二条 审计\n{audit}\n\n第三条 其他\n{filler}\n"
        labels = [
            {"article": "第一条 违约责任", "quote": ld[:12], "category": LD},
            {"article": "第二条 审计", "quote": audit[:12], "category": AUDIT},
            {"article": "第三条 其他", "quote": filler[:10], "category": BOILERPLATE},
        ]
        (folder / f"c{n:02d}_sale.txt").write_text(text, encoding="utf-8")
        (folder / f"c{n:02d}_sale.labels.json").write_text(
            json.dumps(labels, ensure_ascii=False), encoding="utf-8"
        )
    return folder
