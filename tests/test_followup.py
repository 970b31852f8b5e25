"""The slots of a follow-up (`core.followup`): kinds learned from table rows, substitution
by kind, references back, the shape of a question, and the clarifying reply."""

from __future__ import annotations

import pytest

from core.followup import (
    added_places,
    clarification,
    counted_thing,
    definite_noun,
    following_up,
    header_core,
    is_elliptical,
    is_following_up,
    learn_kinds,
    mentions,
    needs_topic,
    references,
    resolve_references,
    subject,
    substitute,
    substitutions,
    table_rows,
    whole_after_and,
    without_conjunction,
)

ROTATION = (
    "Table 1: Week, Dates (2026), Team, On-call / Primary, On-call / Secondary\n"
    "Row 5 in Table 1: Week is Week 2, Dates (2026) is Mon 12 Oct – Mon 19 Oct, Team is "
    "Payments, On-call / Primary is Emre Yilmaz, and On-call / Secondary is Sophie Brandt"
)
TRAVEL = (
    "Row 4 in Table 1: City is Amsterdam, Country is Netherlands, Hotel per night is €190, "
    "and Meals per day is €40"
)
ANSWER = (
    "Hotel per night: US$250 [2]\nRelated: City: Chicago; Country: United States; Hotel per "
    "night: US$250; Meals per day: US$65 [2]"
)
PAY = (
    "Row 1 in Table 2: Role is Primary, Germany (per week) is €250, and United Kingdom "
    "(per week) is £215"
)
HOLIDAY = (
    "Row 2 in Table 3: Date is Thu 24 Dec 2026, Holiday is Christmas Eve, Berlin is Company"
    " day off, and Bristol is Company day off\nRow 14 in Table 3: Date is Mon 17 May 2027,"
    " Holiday is Whit Monday (Pfingstmontag), Berlin is Public holiday, and Bristol is"
    " Normal day"
)
LEXICON = learn_kinds([ROTATION, TRAVEL, ANSWER, PAY, HOLIDAY])


def test_table_rows_in_both_forms():
    header, row = table_rows(ROTATION)
    assert [h for h, _ in header] == [
        "Week",
        "Dates (2026)",
        "Team",
        "On-call / Primary",
        "On-call / Secondary",
    ]
    assert ("Team", "Payments") in row and ("On-call / Secondary", "Sophie Brandt") in row
    (quoted,) = table_rows(ANSWER)  # the answer line has no row, the Related line has one
    assert quoted[0] == ("City", "Chicago") and quoted[-1] == ("Meals per day", "US$65")
    (commas,) = table_rows("Row 4 in Table 1: Column 1 is Reception, Berlin is 08:30, +49 30")
    assert commas[-1] == ("Berlin", "08:30, +49 30")
    assert table_rows("Shifts are one week long: they hand over on Monday.") == []


@pytest.mark.parametrize(
    "header, core",
    [
        ("On-call / Secondary", "Secondary"),
        ("Germany (per week)", "Germany"),
        ("Meals per day", "Meals"),
        ("Hotel per night", "Hotel"),
        ("City", "City"),
    ],
)
def test_header_core(header, core):
    assert header_core(header) == core


@pytest.mark.parametrize(
    "a, b, same",
    [
        ("amsterdam", "chicago", True),  # values of one column
        ("primary", "secondary", True),  # columns of one table
        ("hotel", "meals", True),
        ("germany", "united kingdom", True),
        ("payments", "amsterdam", False),  # values of different columns
        ("hotel", "secondary", False),  # columns of different tables
    ],
)
def test_kinds_learned_from_rows(a, b, same):
    assert bool(LEXICON[a] & LEXICON[b]) is same


def test_mentions_prefer_the_longest_and_merge_kinds():
    found = mentions("Who is the secondary for Payments in Week 2 in the UK?", LEXICON)
    assert [m.text for m in found] == ["secondary", "Payments", "Week 2", "UK"]
    week = found[2]
    assert week.kinds == {"numbered:week", "column:week"}  # numbered, and a column's value
    assert found[3].key == "united kingdom"  # the alias


@pytest.mark.parametrize(
    "previous, followup, completed",
    [
        (
            "Who is the secondary on-call for the Payments team in week 2?",
            "and in week 3?",
            "Who is the secondary on-call for the Payments team in week 3?",
        ),
        (
            "Who is the secondary on-call for the Payments team in week 2?",
            "and the primary?",
            "Who is the primary on-call for the Payments team in week 2?",
        ),
        (
            "What's the hotel limit in Amsterdam?",
            "and for meals?",
            "What's the meals limit in Amsterdam?",
        ),
        (
            "What's the hotel limit in Amsterdam?",
            "and in Chicago?",
            "What's the hotel limit in Chicago?",
        ),
        # a column named with a noun phrase replaces the earlier one's whole phrase
        (
            "What's the hotel limit in Amsterdam?",
            "and the meal allowance?",
            "What's the meal allowance in Amsterdam?",
        ),
        (
            "What is the meal allowance in Bristol?",
            "and the hotel limit there?",
            "What is the hotel limit in Bristol?",
        ),
        (
            "How much is the on-call allowance for a primary in the UK?",
            "and in Germany?",
            "How much is the on-call allowance for a primary in Germany?",
        ),
        (
            "How much do we get in Germany?",
            "and in the UK?",
            "How much do we get in the UK?",
        ),
        # a name no table taught takes the place after the same preposition
        (
            "What is the address of the Berlin office?",
            "and of Bristol?",
            "What is the address of the Bristol office?",
        ),
        (
            "Wer ist in Woche 2 Secondary für Payments?",
            "und in Woche 3?",
            "Wer ist in Woche 3 Secondary für Payments?",
        ),
        ("Which tests failed on OpenXT 9.0?", "and on 8.2?", "Which tests failed on OpenXT 8.2?"),
        # a bare name no row taught takes the place of the one named value
        (
            "Which office is Payments in?",
            "and Quality Assurance?",
            "Which office is Quality Assurance in?",
        ),
        # a place the earlier question has none of is added
        (
            "Is Christmas Eve a company day off?",
            "What about Whit Monday in Bristol?",
            "Is Whit Monday a company day off in Bristol?",
        ),
        # of two mentions of the new one's kind ("holiday" heads the column Berlin and
        # Bristol head too), the one after the same preposition is replaced
        (
            "Is Whit Monday a holiday in Bristol?",
            "and in Berlin?",
            "Is Whit Monday a holiday in Berlin?",
        ),
    ],
)
def test_substitution_changes_one_thing(previous, followup, completed):
    subs = substitutions(followup, previous, LEXICON)
    assert subs
    assert substitute(previous, followup, subs) == completed


@pytest.mark.parametrize(
    "previous, followup",
    [
        ("Who is the secondary on-call for Payments in week 2?", "and the secondary?"),  # same
        ("What's the hotel limit in Amsterdam?", "and in week 3?"),  # no week to replace
        ("Who attended the call on July 23, 2015?", "And on August 20, 2015?"),  # a date
        ("Which BIOS did the Optiplex 7040 have?", "And what about TPM?"),  # no named value
        ("Which office is Payments in?", "And what about TPM?"),  # an acronym is no team
    ],
)
def test_no_substitution(previous, followup):
    assert substitutions(followup, previous, LEXICON) == []


@pytest.mark.parametrize(
    "followup, previous, resolved",
    [
        ("What does it stand for?", "Why was BATS used for OpenXT?", "What does BATS stand for?"),
        (
            "Where is it located?",
            "What color does the XT shield become after an upgrade?",
            "Where is the XT shield located?",
        ),
        (
            "Who leads that team?",
            "Who is the secondary on-call for the Payments team in week 3?",
            "Who leads the Payments team?",
        ),
        (
            "What is a known issue with this upgrade from 8.0.1 to 9.0?",
            "Did the Optiplex 7060 pass the UEFI OTA upgrade 8.0.1 to 9.0.0 test?",
            "What is a known issue with the UEFI OTA upgrade from 8.0.1 to 9.0?",
        ),
        (
            "Where is this declared?",
            "How is BATS enabled in OpenEmbedded?",
            "Where is BATS declared?",
        ),
        ("Wofür steht das?", "Warum wurde BATS verwendet?", "Wofür steht BATS?"),
        # "this" before the last word of "Is this ...?" stands alone: a predicate follows
        (
            "Is this compulsory?",
            "What does the HID descriptor describe?",
            "Is the HID descriptor compulsory?",
        ),
        ("Is this documentation finalized?", "What does the HID descriptor describe?", None),
        (
            "Wo ist es zu finden?",
            "Welche Farbe bekommt das XT Shield nach einem Upgrade?",
            "Wo ist das XT Shield zu finden?",
        ),
        (
            "Welches Problem gibt es bei diesem Upgrade?",
            "Hat der Optiplex 7060 den UEFI OTA Upgrade Test bestanden?",
            "Welches Problem gibt es bei dem UEFI OTA Upgrade?",
        ),
        ("Wer hat es geschrieben?", "Welche Farbe hat der Bildschirm?", None),  # no name
        ("Was sagt er dazu?", "Warum wurde BATS verwendet?", None),  # German: left as asked
        # one of the things asked for: the asked noun
        ("Which of them failed?", "Which machines ran BATS?", "Which machines failed?"),
        (
            "which of these was used for dell skl?",
            "os used in the OEM N config in the openxt 7.0 hardware testing?",
            "which os was used for dell skl?",
        ),
        ("which of these was used?", "How many people attended?", None),  # asked for no thing
        ("Who leads that group?", "Who is on call for Payments?", None),  # no such phrase
    ],
)
def test_resolve_references(followup, previous, resolved):
    assert resolve_references(followup, previous) == resolved


@pytest.mark.parametrize(
    "followup, previous, answer, resolved",
    [
        # a question asking which thing: "it" / "they" / "es" is the thing answered
        (
            "who leads it?",
            "Which team owns the tern-os component?",
            "Robot Firmware (Team for #team-firmware, tern-os) [1]",
            "who leads Robot Firmware?",
        ),
        (
            "and where are they based?",
            "Which team owns the tern-os component?",
            "Robot Firmware (Team for #team-firmware) [1]",
            "Where are Robot Firmware based?",
        ),
        (
            "wer leitet es?",
            "Welches Team ist für tern-os zuständig?",
            "Robot Firmware (Team für #team-firmware) [1]",
            "wer leitet Robot Firmware?",
        ),
        # a question asking who: "she" / "his" is the person answered
        (
            "where is she based?",
            "Who is the VP Engineering?",
            "The VP Engineering is Karin Vogel [2].",
            "where is Karin Vogel based?",
        ),
        # a parenthesis after the name answered says where or what it is
        (
            "where does she work?",
            "Who is the CEO?",
            "The CEO is Maren Lindqvist (Berlin) [1].",
            "where does Maren Lindqvist work?",
        ),
        (
            "what is his phone number?",
            "Who is the release manager?",
            "The release manager is Marco Rossi [1].",
            "what is Marco Rossi's phone number?",
        ),
        # "their" is the group the earlier question named, not the people answered
        (
            "what's their slack channel?",
            "Who is on call for the Payments team in week 2?",
            "On-call / Primary: Emre Yilmaz; On-call / Secondary: Sophie Brandt [1]",
            "what's the Payments team's slack channel?",
        ),
        # an answer that names nothing, or a question that asks for no thing: left
        ("where is she based?", "Who is the VP Engineering?", "Not found.", None),
        ("who leads it?", "Why was it moved?", "Robot Firmware [1]", None),
        ("Which of them failed?", "Who ran BATS?", "", None),
    ],
)
def test_references_take_the_earlier_answer(followup, previous, answer, resolved):
    assert resolve_references(followup, previous, answer) == resolved


@pytest.mark.parametrize(
    "followup, title, resolved",
    [
        ("who created this doc?", "How to contribute", "who created the doc “How to contribute”?"),
        (
            "Wie kann man dieses Dokument aktualisieren?",
            "Release Checklist",
            "Wie kann man das Dokument „Release Checklist“ aktualisieren?",
        ),
        ("Who wrote this page?", "", None),  # no page cited: left as asked
    ],
)
def test_this_document_is_the_cited_page(followup, title, resolved):
    previous = "Can everyone create new tickets?"
    assert resolve_references(followup, previous, "", title) == resolved


def test_an_earlier_question_s_phrase_wins_over_the_page():
    resolved = resolve_references(
        "Who signs this page off?", "Where is the Release page kept?", "", "Release Checklist"
    )
    assert resolved == "Who signs the Release page off?"


@pytest.mark.parametrize(
    "question, subject_",
    [
        ("Why was BATS used for OpenXT?", "BATS"),
        ("Did the Optiplex 7060 pass the test?", "the Optiplex 7060"),
        ("Who is on call for the Payments team?", "the Payments team"),
        ("what is the weather like?", ""),
        ("and what is the SRE team's Slack channel?", "the SRE team"),  # not its possessive
    ],
)
def test_subject(question, subject_):
    assert subject(question) == subject_


@pytest.mark.parametrize(
    "question, refs",
    [
        ("What does it stand for?", ["it"]),
        ("Is there a parking allowance?", []),  # existential "there"
        ("Who is the office lead there?", ["there"]),
        ("Which tests did that team run?", ["that"]),
        ("Which tests that failed were rerun?", []),  # a relative "that"
        ("Gibt es einen Zuschuss?", []),  # "gibt es": there is
        ("Wofür steht das?", ["das"]),
        ("Was kostet ein Vertrag dafür?", ["dafür"]),
    ],
)
def test_references(question, refs):
    assert references(question) == refs


@pytest.mark.parametrize(
    "question, elliptical, needs",
    [
        ("and in week 3?", True, True),
        ("und in Woche 3?", True, True),
        ("What about TPM?", True, True),
        ("who?", True, True),
        ("wer?", True, True),
        ("What was the reason?", False, True),
        ("Where is it located?", False, True),
        ("What is TPM?", False, False),  # a name stands alone
        ("What is BuildBot used for?", False, False),
        ("How many weeks of parental leave do we get?", False, False),
        ("And is there a parking allowance for the lab?", True, True),
        ("and how many days can I carry over?", True, True),
        ("Which machines were tested with both legacy and EFI for OXT 9.0.2?", False, False),
    ],
)
def test_shape(question, elliptical, needs):
    assert is_elliptical(question) is elliptical
    assert needs_topic(question) is needs


@pytest.mark.parametrize(
    "question, language, reply",
    [
        ("and in week 3?", "en", "Week 3 of what? Please ask the whole question."),
        ("and for meals?", "en", "Meals of what? Please ask the whole question."),
        ("und in Woche 3?", "de", "Woche 3 – wovon? Bitte stellen Sie die ganze Frage."),
        (
            "What does it stand for?",
            "en",
            "What does “it” refer to? Please ask the whole question.",
        ),
        ("Wofür steht das?", "de", "Worauf bezieht sich „das“? Bitte stellen Sie die ganze Frage."),
        ("who?", "en", "About what? Please ask the whole question."),
        ("wer?", "de", "Worum geht es? Bitte stellen Sie die ganze Frage."),
    ],
)
def test_clarification(question, language, reply):
    assert clarification(question, language) == reply


def test_following_up_form_is_readable_and_recognized():
    shown = following_up("What was the reason?", "Did the Optiplex 7060 pass?", "en")
    assert shown == "What was the reason? — following up on “Did the Optiplex 7060 pass?”"
    german = following_up("Was war der Grund?", "Hat der Optiplex 7060 bestanden?", "de")
    assert german == "Was war der Grund? — Bezug: „Hat der Optiplex 7060 bestanden?“"
    assert is_following_up(shown) and is_following_up(german)
    assert not is_following_up("What was the reason?")


def test_a_placeholder_it_is_no_reference():
    assert references("Why is it recommended to archive the builds to stable storage?") == []
    assert references("Ist es möglich, die Builds zu archivieren?") == []
    assert references("Is it compliant with TAP?") == ["it"]
    assert references("Wo ist es zu finden?") == ["es"]


def test_a_bare_name_replaces_the_earlier_questions_name_of_its_shape():
    # names no table taught: the earlier question's one name written alike
    subs = substitutions("And Kevin?", "What did Eric have on the agenda?", {})
    assert substitute("What did Eric have on the agenda?", "And Kevin?", subs) == (
        "What did Kevin have on the agenda?"
    )
    subs = substitutions("And BAH?", "How many were from the AIS team?", {})
    assert substitute("How many were from the AIS team?", "And BAH?", subs) == (
        "How many were from the BAH team?"
    )
    # German capitalizes nouns: only a name the wiki writes is replaced
    earlier = "Was hatte Eric auf der Tagesordnung?"
    subs = substitutions("Und Kevin?", earlier, {}, wiki_text="Eric: Linux 3.18 upgrade")
    assert substitute(earlier, "Und Kevin?", subs) == "Was hatte Kevin auf der Tagesordnung?"
    assert substitutions("Und Kevin?", earlier, {}) == []  # two candidates: no guess
    # a name of another shape is no substitute ("TPM" for "Optiplex")
    assert substitutions("And TPM?", "Which version had the Optiplex?", {}) == []
    subs = substitutions("And TPM?", "Which BIOS had the Optiplex?", {})
    assert substitute("Which BIOS had the Optiplex?", "And TPM?", subs) == (
        "Which TPM had the Optiplex?"
    )


def test_its_points_at_the_row_an_attribute_was_asked_of_not_the_attribute():
    """ "What is the Acknowledge time for a SEV2?" asks a column of the row SEV2: "its" in
    the follow-up is SEV2's, not the Acknowledge time's; a subject with no "for"/"of" stays."""
    assert subject("What is the Acknowledge time for a SEV2?") == "SEV2"
    assert subject("Who is the Owner of Harbor?") == "Harbor"
    assert subject("Who leads the Payments team?") == "the Payments team"
    completed = resolve_references(
        "and when is its postmortem draft due?", "What is the Acknowledge time for a SEV2?"
    )
    assert completed == "When is SEV2's postmortem draft due?"  # without its "and"


def test_a_resolved_question_goes_without_the_opening_and():
    assert without_conjunction("and when is SEV1's draft due?") == "When is SEV1's draft due?"
    assert without_conjunction("und wer leitet Robot Firmware?") == "Wer leitet Robot Firmware?"
    # an "and" before no question word or verb opens no whole question
    assert without_conjunction("and the primary?") == "and the primary?"
    assert without_conjunction("und für SEV1?") == "und für SEV1?"


def test_a_possessive_names_its_thing():
    lexicon = {"sev2": {"column:severity"}, "sev1": {"column:severity"}}
    previous = "When is SEV2's postmortem draft due?"
    assert [m.text for m in mentions(previous, lexicon)] == ["SEV2"]
    subs = substitutions("and for SEV1?", previous, lexicon)
    assert substitute(previous, "and for SEV1?", subs) == "When is SEV1's postmortem draft due?"


@pytest.mark.parametrize(
    "followup, latest, older, added",
    [
        # the latest question names no severity: the follow-up's one is added to it
        (
            "und für SEV1?",
            "und wann ist der Postmortem-Entwurf fällig?",
            "Was ist die Acknowledge-Zeit für SEV2?",
            "und wann ist der Postmortem-Entwurf fällig für SEV1?",
        ),
        (
            "and for SEV1?",
            "When is the postmortem draft due?",
            "What is the Acknowledge time for SEV2?",
            "When is the postmortem draft due for SEV1?",
        ),
        # the latest question names the replaced thing: nothing is added to it
        ("and for SEV1?", "When is SEV2 closed?", "What is the Acknowledge time for SEV2?", None),
        # a thing not after a preposition ("and SEV1?") is no place to add
        ("and SEV1?", "When is the draft due?", "What is the Acknowledge time for SEV2?", None),
    ],
)
def test_added_places(followup, latest, older, added):
    lexicon = {"sev2": {"column:severity"}, "sev1": {"column:severity"}}
    subs = substitutions(followup, older, lexicon)
    assert subs
    out = added_places(followup, latest, subs)
    assert (substitute(latest, followup, out) if out else None) == added


def test_a_german_noun_after_an_article_is_no_name():
    """ "für das Treffen" is a noun German writes capitalized: "Aktionspunkt für Rich?"
    does not replace it; a name after an English article or none still takes the place."""
    assert substitutions("Aktionspunkt für Rich?", "Einwahlnummer für das Treffen?", {}) == []
    subs = substitutions("und für Bristol?", "Wie lautet die Adresse für Berlin?", {})
    assert [(s.old.text, s.new.text) for s in subs] == [("Berlin", "Bristol")]
    subs = substitutions("and from the BAH team?", "How many were from the AIS team?", {})
    assert [(s.old.text, s.new.text) for s in subs] == [("AIS", "BAH")]


def test_a_german_word_for_a_column_replaces_the_front_of_a_compound():
    # "Mahlzeiten" is the glossary's "meals" (a column); "Hotel" opens "Hotellimit"
    previous = "Wie hoch ist das Hotellimit in München?"
    subs = substitutions("und für Mahlzeiten?", previous, LEXICON)
    assert [(s.old.text, s.new.text) for s in subs] == [("Hotel", "Mahlzeiten")]
    completed = substitute(previous, "und für Mahlzeiten?", subs)
    assert completed == "Wie hoch ist das Limit für Mahlzeiten in München?"
    # English is left as it was
    assert [m.text for m in mentions("What is the hotellimit?", LEXICON)] == []


def test_the_name_before_the_noun_of_a_hyphenated_german_compound():
    fleet = (
        "Row 6 in Table 1: Week is Week 3, Team is Fleet Platform, and On-call / Primary is Marco"
    )
    lexicon = learn_kinds([ROTATION, fleet])
    previous = "Wer ist in Woche 2 Secondary für das Payments-Team?"
    assert [m.text for m in mentions(previous, lexicon)][-1] == "Payments"
    subs = substitutions("und das Fleet-Platform-Team?", previous, lexicon)
    assert [(s.old.text, s.new.text) for s in subs] == [("Payments", "Fleet-Platform")]
    completed = substitute(previous, "und das Fleet-Platform-Team?", subs)
    assert completed == "Wer ist in Woche 2 Secondary für das Fleet-Platform-Team?"


def test_a_name_before_a_german_noun_is_replaced_and_the_noun_kept():
    previous = "Wie viele Personen aus dem AIS-Team?"
    wiki = "Phil White - AIS\nEarl Wong - BAH"
    subs = substitutions("Und BAH?", previous, {}, wiki)
    assert [(s.old.text, s.new.text) for s in subs] == [("AIS", "BAH")]
    assert substitute(previous, "Und BAH?", subs) == "Wie viele Personen aus dem BAH-Team?"


@pytest.mark.parametrize(
    ("followup", "previous", "resolved"),
    [
        # a final "one" is one of the things the earlier question counted or named
        (
            "how do I book one?",
            "How many desks does the Bristol office have?",
            "how do I book a desk?",
        ),
        ("how do I book one?", "Where can I book a desk in Bristol?", "how do I book a desk?"),
        ("Can I get one?", "Which laptops do engineers get?", "Can I get a laptop?"),
        ("Where do I order one?", "How many licenses are there?", "Where do I order a license?"),
        # nothing counted or named: left as it is
        ("how do I book one?", "Who is the CEO?", None),
    ],
)
def test_a_final_one_is_one_of_the_earlier_things(followup, previous, resolved):
    assert resolve_references(followup, previous) == resolved


@pytest.mark.parametrize(
    ("question", "refs"),
    [
        ("how do I book one?", ["one"]),
        ("Which one?", []),
        ("Is there no one?", []),
        ("Is one enough for two people?", []),  # not the last word
    ],
)
def test_a_final_one_points_back(question, refs):
    assert references(question) == refs


def test_a_final_one_with_no_topic_needs_one():
    assert needs_topic("how do I book one?")
    assert not needs_topic("how do I book a desk?")
    expected = "What does “one” refer to? Please ask the whole question."
    assert clarification("how do I book one?", "en") == expected


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How many desks does the Berlin office have?", "a desk"),
        ("Where can I book an office?", "an office"),
        ("Which policies apply?", "a policy"),
        ("Who is the CEO?", ""),
    ],
)
def test_the_thing_an_earlier_question_counts(question, expected):
    assert counted_thing(question) == expected


@pytest.mark.parametrize(
    ("question", "previous", "expected"),
    [
        (
            "what happened to the old channel?",
            "Which Slack channel does the Payments team use?",
            "channel",
        ),
        (
            "Welchen Slack-Kanal nutzt das Team?",
            "Wie viele Leute arbeiten im Team Payments?",
            "Team",
        ),
        ("Who leads the teams?", "Which team owns tern-os?", "teams"),
        # a noun the earlier question does not name
        ("What is the deadline?", "Which Slack channel does the Payments team use?", ""),
        ("Who owns a channel?", "Which Slack channel does the Payments team use?", ""),
    ],
)
def test_a_definite_noun_the_earlier_question_names(question, previous, expected):
    assert definite_noun(question, previous) == expected


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("and how many days can I carry over?", True),
        ("und wie viele Tage kann ich übertragen?", True),
        ("and how?", False),  # no words of its own
        ("And is there a parking allowance for the lab?", False),  # opened by a verb
        ("and in week 3?", False),
    ],
)
def test_an_and_before_a_whole_question(question, expected):
    assert whole_after_and(question) is expected
