import pytest

from tests.factories import ingested_contract

SUPPLY = (
    "SUPPLY AGREEMENT\n\n"
    "This Supply Agreement is made between Borealis Retail Ltd., a company organized and existing "
    'under the laws of England ("Buyer"), and Acme Widgets Inc., a Delaware corporation '
    '("Seller").\n\n'
    "1. Payment. Buyer shall pay each invoice within 30 days.\n\n"
    "2. Exclusivity. Seller shall not sell the Products to any other retailer in the Territory.\n"
)
ZH_SUPPLY = (
    "采购合同\n\n甲方：北京北极星零售有限公司\n\n乙方：上海顶点制造有限公司\n\n"
    "第一条 付款。甲方应支付全部货款。\n\n第二条 独家。乙方不得向其他零售商供货。\n"
)


@pytest.fixture
def supply(matter):
    return ingested_contract(matter=matter, text=SUPPLY, name="supply.txt")


@pytest.fixture
def zh_supply(matter):
    return ingested_contract(matter=matter, text=ZH_SUPPLY, name="zh.txt")
