"""Key facts as values: the normalisers and the finders of reviewapp.text.facts."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from reviewapp.text.engine import compile_playbook, key_facts_find, load_playbook
from reviewapp.text.facts import find_facts, normalise_fact
from reviewapp.text.facts import guess as guessing
from reviewapp.text.facts.amounts import find_amounts
from reviewapp.text.facts.dates import parse_date
from reviewapp.text.facts.durations import add_duration, parse_duration
from reviewapp.text.facts.guess import GuessModel
from reviewapp.text.facts.jurisdictions import normalise_jurisdiction
from reviewapp.text.facts.parties import find_parties, parties_from, party_name
from reviewapp.text.facts.renewal import notice_period, renewal_term
from reviewapp.text.facts.title import clean_title
from reviewapp.text.segmentation import segment

PLAYBOOKS = Path(__file__).resolve().parents[2] / "reviewapp" / "rules" / "playbooks"


@pytest.mark.parametrize(
    ("words", "iso"),
    [
        ("March 1, 2019", "2019-03-01"),
        ("the 1st day of March, 2019", "2019-03-01"),
        ("this 24t h day of August 2018", "2018-08-24"),
        ("1 March 2019", "2019-03-01"),
        ("1st March, 2019", "2019-03-01"),
        ("Mar. 1st, 2019", "2019-03-01"),
        ("JULY 15, 2005", "2005-07-15"),
        ("July 11 , 2006", "2006-07-11"),
        ("2019-03-01", "2019-03-01"),
        ("3/5/98", "1998-03-05"),
        ("18/9/2008", "2008-09-18"),
        ("1.3.2019", "2019-03-01"),
        ("2019年3月1日", "2019-03-01"),
        ("2019 年 3 月", "2019-03"),
        ("March 2019", "2019-03"),
        ("March __, 2019", "2019-03"),
        ("the ___ day of June, 2015", "2015-06"),
        ("the last day of February, 2024", "2024-02-29"),
        ("_______, 2019", "2019"),
        ("[·], 2019", "2019"),
        ("the ____ day of _______________2000", "2000"),
    ],
)
def test_dates_in_many_forms_read_as_iso(words, iso):
    assert parse_date(words) == iso


@pytest.mark.parametrize(
    "words", ["February 30, 2019", "13/13/2019", "no date here", "Section 3.1"]
)
def test_what_is_not_a_date_reads_as_none(words):
    assert parse_date(words) is None


@pytest.mark.parametrize(
    ("words", "duration"),
    [
        ("five (5) years", "P5Y"),
        ("thirty (30) days", "P30D"),
        ("sixty (60) days’ prior written notice", "P60D"),
        ("twelve (12) full calendar months", "P12M"),
        ("twenty-four (24) months", "P24M"),
        ("90 days", "P90D"),
        ("one year", "P1Y"),
        ("successive one-year periods", "P1Y"),
        ("三十日", "P30D"),
        ("为期一年", "P1Y"),
        ("二十四个月", "P24M"),
    ],
)
def test_durations_read_as_iso_8601(words, duration):
    assert parse_duration(words) == duration


@pytest.mark.parametrize(
    ("words", "name"),
    [
        ("the laws of the State of New York", "New York, United States"),
        ("the Commonwealth of Massachusetts", "Massachusetts, United States"),
        ("the State of Delaware, U.S.A. (without conflicts rules)", "Delaware, United States"),
        ("the laws of the Province of Ontario and the federal laws of Canada", "Ontario, Canada"),
        ("the law of England and Wales", "England and Wales, United Kingdom"),
        ("the laws of the People's Republic of China", "China"),
        ("中华人民共和国", "China"),
        ("the laws of Hong Kong SAR", "Hong Kong"),
    ],
)  # fmt: skip
def test_governing_law_phrasings_name_one_jurisdiction(words, name):
    place = normalise_jurisdiction(words)
    assert place is not None and place.name == name


def test_parties_come_without_addresses_or_contact_names():
    preamble = (
        "This Agreement is made by and between Rogers Cable Communications Inc., an Ontario "
        "corporation with offices at 333 Bloor Street East, Toronto, Ontario M4W 1G9 "
        '("Rogers"), and EuroMedia Holdings Corp., a Nevada corporation, Attn: John Smith, '
        '1 Main Street, Reno ("Licensor").'
    )
    assert parties_from(preamble) == [
        {"name": "Rogers Cable Communications Inc.", "role": "Rogers"},
        {"name": "EuroMedia Holdings Corp.", "role": "Licensor"},
    ]


@pytest.mark.parametrize(
    ("opening", "parties"),
    [
        (  # a defined term of the contract is no party; the next party follows a description
            'This Agreement ("Agreement") is made effective March 22, 2018, by and between Freeze '
            'Tag Inc., a Delaware Corporation ("Company"), with its principal place of business '
            "located at 1720 Bray Central Drive, McKinney, TX 75069 and the American Diabetes "
            'Association, Inc. ("Association"), an Ohio not-for profit corporation.',
            [
                ("Freeze Tag Inc.", "Company"),
                ("American Diabetes Association, Inc.", "Association"),
            ],
        ),
        (  # the role comes first, the description after it
            'This Agreement is entered into between CNS Pharmaceuticals, Inc. ("CNS"), a Nevada '
            'corporation, and WPD Pharmaceuticals, a Polish company ("WPD").',
            [("CNS Pharmaceuticals, Inc.", "CNS"), ("WPD Pharmaceuticals", "WPD")],
        ),
        (  # "hereinafter referred to as", without parentheses
            "TURN-KEY MANUFACTURING AGREEMENT by and between: INVASIX LTD., with a principal place "
            'of business at Tavor Building, Yokneam, Israel. Hereinafter referred to as "Customer" '
            "And FLEXTRONICS ISRAEL LTD. with a principal place of business at Migdal Haemek, "
            'Israel. Hereinafter referred to as "Contractor." Whereas the parties wish to agree.',
            [("INVASIX LTD.", "Customer"), ("FLEXTRONICS ISRAEL LTD.", "Contractor")],
        ),
        (  # no "between": the title, then the parties
            "CONSULTING AGREEMENT Aduro Biotech, Inc., with a place of business at 740 Heinz "
            'Avenue, Berkeley, CA 94710 ("Aduro") and IREYA B.V having an address at '
            'Staalwijkstraat 16, Leiden, represented by Andrea van Elsas, ("Consultant") agree to '
            "all terms and conditions of this Consulting Agreement.",
            [("Aduro Biotech, Inc.", "Aduro"), ("IREYA B.V", "Consultant")],
        ),
        (  # labelled lines
            "Road Transportation Agreement\nParty A (Shipper): ZTO Express Co., Ltd. Address: "
            "Building 1, Shanghai\nParty B (Carrier): Tonglu Tongze Logistics Ltd. Address: 12 "
            "Floor, HSBC Tower, Tonglu County\n",
            [("ZTO Express Co., Ltd.", "Party A"), ("Tonglu Tongze Logistics Ltd.", "Party B")],
        ),
        (  # a lower-case brand is a name; a letter's salutation is not part of it
            'Ladies and Gentlemen: iShip.com, Inc., a Washington corporation (the "Company"), and '
            'Mail Boxes Etc. USA, Inc., a California corporation ("MBE") agree as follows.',
            [("iShip.com, Inc.", "Company"), ("Mail Boxes Etc. USA, Inc.", "MBE")],
        ),
    ],
)
def test_the_parties_are_read_from_the_opening_passages(opening, parties):
    fact = find_parties(segment(opening))
    assert fact is not None
    assert [(p["name"], p["role"]) for p in fact.value] == parties
    assert fact.quote == parties[0][0] and fact.passage_index is not None


def test_words_that_are_no_name_are_no_party():
    opening = (
        "Exhibit 10.39 IN ACCORDANCE WITH ITEM 601(b) OF REGULATION S-K, CERTAIN IDENTIFIED "
        'INFORMATION (THE "CONFIDENTIAL INFORMATION") HAS BEEN EXCLUDED. This Amendment No. 3 '
        '("Amendment No. 3") to the Distributor Agreement, as amended ("Agreement"), by and '
        'between Cisco Systems, Inc. ("Cisco"), a California corporation, and ScanSource, Inc. '
        '("Distributor"), is effective as of October 1, 2019 (the "Effective Date").'
    )
    fact = find_parties(segment(opening))
    assert fact is not None
    assert [p["name"] for p in fact.value] == ["Cisco Systems, Inc.", "ScanSource, Inc."]
    assert find_parties(segment("1. Services. The Supplier shall provide the Services.")) is None


def test_a_party_name_given_with_its_address_is_cut_to_the_name():
    assert party_name("Acme Widgets, Inc., a Delaware corporation, 12 High Street") == (
        "Acme Widgets, Inc."
    )
    assert party_name("Beta Stores LLC") == "Beta Stores LLC"


@pytest.mark.parametrize(
    ("clause", "renewal", "notice"),
    [
        (
            "2. Term. This Agreement shall automatically renew for additional successive terms of "
            "twelve (12) months each at the end of the Initial Term, unless either party notifies "
            "the other in writing at least sixty (60) days prior to the end of the Initial Term.",
            "P12M",
            "P60D",
        ),
        (
            "2. Term. After the Initial Term, this Agreement will be automatically renewed for "
            "successive additional 3-year periods, unless terminated by either party at least six "
            "months prior to the expiration of the then-current term.",
            "P3Y",
            "P6M",
        ),
        (  # the notice in the next sentence
            "2. Term. The term is twelve (12) months from the date hereof, and will be renewed for "
            "one (1) additional twelve month period unless either party shall notify the other of "
            "its intention not to renew. Such notice must be given ninety (90) days prior to "
            "expiration of the original term.",
            "P12M",
            "P90D",
        ),
        (  # a rolling contract, and the notice that ends it
            "2. Term. After the Initial Term, this Agreement shall continue on a month to month "
            "basis until terminated by either party upon thirty (30) days prior written notice.",
            "P1M",
            "P30D",
        ),
        (  # notice to take up an option to renew is not notice to stop a renewal
            "2. Term. If Distributor wishes to extend the term of the Agreement beyond the "
            "Initial Term, it must notify Airspan in writing at least six (6) months prior to the "
            "end of the Initial Term, and the term shall be extended for a further one-year term.",
            "P1Y",
            None,
        ),
    ],
)
def test_the_renewal_term_and_its_notice_are_read_as_durations(clause, renewal, notice):
    passages = segment(clause)
    renews = renewal_term(passages)
    assert renews is not None and renews.value == renewal and renews.extra == {"renews": True}
    assert renews.quote in passages[renews.passage_index].text
    stops = notice_period(passages)
    assert (stops.value if stops else None) == notice


def test_notice_of_an_insurance_policy_or_a_term_that_never_renews_is_no_notice_period():
    insurance = (
        "12. Insurance. Vendor shall maintain the policies, which shall not be renewed or "
        "cancelled without at least thirty (30) days' advance written notice of cancellation or "
        "non-renewal to the Customer."
    )
    assert notice_period(segment(insurance)) is None
    fixed = (
        "2. Term. This Agreement runs for five (5) years from the Effective Date. Either party may "
        "terminate it for breach upon thirty (30) days' written notice."
    )
    assert renewal_term(segment(fixed)) is None and notice_period(segment(fixed)) is None


@pytest.mark.parametrize(
    ("words", "name"),
    [
        ("EXECUTION VERSION CONFIDENTIAL DOMAIN NAME AND CONTENT LICENSE AGREEMENT",
         "DOMAIN NAME AND CONTENT LICENSE AGREEMENT"),
        ("Exhibit 10.2 Execution Copy PROMOTION AGREEMENT", "PROMOTION AGREEMENT"),
        ("AFFILIATE AGREEMENT DATED JULY 15, 2005", "AFFILIATE AGREEMENT"),
        ("CONSULTING AGREEMENT - DR. GAETANO MORELLO N.D. INC", "CONSULTING AGREEMENT"),
        ("Supply Agreement", "Supply Agreement"),
        ("Exhibit 99.1", "Exhibit 99.1"),  # nothing left that names a contract: as given
    ],
)  # fmt: skip
def test_a_contracts_name_comes_without_the_filings_words(words, name):
    assert clean_title(words) == name
    assert normalise_fact("Document Name", words) == (name, {})


def test_chinese_parties_are_read_from_their_labels():
    assert parties_from("甲方：北京某某科技有限公司\n地址：北京市\n乙方：上海某某有限公司\n") == [
        {"name": "北京某某科技有限公司", "role": "甲方"},
        {"name": "上海某某有限公司", "role": "乙方"},
    ]


def test_amounts_carry_their_currency():
    found = find_amounts("a fee of $1,500,000, a cap of US$ 2 million and 人民币10万元")
    assert [(a.amount, a.currency) for a in found] == [
        ("1500000", "USD"),
        ("2000000", "USD"),
        ("100000", "CNY"),
    ]


def test_a_models_words_normalise_like_the_offline_engines():
    assert normalise_fact("Agreement Date", "1st day of March, 2019") == ("2019-03-01", {})
    assert normalise_fact("Expiration Date", "in perpetuity")[0] == "perpetual"
    assert normalise_fact("Governing Law", "Texas")[0] == "Texas, United States"
    assert normalise_fact("Notice Period To Terminate Renewal", "ninety (90) days") == ("P90D", {})
    assert normalise_fact("Effective Date", "when both parties sign") == (None, {})


CONTRACT = (
    "EXHIBIT 10.1\n\nDISTRIBUTION AGREEMENT\n\n"
    'This Distribution Agreement (the "Agreement") is made and entered into as of the 3rd day of '
    "March, 2015 by and between Acme Widgets, Inc., a Delaware corporation with its principal "
    'office at 12 High Street, Dover ("Acme"), and Beta Supplies LLC, a Texas limited liability '
    'company ("Distributor").\n\n'
    "WHEREAS, Acme and Distributor are parties to a Supply Agreement dated June 1, 2010.\n\n"
    "1. Term. The initial term of this Agreement shall commence on the Effective Date and "
    "continue for a period of five (5) years from the Effective Date. This Agreement shall "
    "automatically renew for successive one (1) year periods unless either party gives at least "
    "ninety (90) days prior written notice of non-renewal.\n\n"
    "2. Governing Law. This Agreement shall be governed by the laws of the State of New York.\n"
)


@pytest.fixture
def facts():
    compiled = compile_playbook(load_playbook(PLAYBOOKS / "commercial-en.yaml"))
    passages = segment(CONTRACT)
    return key_facts_find(compiled, CONTRACT, passages), passages


def test_each_fact_quotes_the_passage_it_was_read_from(facts):
    found, passages = facts
    assert found["Agreement Date"].value == "2015-03-03"
    assert found["Effective Date"].value == "2015-03-03"
    assert found["Effective Date"].extra == {"derived_from": "Agreement Date"}
    assert found["Governing Law"].value == "New York, United States"
    for fact in found.values():
        if fact.passage_index is not None:
            assert fact.quote and fact.quote in passages[fact.passage_index].text


def test_expiration_is_computed_from_for_n_years_from_the_effective_date(facts):
    found, _ = facts
    expiration = found["Expiration Date"]
    assert expiration.value == "2020-03-03"
    assert expiration.extra["computed"] is True
    assert expiration.extra["term"] == "P5Y"
    assert expiration.extra["renews"] is True


def test_renewal_notice_and_parties_are_values(facts):
    found, _ = facts
    assert found["Renewal Term"].value == "P1Y"
    assert found["Notice Period To Terminate Renewal"].value == "P90D"
    assert found["Parties"].value == [
        {"name": "Acme Widgets, Inc.", "role": "Acme"},
        {"name": "Beta Supplies LLC", "role": "Distributor"},
    ]


def _facts_of(text: str):
    return find_facts(segment(text))


def test_a_term_until_terminated_is_perpetual():
    found = _facts_of(
        "SERVICES AGREEMENT\n\nThis Agreement is dated May 2, 2018.\n\n"
        "5. Term. This Agreement will commence on the Effective Date and will continue until "
        "terminated as provided below.\n"
    )
    assert found["Expiration Date"].value == "perpetual"
    assert found["Expiration Date"].quote == "until terminated"


def test_an_end_date_the_contract_names_wins_and_is_not_computed():
    found = _facts_of(
        "LICENSE AGREEMENT\n\nThis License Agreement is entered into as of July 11, 2006.\n\n"
        "3. Term. The term of this Agreement shall commence as of the Effective Date and shall "
        "terminate on June 30, 2010.\n"
    )
    assert found["Expiration Date"].value == "2010-06-30"
    assert found["Expiration Date"].extra["computed"] is False


def test_a_term_after_a_long_proviso_is_counted_from_and_after_the_effective_date():
    found = _facts_of(
        'CO-BRANDING AGREEMENT\n\nThis Agreement is made as of May 22, 2000 (the "Effective '
        'Date").\n\n10.1 Initial Term. This Agreement will become effective as of the Effective '
        "Date and, unless sooner terminated under Sections 3.1 or 10.2, shall remain effective "
        "for two (2) years from and after the Effective Date.\n"
    )
    assert found["Expiration Date"].value == "2002-05-22"


def test_a_term_for_so_long_as_the_parties_hold_shares_is_perpetual():
    found = _facts_of(
        "SHAREHOLDERS AGREEMENT\n\nThis Agreement is dated May 16, 2017.\n\n7.1 Term. This "
        "Agreement shall become effective as of the Effective Date and shall continue to be in "
        "full force and effect for so long as each party remains a Shareholder.\n"
    )
    assert found["Expiration Date"].value == "perpetual"


@pytest.mark.parametrize(
    ("term", "end"),
    [
        (
            "6.1 Term. The term of this Agreement shall begin on the Effective Date and continue "
            'for three (3) years thereafter (the "Initial Term") and shall renew for one (1) year '
            "terms unless either party gives notice.",
            "2012-04-15",
        ),
        (
            "2. TERM AND RENEWAL 2.01. The term of this Agreement shall be for 10 years commencing "
            "on the date of execution of this Agreement.",
            "2019-04-15",
        ),
        (
            "9. Term. The term of this Agreement commences on the Effective Date and shall "
            "continue until the later of (a) the fourth (4th) anniversary of the Effective Date, "
            "or (b) the delivery of every report.",
            "2013-04-15",
        ),
        (
            "9. Term. This Agreement shall remain in effect until the later of (a) July 31, 2021 "
            "or (b) the date the parties sign a commercial supply agreement.",
            "2021-07-31",
        ),
        (
            "9.1 Term. Except as otherwise set forth in Section 9.2, the term of this Agreement "
            'shall be eighteen (18) months ("Term").',
            "2010-10-15",
        ),
    ],
)
def test_a_term_counted_from_its_start_is_computed(term, end):
    found = _facts_of(
        f"SUPPLY AGREEMENT\n\nThis Agreement is made as of April 15, 2009.\n\n{term}\n"
    )
    assert found["Expiration Date"].value == end


def test_a_term_from_a_month_without_its_day_ends_in_a_month():
    found = _facts_of(
        "DISTRIBUTION AGREEMENT\n\nThis Agreement is made as of April __, 2005.\n\n9.1 Term. "
        'The term of this Agreement shall be eighteen (18) months ("Term").\n'
    )
    assert found["Expiration Date"].value == "2006-10"


@pytest.mark.parametrize(
    "term",
    [
        '"Term" means the period of time commencing on the Effective Date and continuing '
        "thereafter indefinitely until this Agreement is terminated under Section 10.",
        "9.1 Term. This Agreement shall be effective as of the Effective Date and the term of this "
        "Agreement shall continue in effect until the Licensee ceases to sell the Product.",
        # "License" before "Agreement" names this contract, not a licence that outlives it
        "9.1 Term. This License Agreement shall continue in full force and effect until "
        "terminated by either party in accordance with Section 9.",
        "9.1 Term. The term of this Agreement shall commence on the Effective Date and continue "
        "until the Agreement is terminated pursuant to Section 10.",
        "9.1 Term. This Agreement shall not expire, but either party may terminate it below.",
        "9.1 Term. This Agreement is effective from the Effective Date and will continue unless "
        "terminated.",
    ],
)
def test_a_term_without_an_end_the_contract_dates_is_perpetual(term):
    found = _facts_of(f"LICENSE AGREEMENT\n\nThis Agreement is dated May 2, 2018.\n\n{term}\n")
    assert found["Expiration Date"].value == "perpetual"


@pytest.mark.parametrize(
    ("clause", "law"),
    [
        (
            "Regardless of the place of execution, this Agreement shall be governed by and "
            "construed exclusively in accordance with the laws and decisions of the State of "
            "Georgia.",
            "Georgia, United States",
        ),
        (
            "THESE RIGHTS AND OBLIGATIONS SHALL BE GOVERNED BY THE LAWS, OTHER THAN CHOICE OF LAW "
            "RULES, OF THE STATE OF GEORGIA.",
            "Georgia, United States",
        ),
        (
            "This Agreement is controlled by the laws of the State of Texas, and venue lies in "
            "Pecos County.",
            "Texas, United States",
        ),
        (
            "This Agreement shall be governed by and construed in accordance with Swiss law.",
            "Switzerland",
        ),
    ],
)
def test_governing_law_clauses_in_other_words(clause, law):
    found = _facts_of(f"SUPPLY AGREEMENT\n\nThis Agreement is dated May 2, 2018.\n\n12. {clause}\n")
    assert found["Governing Law"].value == law


def test_laws_a_party_is_subject_to_are_not_the_governing_law():
    found = _facts_of(
        "REINSURANCE AGREEMENT\n\nWHEREAS, the Company is a life insurer subject to certain "
        "capital requirements of the insurance laws and regulations of Delaware;\n"
    )
    assert "Governing Law" not in found


def test_a_contract_effective_on_its_last_signature_takes_the_last_signing_date():
    found = _facts_of(
        "MAINTENANCE AGREEMENT\n\nDate: March 1, 1998\n\n(c) This Agreement shall be effective "
        'on the date of signed acceptance ("Effective Date") by the Customer.\n\n'
        "IN WITNESS WHEREOF the parties sign below.\n\nBy: /s/ A. Smith\nDate: March 4, 1998\n\n"
        "By: /s/ B. Jones\nDate: 3-5-98\n"
    )
    assert found["Effective Date"].value == "1998-03-05"
    assert found["Effective Date"].extra["derived_from"] == "signature"


@pytest.mark.parametrize(
    ("dated", "value"),
    [
        (
            "IN WITNESS WHEREOF, the undersigned hereby execute this Agreement this 14th day of "
            "February 2020.",
            "2020-02-14",
        ),
        (
            "IN WITNESS WHEREOF, the undersigned hereby execute this Agreement as of February 14, "
            "2020.",
            "2020-02-14",
        ),
        # day and month left blank: the year is the date
        (
            "IN WITNESS WHEREOF, the parties have duly executed, sealed and delivered this "
            "Addendum dated this ______ day of ______________, 2015.",
            "2015",
        ),
        ("This Addendum is made this ______ day of ______________, 2015.", "2015"),
    ],
)
def test_the_testimonium_dates_a_contract_whose_preamble_does_not(dated, value):
    found = _facts_of(
        "JOINDER AGREEMENT\n\nThe undersigned agree to be bound by the Stockholders Agreement.\n\n"
        + "".join(f"{n}. Covenant. Each holder keeps covenant {n} in full.\n\n" for n in range(30))
        + f"{dated}\n\nCLARUS IV-A, L.P.\nBy: /s/ A. Smith\n"
    )
    assert found["Agreement Date"].value == value


def test_a_term_clause_with_no_date_and_no_period_is_open_ended():
    found = _facts_of(
        "REMARKETING AGREEMENT\n\nThis Agreement is dated February 15, 2011.\n\n8. Term. This "
        "Agreement shall terminate (i) on the Business Day after the Settlement Date, (ii) when "
        "the Remarketing fails, or (iii) when the Remarketing Agent resigns.\n"
    )
    assert found["Expiration Date"].value == "perpetual"
    assert found["Expiration Date"].quote == "This Agreement shall terminate"


def test_a_term_ending_on_a_counted_day_is_counted_in_days():
    found = _facts_of(
        "SUPPORT AGREEMENT\n\nThis Agreement is dated July 16, 2012.\n\n7. Term. This "
        "Agreement shall automatically terminate at and as of (the first to occur of): (a) 12:00 "
        "midnight, New York City time, on the 30th day after the Effective Date (if the Offer has "
        "not commenced) and (b) the expiration of the Offer.\n"
    )
    expiration = found["Expiration Date"]
    assert (expiration.value, expiration.extra["term"]) == ("2012-08-15", "P30D")
    assert expiration.quote == "30th day after the"


def test_a_term_counted_from_an_undated_event_is_estimated_from_the_start():
    found = _facts_of(
        "HOSTING AGREEMENT\n\nThis Agreement is made as of January 5, 2001.\n\n"
        "10.1 Term. This Agreement shall continue in force for three years from the Launch Date.\n"
    )
    expiration = found["Expiration Date"]
    assert expiration.value == "2004-01-05"
    assert expiration.extra["estimated"] is True
    assert expiration.extra["event"] == "Launch Date"


@pytest.mark.parametrize(
    "clause",
    [
        "9.1 Non-solicitation. During the Term of this Agreement and for a period of two (2) years "
        "following the termination, neither Party will solicit the other's employees.",
        "9.2 Confidentiality. This Section 9.2 shall survive termination or expiration of this "
        "Agreement and continue in effect thereafter for a period of five (5) years.",
        "9.3 Minimums. This restriction ends if the Buyer has not met its commitment for a full "
        "Contract Year.",
    ],
)
def test_a_period_after_or_within_the_term_is_not_the_term(clause):
    found = _facts_of(
        "SUPPLY AGREEMENT\n\nThis Agreement is made as of January 5, 2001.\n\n" + clause + "\n"
    )
    assert "Expiration Date" not in found


@pytest.mark.parametrize("dated", ["July 16, 2012", "____, 2012"])
@pytest.mark.parametrize(
    "term",
    [
        "This Agreement shall terminate on the 99999999999th day after the Effective Date.",
        "This Agreement shall terminate on the 3000000th day after the Effective Date.",
        "This Agreement shall continue for 99999 years from the Effective Date.",
        "This Agreement shall expire on the 9999th anniversary of the Effective Date.",
    ],
)
def test_a_term_past_the_end_of_the_calendar_is_no_expiration(dated, term):
    found = _facts_of(f"SUPPLY AGREEMENT\n\nThis Agreement is dated {dated}.\n\n7. Term. {term}\n")
    assert "Expiration Date" not in found


def test_adding_a_duration_past_the_calendar_gives_none():
    assert add_duration(date(2012, 7, 16), "P99999Y") is None
    assert add_duration(date(2012, 7, 16), "P99999999999D") is None
    assert add_duration(date(2012, 7, 16), "P3Y") == date(2015, 7, 16)


def test_a_date_of_another_agreement_is_not_the_agreement_date():
    found = _facts_of(
        "AMENDMENT NO. 2\n\nWHEREAS, the parties have executed that certain Co-Branding Agreement "
        "dated October 11, 1996.\n\nTHIS SECOND AMENDMENT is made and entered into as of the 23rd "
        "day of February, 1998.\n"
    )
    assert found["Agreement Date"].value == "1998-02-23"


def test_the_signature_date_stands_in_when_the_preamble_has_none():
    found = _facts_of(
        "MAINTENANCE AGREEMENT\n\nThe parties agree as follows.\n\n1. Services. Vendor maintains "
        "the system.\n\nVendor By: /s/ A. Smith Date: 1/19/07 Customer By: /s/ B. Jones Date: "
        "January 22, 2007\n"
    )
    assert found["Agreement Date"].value == "2007-01-22"


@pytest.mark.parametrize(
    ("text", "fact", "value"),
    [
        pytest.param(
            "LICENSE AGREEMENT\n\nThis Agreement is entered into as of June 12, 2019 (the "
            '"Execution Date").\n\n11.1 Term. The term shall begin upon acceptance of the filing '
            'no later than September 2, 2019 (such date, the "Effective Date").\n',
            "Effective Date", "2019-09-02", id="such-date-the-effective-date",
        ),
        pytest.param(
            "JOINT FILING STATEMENT\n\n"
            + "".join(f"{n}. Filing. Each of them files amendment {n}.\n\n" for n in range(20))
            + "Date: April 7, 2020 BANK OF AMERICA CORPORATION By: /s/ A. Smith Name: A. Smith "
            "Title: Attorney-in-fact\n",
            "Agreement Date", "2020-04-07", id="date-line-joined-to-the-signature-block",
        ),
        pytest.param(
            "SPONSORSHIP AGREEMENT\n\nThis Agreement is dated November 27, 2017.\n\n1. Term of "
            "Agreement. The term of this Agreement shall commence as of April 1, 2018 and shall "
            "expire upon the later of: (a) the conclusion of the 2022/23 NFL season and (b) the "
            "last day in February, 2023, unless sooner terminated.\n",
            "Expiration Date", "2023-02-28", id="the-dated-item-of-a-later-of-list",
        ),
        pytest.param(
            "SERVICE AGREEMENT\n\nThis Agreement is dated 26 September 2019.\n\n1.2 Your "
            "employment shall commence on 26 September 2019 and shall continue unless and until "
            "either party gives notice to the other in accordance with paragraph 11 below.\n",
            "Expiration Date", "perpetual", id="employment-until-notice-is-open-ended",
        ),
    ],
)  # fmt: skip
def test_a_fact_is_read_from_its_words(text, fact, value):
    assert _facts_of(text)[fact].value == value


def test_one_signature_date_alone_is_not_the_agreement_date():
    found = _facts_of(
        "MAINTENANCE AGREEMENT\n\nThe parties agree as follows.\n\n"
        + "".join(f"{n}. Services. Vendor maintains system {n}.\n\n" for n in range(30))
        + "Vendor By: /s/ A. Smith Date: 7/1/17 Customer By: /s/ B. Jones\n"
    )
    assert "Agreement Date" not in found


def test_chinese_contract_facts_are_values():
    compiled = compile_playbook(load_playbook(PLAYBOOKS / "commercial-zh.yaml"))
    text = (
        "技术服务合同\n\n甲方：北京某某科技有限公司\n乙方：上海某某信息技术有限公司\n\n"
        "本合同自2024年3月1日起生效，有效期为三年。本合同适用中华人民共和国法律。"
    )
    found = key_facts_find(compiled, text, segment(text))
    assert found["Effective Date"].value == "2024-03-01"
    assert found["Governing Law"].value == "China"
    assert found["Parties"].value[0] == {"name": "北京某某科技有限公司", "role": "甲方"}


TERM_IN_A_WORD = (
    "SERVICES AGREEMENT\n\nThis Agreement is dated March 1, 2019.\n\n1. Services. The Provider "
    "provides the services.\n\n2. Term. Three (3) years.\n\n3. Fees. The Client pays the fees.\n"
)


def _model(**weights: float) -> GuessModel:
    return GuessModel(weights={k.replace("_", "="): w for k, w in weights.items()}, bias=-3.0,
                      threshold=0.5)  # fmt: skip


def test_a_learned_guess_fills_an_expiration_the_finders_miss():
    passages = segment(TERM_IN_A_WORD)
    assert "Expiration Date" not in find_facts(passages, guesser=None)
    guessed = find_facts(passages, guesser=_model(kind_durY=4.0, head_True=1.0))["Expiration Date"]
    assert (guessed.value, guessed.quote) == ("2022-03-01", "Three (3) years")
    assert guessed.extra["guessed"] is True and guessed.extra["score"] == 0.88
    assert guessed.display == "March 1, 2022"


def test_a_guess_below_the_threshold_or_on_a_chinese_contract_says_nothing():
    too_low = _model(head_True=1.0)
    assert "Expiration Date" not in find_facts(segment(TERM_IN_A_WORD), guesser=too_low)
    chinese = "技术服务合同\n\n本合同于2024年3月1日签订。\n\n第二条 期限。三年。\n"
    assert "Expiration Date" not in find_facts(segment(chinese), guesser=_model(kind_dateC=9.0))


def test_a_trained_guess_prefers_what_was_right_and_the_shipped_one_loads():
    passages = segment(TERM_IN_A_WORD)
    found = guessing.candidates(passages, find_facts(passages, guesser=None)["Agreement Date"])
    assert {c.value for c in found} == {"2019-03-01", "2022-03-01"}
    model = guessing.train([[(c, c.value == "2022-03-01") for c in found]] * 5, threshold=0.5)
    assert model.weights["kind=durY"] > 0 > model.weights["kind=dateC"]
    shipped = guessing.shipped_model()
    assert shipped is not None and shipped.meta["documents"] >= 300
    assert shipped.as_json()["format"] == guessing.FORMAT


def test_a_date_with_a_close_competitor_is_unsure_and_names_it():
    found = _facts_of(
        "ENDORSEMENT AGREEMENT\n\nThis Agreement is dated as of this ____ day of __________, 2012, "
        'but made effective as of February 20, 2012 ("Effective Date") between A and B.\n'
    )["Agreement Date"]
    assert (found.value, found.extra["unsure"]) == ("2012", True)
    assert found.extra["candidate"] == {
        "value": "2012-02-20", "display": "February 20, 2012",
        "passage_index": found.passage_index, "quote": "February 20, 2012",
    }  # fmt: skip


def test_a_preamble_date_the_testimonium_contradicts_is_unsure():
    found = _facts_of(
        "SUPPLY AGREEMENT\n\nThis Agreement is made as of March 12, 2019 by A and B.\n\n"
        "1. Supply. A supplies B.\n\nIN WITNESS WHEREOF, the parties have executed this "
        "Agreement as of February 4, 2005.\n"
    )
    assert found["Agreement Date"].value == "2019-03-12"
    assert found["Agreement Date"].extra["candidate"]["value"] == "2005-02-04"
    # the effective date it stands in for is as unsure
    assert found["Effective Date"].extra["candidate"]["value"] == "2005-02-04"


def test_a_royalty_effective_date_competes_with_the_agreement_date():
    found = _facts_of(
        "LICENSE AGREEMENT\n\nThis Agreement is entered into as of June 12, 2019 by A and B.\n\n"
        "1. Definitions.\n\n"
        + "".join(f"1.{n} Term {n}. A meaning.\n\n" for n in range(6))
        + '5.2 Royalties accrue from January 1, 2020 (the "Royalty Effective Date").\n'
    )["Effective Date"]
    assert (found.value, found.extra["unsure"]) == ("2020-01-01", True)
    assert found.extra["candidate"]["value"] == "2019-06-12"


@pytest.mark.parametrize(
    "text",
    [
        # a date the contract takes effect on beside the date it was made: two facts, no rivalry
        "CONSULTING AGREEMENT\n\nThis Consulting Agreement is dated June 1, 2020, effective as of "
        'July 1, 2020 ("Effective Date").\n',
        # another agreement's date, and the same date less precisely in the testimonium
        "SUPPLY AGREEMENT\n\nThis Agreement is made as of May 23, 2017.\n\nWHEREAS, the parties "
        "are parties to that certain Supply Agreement dated June 1, 2010.\n\nIN WITNESS WHEREOF, "
        "the parties have executed this Agreement as of _____, 2017.\n",
    ],
)
def test_a_date_read_once_or_restated_is_not_unsure(text):
    found = _facts_of(text)
    assert not any(fact.extra.get("unsure") for fact in found.values())


def test_two_end_dates_in_the_term_clause_make_the_expiration_unsure():
    found = _facts_of(
        "SERVICES AGREEMENT\n\nThis Agreement is dated March 1, 2019.\n\n2. Term. This Agreement "
        "shall expire on December 31, 2021, provided that the Services shall end on June 30, "
        "2022.\n"
    )["Expiration Date"]
    assert (found.value, found.extra["candidate"]["value"]) == ("2021-12-31", "2022-06-30")


def test_a_chinese_date_the_same_pattern_reads_twice_is_unsure():
    compiled = compile_playbook(load_playbook(PLAYBOOKS / "commercial-zh.yaml"))
    text = (
        "补充协议\n\n甲方：北京某某科技有限公司\n乙方：上海某某信息技术有限公司\n\n"
        "本补充协议于2019年3月12日签订。\n\n"
        "第一条 双方于2005年2月4日签订的《技术服务合同》继续有效。\n\n"
        "第二条 本补充协议自2019年4月1日起生效。\n"
    )
    found = key_facts_find(compiled, text, segment(text))
    agreement = found["Agreement Date"]
    assert (agreement.value, agreement.extra["unsure"]) == ("2019-03-12", True)
    assert agreement.extra["candidate"] == {
        "value": "2005-02-04", "display": "2005年2月4日", "passage_index": 2,
        "quote": "2005年2月4日",
    }  # fmt: skip
    # the effective date the playbook reads, not the agreement date standing in for it
    assert (found["Effective Date"].value, found["Effective Date"].extra) == ("2019-04-01", {})
