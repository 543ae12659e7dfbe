"""Governing-law jurisdictions as canonical names: "New York, United States", "Ontario, Canada",
"England and Wales, United Kingdom", "China".

A short table by hand: pycountry knows ISO names ("Korea, Republic of") but not how contracts
name a jurisdiction ("the State of New York", "the PRC", "中华人民共和国"), and the list of
states and provinces a contract picks is short.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

US_STATES = [
    "Alabama", "Alaska", "Arizona", "Arkansas", "California", "Colorado", "Connecticut",
    "Delaware", "Florida", "Georgia", "Hawaii", "Idaho", "Illinois", "Indiana", "Iowa", "Kansas",
    "Kentucky", "Louisiana", "Maine", "Maryland", "Massachusetts", "Michigan", "Minnesota",
    "Mississippi", "Missouri", "Montana", "Nebraska", "Nevada", "Ohio", "Oklahoma", "Oregon",
    "Pennsylvania", "Tennessee", "Texas", "Utah", "Vermont", "Virginia", "Washington", "Wisconsin",
    "Wyoming", "New Hampshire", "New Jersey", "New Mexico", "New York", "North Carolina",
    "North Dakota", "Rhode Island", "South Carolina", "South Dakota", "West Virginia",
    "District of Columbia",
]  # fmt: skip
CANADIAN_PROVINCES = [
    "Alberta", "British Columbia", "Manitoba", "New Brunswick", "Newfoundland and Labrador",
    "Nova Scotia", "Ontario", "Prince Edward Island", "Quebec", "Saskatchewan",
]  # fmt: skip
AUSTRALIAN_STATES = ["New South Wales", "Victoria", "Queensland", "Western Australia"]
UK_PARTS = ["England and Wales", "England", "Scotland", "Northern Ireland", "Wales"]
COUNTRIES = [
    "Argentina", "Australia", "Austria", "Belgium", "Bermuda", "Brazil", "British Virgin Islands",
    "Canada", "Cayman Islands", "Chile", "China", "Colombia", "Cyprus", "Czech Republic",
    "Denmark", "Finland", "France", "Germany", "Greece", "Hong Kong", "Hungary", "India",
    "Indonesia", "Ireland", "Israel", "Italy", "Japan", "Luxembourg", "Macau", "Malaysia",
    "Mexico", "Netherlands", "New Zealand", "Norway", "Philippines", "Poland", "Portugal",
    "Russia", "Singapore", "South Africa", "South Korea", "Spain", "Sweden", "Switzerland",
    "Taiwan", "Thailand", "Turkey", "United Arab Emirates", "United Kingdom", "United States",
    "Vietnam",
]  # fmt: skip
ALIASES = {
    "people's republic of china": "China",
    "peoples republic of china": "China",
    "p.r. china": "China",
    "p.r.c.": "China",
    "prc": "China",
    "mainland china": "China",
    "中华人民共和国": "China",
    "中国": "China",
    "香港": "Hong Kong",
    "hong kong sar": "Hong Kong",
    "hong kong special administrative region": "Hong Kong",
    "republic of korea": "South Korea",
    "korea": "South Korea",
    "the netherlands": "Netherlands",
    "holland": "Netherlands",
    "u.s.a.": "United States",
    "u.s.": "United States",
    "usa": "United States",
    "united states of america": "United States",
    "great britain": "United Kingdom",
    "u.k.": "United Kingdom",
    "uk": "United Kingdom",
    "republic of singapore": "Singapore",
    "state of israel": "Israel",
    "federal republic of germany": "Germany",
    "republic of ireland": "Ireland",
    "commonwealth of pennsylvania": "Pennsylvania",
    "commonwealth of massachusetts": "Massachusetts",
    "commonwealth of virginia": "Virginia",
    "commonwealth of kentucky": "Kentucky",
    "england & wales": "England and Wales",
    "new york state": "New York",
    "the district of columbia": "District of Columbia",
}
_COUNTRY_OF = (
    {name: "United States" for name in US_STATES}
    | {name: "Canada" for name in CANADIAN_PROVINCES}
    | {name: "Australia" for name in AUSTRALIAN_STATES}
    | {name: "United Kingdom" for name in UK_PARTS}
)
_NAMES = sorted([*ALIASES, *(n.lower() for n in [*_COUNTRY_OF, *COUNTRIES])], key=len, reverse=True)
JURISDICTION_RE = re.compile(
    r"(?<![A-Za-z])(?:the\s+)?(?:(?:state|province|commonwealth|republic|kingdom)\s+of\s+(?:the\s+)?)?"
    r"(?P<name>" + "|".join(re.escape(n).replace(r"\ ", r"\s+") for n in _NAMES) + r")(?![A-Za-z])",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Jurisdiction:
    region: str  # a state, province or part of the country; "" for a whole country
    country: str

    @property
    def name(self) -> str:
        return f"{self.region}, {self.country}" if self.region else self.country


def canonical(words: str) -> Jurisdiction | None:
    """The jurisdiction a name stands for: "the State of New York" -> New York, United States."""
    key = " ".join(words.split()).strip(" .,;").lower()
    key = re.sub(r"^(?:the\s+)?(?:(?:state|province|commonwealth)\s+of\s+(?:the\s+)?)", "", key)
    name = ALIASES.get(key) or ALIASES.get(f"commonwealth of {key}")
    if name is None:
        name = next((n for n in [*_COUNTRY_OF, *COUNTRIES] if n.lower() == key), None)
    if name is None:
        return None
    if name in _COUNTRY_OF:
        return Jurisdiction(region=name, country=_COUNTRY_OF[name])
    return Jurisdiction(region="", country=name)


def find_jurisdictions(
    text: str, start: int = 0, end: int | None = None
) -> list[tuple[int, int, Jurisdiction]]:
    """Each jurisdiction named in ``text[start:end]``, with its span, in order."""
    end = len(text) if end is None else end
    found = []
    for match in JURISDICTION_RE.finditer(text, start, end):
        place = canonical(match.group("name"))
        if place is not None:
            found.append((match.start(), match.end(), place))
    return found


def normalise_jurisdiction(words: str) -> Jurisdiction | None:
    """The most specific jurisdiction in a phrase: "laws of the State of Delaware, U.S.A." is
    Delaware; "the laws of the Province of Ontario and the federal laws of Canada" is Ontario."""
    found = [place for _, _, place in find_jurisdictions(words)]
    regional = [place for place in found if place.region]
    if regional:
        return regional[0]
    return found[0] if found else None


# The names in Chinese, for a reader of the Chinese pages ("中国", "纽约州，美国").
ZH_NAMES = {
    "Alabama": "亚拉巴马州", "Alaska": "阿拉斯加州", "Arizona": "亚利桑那州",
    "Arkansas": "阿肯色州", "California": "加利福尼亚州", "Colorado": "科罗拉多州",
    "Connecticut": "康涅狄格州", "Delaware": "特拉华州", "Florida": "佛罗里达州",
    "Georgia": "佐治亚州", "Hawaii": "夏威夷州", "Idaho": "爱达荷州", "Illinois": "伊利诺伊州",
    "Indiana": "印第安纳州", "Iowa": "艾奥瓦州", "Kansas": "堪萨斯州", "Kentucky": "肯塔基州",
    "Louisiana": "路易斯安那州", "Maine": "缅因州", "Maryland": "马里兰州",
    "Massachusetts": "马萨诸塞州", "Michigan": "密歇根州", "Minnesota": "明尼苏达州",
    "Mississippi": "密西西比州", "Missouri": "密苏里州", "Montana": "蒙大拿州",
    "Nebraska": "内布拉斯加州", "Nevada": "内华达州", "Ohio": "俄亥俄州",
    "Oklahoma": "俄克拉何马州", "Oregon": "俄勒冈州", "Pennsylvania": "宾夕法尼亚州",
    "Tennessee": "田纳西州", "Texas": "得克萨斯州", "Utah": "犹他州", "Vermont": "佛蒙特州",
    "Virginia": "弗吉尼亚州", "Washington": "华盛顿州", "Wisconsin": "威斯康星州",
    "Wyoming": "怀俄明州", "New Hampshire": "新罕布什尔州", "New Jersey": "新泽西州",
    "New Mexico": "新墨西哥州", "New York": "纽约州", "North Carolina": "北卡罗来纳州",
    "North Dakota": "北达科他州", "Rhode Island": "罗得岛州", "South Carolina": "南卡罗来纳州",
    "South Dakota": "南达科他州", "West Virginia": "西弗吉尼亚州",
    "District of Columbia": "哥伦比亚特区", "Alberta": "艾伯塔省",
    "British Columbia": "不列颠哥伦比亚省", "Manitoba": "马尼托巴省",
    "New Brunswick": "新不伦瑞克省", "Newfoundland and Labrador": "纽芬兰与拉布拉多省",
    "Nova Scotia": "新斯科舍省", "Ontario": "安大略省",
    "Prince Edward Island": "爱德华王子岛省", "Quebec": "魁北克省",
    "Saskatchewan": "萨斯喀彻温省", "New South Wales": "新南威尔士州", "Victoria": "维多利亚州",
    "Queensland": "昆士兰州", "Western Australia": "西澳大利亚州",
    "England and Wales": "英格兰和威尔士", "England": "英格兰", "Scotland": "苏格兰",
    "Northern Ireland": "北爱尔兰", "Wales": "威尔士", "Argentina": "阿根廷",
    "Australia": "澳大利亚", "Austria": "奥地利", "Belgium": "比利时", "Bermuda": "百慕大",
    "Brazil": "巴西", "British Virgin Islands": "英属维尔京群岛", "Canada": "加拿大",
    "Cayman Islands": "开曼群岛", "Chile": "智利", "China": "中国", "Colombia": "哥伦比亚",
    "Cyprus": "塞浦路斯", "Czech Republic": "捷克", "Denmark": "丹麦", "Finland": "芬兰",
    "France": "法国", "Germany": "德国", "Greece": "希腊", "Hong Kong": "中国香港",
    "Hungary": "匈牙利", "India": "印度", "Indonesia": "印度尼西亚", "Ireland": "爱尔兰",
    "Israel": "以色列", "Italy": "意大利", "Japan": "日本", "Luxembourg": "卢森堡",
    "Macau": "中国澳门", "Malaysia": "马来西亚", "Mexico": "墨西哥", "Netherlands": "荷兰",
    "New Zealand": "新西兰", "Norway": "挪威", "Philippines": "菲律宾", "Poland": "波兰",
    "Portugal": "葡萄牙", "Russia": "俄罗斯", "Singapore": "新加坡", "South Africa": "南非",
    "South Korea": "韩国", "Spain": "西班牙", "Sweden": "瑞典", "Switzerland": "瑞士",
    "Taiwan": "中国台湾", "Thailand": "泰国", "Turkey": "土耳其",
    "United Arab Emirates": "阿拉伯联合酋长国", "United Kingdom": "英国",
    "United States": "美国", "Vietnam": "越南",
}  # fmt: skip


def name_in_chinese(name: str) -> str:
    """A canonical name ("New York, United States") in Chinese ("纽约州，美国"); a name the table
    does not know stays as it is."""
    region, _, country = name.rpartition(", ")
    if not region:
        return ZH_NAMES.get(name, name)
    return f"{ZH_NAMES.get(region, region)}，{ZH_NAMES.get(country, country)}"
