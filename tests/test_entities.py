"""Dates and version tags normalized as entities, and their use in BM25 tokens."""

from __future__ import annotations

import pytest

from core.entities import (
    Entity,
    date_tokens,
    entities,
    month_number,
    title_agreement,
    without_entities,
)
from core.lexical import tokenize


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Community Call - Auguest 18 2016", {("date", "2016-08-18")}),
        ("What was said on August 18, 2016?", {("date", "2016-08-18")}),
        ("Was wurde am 18. August 2016 besprochen?", {("date", "2016-08-18")}),
        ("Community Call - 15th December 2016", {("date", "2016-12-15")}),
        ("2018-08-16 OpenXT Monthly Community Call minutes", {("date", "2018-08-16")}),
        ("Treffen am 16.08.2018", {("date", "2018-08-16")}),
        # a two-digit year after dots may be a version too: both readings are kept
        ("Treffen am 23.7.15?", {("date", "2015-07-23"), ("version", "23.7.15")}),
        ("Kernel 4.4.15", {("date", "2015-04-04"), ("version", "4.4.15")}),
        ("Notes of 31.12.99", {("date", "1999-12-31"), ("version", "31.12.99")}),
        ("Kernel 3.18.28", {("version", "3.18.28")}),
        ("Host 10.0.0.1", {("version", "10.0.0.1")}),
        ("Meeting on 8/27/2015", {("date", "2015-08-27")}),
        ("Meeting on 09/25/15", {("date", "2015-09-25")}),
        ("Meeting on 27/8/2015", {("date", "2015-08-27")}),
        ("Meeting on 13/13/2015", set()),
        ("Firmware 4.0/88", {("version", "4.0")}),
        ("September 2017 OpenXT Community Call", {("date", "2017-09")}),
        ("im Dezember 2016", {("date", "2016-12")}),
        ("Release 5.0 (2015)", {("date", "2015"), ("version", "5.0")}),
        ("Stable-9 rc1 Test Matrix (results)", {("rc", "rc1")}),
        ("the RC 2 build", {("rc", "rc2")}),
        ("OpenXT 9.0.0 DRAFT Release Notes", {("version", "9.0.0")}),
        ("OpenXT 7.x Builds", {("version", "7")}),
        ("XT Xen 4.3.4 Patch Queue", {("version", "4.3.4")}),
        ("March to the office, then match 12 of 2016 items", {("date", "2016")}),
        ("no dates or versions here", set()),
    ],
)
def test_entities_are_normalized(text, expected):
    assert {(e.kind, e.value) for e in entities(text)} == expected


@pytest.mark.parametrize(
    "word, month",
    [("August", 8), ("Auguest", 8), ("Dezember", 12), ("Sept", 9), ("Mai", 5), ("Mail", None)],
)
def test_month_names_in_two_languages_with_one_typo_in_long_names(word, month):
    assert month_number(word) == month


@pytest.mark.parametrize(
    "query, title, expected",
    [
        ("Stable-9 rc1 results", "Stable-9 rc1 Test Matrix (results)", 1),
        ("Stable-9 rc1 results", "Stable-9 rc2 Test Matrix (results)", -1),
        ("call on August 18, 2016", "Community Call - Auguest 18 2016", 1),
        ("call on August 18, 2016", "Community Call - August 20 2015", -1),
        ("Treffen am 23.7.15", "Community Call - July 23 2015", 1),
        ("meeting on 7/23/15", "Community Call - July 23 2015", 1),
        ("Treffen am 18.8.16", "Community Call - August 20 2015", -1),
        ("Treffen am 18.8.16", "Community Call - Auguest 18 2016", 1),
        ("calls in August 2016", "Community Call - Auguest 18 2016", 1),
        ("OpenXT 9.0 measurements", "OpenXT 9.0.0 DRAFT Release Notes", 1),
        ("OpenXT 9.0 measurements", "OpenXT 8.0 Measurement test", -1),
        ("measurement tests", "OpenXT 8.0 Measurement test", 0),
        ("OpenXT 7.1 builds", "OpenXT 7.x Builds", 1),
    ],
)
def test_title_agreement_rewards_the_same_entity_and_penalizes_another(query, title, expected):
    assert title_agreement(entities(query), entities(title)) == expected


def test_prefix_matching_is_by_whole_parts():
    assert Entity("version", "9.0").matches(Entity("version", "9.0.2"))
    assert not Entity("version", "9.0").matches(Entity("version", "9.01"))
    assert not Entity("date", "2016").matches(Entity("version", "2016"))


def test_every_spelling_of_a_date_gives_the_same_bm25_tokens():
    title = date_tokens("Community Call - Auguest 18 2016")
    assert title == ["date:2016-08", "date:2016-08-18"]
    assert set(title) <= set(tokenize("What was decided on August 18, 2016?"))
    assert set(title) <= set(tokenize("Was wurde am 18. August 2016 beschlossen?", "de"))
    assert "date:2016-08" in tokenize("the calls of August 2016")


def test_a_numeric_date_gives_the_bm25_tokens_of_the_date_in_words():
    title = date_tokens("Community Call - July 23 2015")
    assert set(title) <= set(tokenize("Wie lautete die Einwahlnummer am 23.7.15?", "de"))
    assert set(title) <= set(tokenize("What was the dial-in number on 7/23/2015?"))


@pytest.mark.parametrize(
    "text, kinds, expected",
    [
        ("Stable-9 rc2 Test Matrix (results)", ("rc",), "Stable-9 Test Matrix (results)"),
        ("Community Call - July 23 2015", ("date",), "Community Call -"),
        ("2018-08-16 OpenXT Monthly Community Call", ("date",), "OpenXT Monthly Community Call"),
        ("Treffen am 23.7.15 um 10", ("date",), "Treffen am um 10"),
        ("OpenXT 9.0 rc1 Measurement Test", ("date",), "OpenXT 9.0 rc1 Measurement Test"),
    ],
)
def test_without_entities_takes_out_the_named_kinds_only(text, kinds, expected):
    assert without_entities(text, kinds) == expected
