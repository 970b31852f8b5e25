"""Answer spans on small evidences whose answer is known: one case per question type, the
units an evidence is cut into, and the support score that drives declining."""

from __future__ import annotations

import pytest

from core.questions import page_fact, profile_question, question_focus, question_type
from core.spans import (
    answers_type,
    best_span,
    best_spans,
    byline_facts,
    counted_items,
    is_metadata,
    row_pairs,
    scored_units,
    support,
    typed_values,
    units,
    without_echo,
)

TABLE = (
    "Table 1: Platform, BIOS, Build, TPM, UEFI / OTA upgrade\n"
    "Row 1 in Table 1: Platform is Dell Optiplex 7040, BIOS is 1.14.0, Build is 6662,"
    " TPM is 2.0, and UEFI / OTA upgrade is Pass\n"
    "Row 2 in Table 1: Platform is Dell Optiplex 7060, BIOS is 1.3.4, Build is 6671,"
    " TPM is 1.2, and UEFI / OTA upgrade is Fail"
)
MINUTES = (
    "Owned by Rich Persaud Last updated: Oct 02, 2016 by Rich Persaud\n"
    "The community call was held on 17 November 2016 with seven participants.\n"
    "Christopher Clark presented the Argo design. The next call is planned for December."
)
LIST = (
    "- Download the netinst installer from the Fedora web site\n"
    "- Create a new guest with 2 GB of memory\n"
    "- Boot the guest from the installer"
)


def answer(question: str, text: str, header: str = "Page") -> str:
    span = best_span(profile_question(question), header, text)
    assert span is not None
    return span.answer


@pytest.mark.parametrize(
    "question, expected",
    [
        ("Who presented the Argo design?", "who"),
        ("Wer hat das Argo Design vorgestellt?", "who"),
        ("When was the community call held?", "when"),
        ("Wann fand der Community Call statt?", "when"),
        ("Which BIOS version did the Dell Optiplex 7040 have?", "version"),
        ("Welche Version von Xen wurde genutzt?", "version"),
        ("How many participants joined the call?", "count"),
        ("How long are API tokens valid?", "count"),
        ("Wie lange sind API-Tokens gültig?", "count"),
        ("Wie viele Teilnehmer waren dabei?", "count"),
        ("Did the Dell Optiplex 7060 pass the UEFI OTA upgrade?", "yesno"),
        ("Ist BATS mit TAP kompatibel?", "yesno"),
        ("Was the BIOS updated before the test?", "yesno"),
        ("Was war das Ziel der Forward Seal Tests?", "what"),  # German "was" asks what
        ("Was hatte Eric auf der Tagesordnung?", "what"),
        ("Kann OXT sowohl für Windows als auch für Linux kompiliert werden?", "yesno"),
        ("Wohin verfolgt TBOOT die Ausgabe?", "where"),
        ("How is BATS enabled in the build?", "howto"),
        ("Why was BATS used?", "why"),
        ("Where is the variable declared?", "where"),
        ("Wie lautet die Problemnummer für die Umschalttasten?", "what"),  # "Wie lautet" = what
        ("Wie heißt der Server?", "what"),
        ("Und welche Xen Versionen wurden genutzt?", "version"),
        # German asks for a version with "Was war" and "Wie lauteten" too
        ("Was war die Version des Build-Servers für OpenXT 7.x?", "version"),
        ("Wie lauteten die BIOS-Versionsnummern für die Dell-Rechner?", "version"),
        ("Was ist in Version 9 neu?", "what"),
        ("Was the new version tested?", "yesno"),
        ("Inwiefern ist das Parsen von HID Deskriptoren dem von Assembler ähnlich?", "howto"),
        ("What was the reason that the Dell Optiplex failed the test?", "why"),
        ("Was war der Grund dafür, dass der Dell Optiplex gefallen ist?", "why"),
        ("Aus welchen Gründen können PRs abgelehnt werden?", "why"),
        # a question naming the version it is about asks for something else
        ("What capabilities were measured for version 7.x?", "what"),
        ("Welche Fähigkeiten wurden für die Version 7.x gemessen?", "what"),
        ("What does BATS stand for?", "what"),
        ("Could you please summarize the RFC?", "what"),
        ("And the BIOS? (context: Dell, Optiplex, 7040)", "what"),
        # a verb before its subject pronoun asks yes or no, any verb
        ("Brauche ich das VPN für Slack?", "yesno"),
        ("Bekommen wir einen Laptop?", "yesno"),
        ("Am I allowed to fly business class?", "yesno"),
        # a German finite verb before an article opening the subject asks yes or no
        ("Bezahlt die Firma eine Zertifizierung?", "yesno"),
        ("Bekommen die Tester Überstunden bezahlt?", "yesno"),
        ("Nenne die Schritte für das Setup?", "what"),  # an imperative
        # German "what does it cost" asks how much
        ("Was kostet ein Supportvertrag pro Jahr?", "count"),
        ("Wie teuer ist das Hotel in München?", "count"),
        # a question word or a noun first does not
        ("Was brauche ich für das VPN?", "what"),
        ("Wie beantrage ich Elternzeit?", "howto"),
        ("Welchen Laptop bekommen Entwickler?", "what"),
        # "when" inside a what/which question sets the case, it asks for no date
        ("What was the result when Debian 9.9 was tested with build 6662?", "what"),
        ("Which platform was used when the forward seal was tested?", "what"),
        ("The release, when is it?", "when"),
    ],
)
def test_question_type(question, expected):
    assert question_type(question) == expected


def test_table_cell_under_the_asked_column_of_the_matching_row():
    assert answer("What was the BIOS of the Dell Optiplex 7060?", TABLE) == "1.3.4"
    # Cells the question does not name each keep their column name.
    assert answer("What were the BIOS and Build of the Dell Optiplex 7040?", TABLE) == (
        "BIOS: 1.14.0; Build: 6662"
    )


def test_version_question_takes_the_cell_not_the_row():
    assert answer("Which TPM version had the Dell Optiplex 7040?", TABLE) == "2.0"


def test_yes_no_on_a_pass_fail_cell():
    question = "Did the Dell Optiplex 7060 pass the UEFI OTA upgrade?"
    assert answer(question, TABLE) == "No"
    assert answer(question.replace("7060", "7040"), TABLE) == "Yes"


def test_date():
    assert answer("When was the community call held?", MINUTES) == "17 November 2016"


def test_person():
    assert answer("Who presented the Argo design?", MINUTES) == "Christopher Clark"


def test_count_in_a_sentence():
    assert answer("How many participants were in the community call?", MINUTES) == (
        "seven participants"
    )


def test_count_of_list_items_under_a_matching_heading():
    reply = answer("How many steps does the Fedora installation take?", LIST, "Fedora — Steps")
    assert reply.startswith("3: Download the netinst installer")


def test_list_item():
    reply = answer("How much memory gets the new guest?", LIST, "Fedora — Steps")
    assert reply == "2 GB"
    item = answer("Which step creates the new guest?", LIST, "Fedora — Steps")
    assert item == "Create a new guest with 2 GB of memory"


def test_yes_no_on_a_sentence_follows_negation():
    text = "BATS is compliant with the Test Anything Protocol. BATS does not support Windows."
    assert answer("Is BATS compliant with the Test Anything Protocol?", text) == "Yes"
    assert answer("Does BATS support Windows?", text) == "No"


def test_labelled_line_gives_its_value():
    text = "- Dial-in number: 857-216-2410\n- PIN: 86838\n- Phil: change the call times"
    assert answer("What was the PIN of the call?", text) == "86838"
    assert answer("What was the action item for Phil?", text) == "change the call times"


def test_a_byline_answers_only_questions_about_the_page_itself():
    assert is_metadata("Owned by Rich Persaud Last updated: Oct 02, 2016 by Rich Persaud")
    assert is_metadata("Copyright 2016 by Assured Information Security, Inc.")
    assert not is_metadata("The community call was held on 17 November 2016.")
    # A sentence saying who owns something is content, not a byline.
    long_passage = (
        "Robots run tern-os 5.2.0 on an NVIDIA Jetson Orin NX. The agent publishes a heartbeat"
        " every 2 seconds. Firmware is owned by the Robot Firmware team; see Release Process."
    )
    assert not is_metadata(long_passage)
    assert not is_metadata("The runbook is owned by SRE.")


def test_how_often_is_answered_with_a_frequency():
    text = (
        "The on-robot agent harbor-agent 1.12.3 publishes a heartbeat every 2 seconds and pose"
        " updates at 10 Hz."
    )
    span = best_span(profile_question("How often does harbor-agent send a heartbeat?"), "", text)
    assert span is not None and span.answer == "every 2 seconds"
    assert [u.kind for u in units(MINUTES)][0] == "byline"
    assert all("Copyright" not in u.text for u in units("Copyright 2016 by AIS, Inc."))
    assert answer("Who owns the page on the community call?", MINUTES) == "Rich Persaud"
    assert answer("When was this page last updated?", MINUTES) == "Oct 02, 2016"
    assert answer("Wer hat die Seite zuletzt geändert?", MINUTES) == "Rich Persaud"
    assert answer("Who presented the Argo design?", MINUTES) == "Christopher Clark"
    assert answer("When was the community call held?", MINUTES) == "17 November 2016"


@pytest.mark.parametrize(
    "line, facts",
    [
        (
            "Owned by Rich Persaud Last updated: Oct 02, 2016 by Eric Chanudet",
            {"owner": "Rich Persaud", "updated": "Oct 02, 2016", "updated_by": "Eric Chanudet"},
        ),
        (
            "Created by Alice Smith, last modified by Bob Jones on Jun 27, 2017",
            {"owner": "Alice Smith", "updated": "Jun 27, 2017", "updated_by": "Bob Jones"},
        ),
        (
            "Created by Alice Smith, last modified on Jun 27, 2017",
            {"owner": "Alice Smith", "updated": "Jun 27, 2017"},
        ),
        ("Copyright 2016 by AIS, Inc.", {}),
        # the name ends at a sentence end, not at an initial's period
        (
            "Created by Daniel P. Smith. This work is licensed under the Creative Commons",
            {"owner": "Daniel P. Smith"},
        ),
    ],
)
def test_byline_facts(line, facts):
    assert dict(byline_facts(line)) == facts


@pytest.mark.parametrize(
    "question, fact",
    [
        ("Who owns the Confluence page on Forward Seal Test Procedures?", "owner"),
        ("Wer ist der Autor der Confluence-Seite zu den Forward Seal Tests?", "owner"),
        ("When was the page on OpenXT 7.x builds last updated?", "updated"),
        ("Wann wurde die Seite zuletzt aktualisiert?", "updated"),
        ("By whom was the build page last updated?", "updated_by"),
        ("Von wem wurde die Seite zuletzt aktualisiert?", "updated_by"),
        ("Who presented the Argo design?", ""),
        ("When was the BIOS updated to 1.14.0?", "updated"),
        ("What was updated in the BIOS?", ""),
        # the owner of a thing the wiki names, not of a page; the noun "owner" is the page's
        ("Who owns tern-os?", ""),
        ("Wem gehört tern-os?", ""),
        ("who's the owner?", "owner"),
        ("Who owns this page?", "owner"),
    ],
)
def test_page_fact(question, fact):
    assert page_fact(question) == fact


@pytest.mark.parametrize(
    "question, words, plural",
    [
        (
            "Which Dell Latitude model resulted in a black screen?",
            ("Dell", "Latitude", "model"),
            False,
        ),
        (
            "Which AMD graphics card(s) was checked with the HP 8300?",
            ("AMD", "graphics", "card"),
            True,
        ),
        (
            "What was the BIOS and Build versions used for the 7040?",
            ("BIOS", "and", "Build", "versions"),
            True,
        ),
        ("For which machines is it known that passthrough fails?", ("machines",), True),
        ("Welche Ubuntu Versionen wurden verwendet?", ("Ubuntu", "Versionen"), True),
        # a which repeated after "and" asks for the second thing too
        (
            "Welches BIOS und welche Build Versionen wurden verwendet?",
            ("BIOS", "und", "Build", "Versionen"),
            True,
        ),
        ("Which BIOS and which build was used?", ("BIOS", "and", "build"), True),
        # German plurals rarely end in "s": their endings, or "Was waren/sind die ...", say so
        ("Welche Anwendungsfälle gibt es?", ("Anwendungsfälle",), True),
        ("Welche Verbesserungen sind geplant?", ("Verbesserungen",), True),
        ("Was waren die geplanten Verbesserungen?", ("geplanten", "Verbesserungen"), True),
        ("Und was sind die Schritte?", ("Schritte",), True),
        ("Welche Farbe hat das Logo?", ("Farbe",), False),
        ("Was war das Problem mit der Maus?", (), False),
        # an acronym that ends in s is one thing, in German and English
        ("Welches BIOS wurde für die Dell Optiplex 7040 verwendet?", ("BIOS",), False),
        ("Which BIOS was used for the Dell Optiplex 7040?", ("BIOS",), False),
        ("Which BIOS versions were used?", ("BIOS", "versions"), True),
        ("What does BATS stand for?", (), False),
        ("Who presented the Argo design?", (), False),
        # a verb in -s before an article is no plural noun: one team is asked for
        ("Which team owns the billing Jira component?", ("team", "owns"), False),
        ("Which team owns tern-os?", ("team", "owns"), False),  # what follows says which
        # a modal verb ends the phrase
        ("Which OXT JIRA issues may be encountered?", ("OXT", "JIRA", "issues"), True),
        ("Which teams own the billing component?", ("teams",), True),
    ],
)
def test_question_focus(question, words, plural):
    assert question_focus(question) == (words, plural)


@pytest.mark.parametrize(
    "question",
    [
        "Which BIOS and Build versions were used on the Dell Optiplex 7040?",
        # a German question capitalizes every noun: Build weighs as a plain word, BIOS as a
        # name, and still both are asked
        "Welches BIOS und welche Build Versionen wurden auf dem Dell Optiplex 7040 verwendet?",
    ],
)
def test_the_cells_of_two_joined_nouns_answer_together(question):
    assert answer(question, TABLE) == "BIOS: 1.14.0; Build: 6662"


def test_the_cell_a_which_question_names_answers():
    assert answer("Which Dell Optiplex model failed the UEFI OTA upgrade?", TABLE) == (
        "Dell Optiplex 7060"
    )


MACHINES = (
    "Table 1: Machine, Graphics card, Notes\n"
    "Row 1 in Table 1: Machine is Dell 9020, Graphics card is HD7750, and Notes is PCI"
    " passthrough fails\n"
    "Row 2 in Table 1: Machine is HP 8300, Graphics card is W600, and Notes is PCI"
    " passthrough fails\n"
    "Row 3 in Table 1: Machine is Dell 7040, Graphics card is K2000, and Notes is works"
)


def test_rows_that_meet_the_same_conditions_add_their_values():
    question = "For which machines does PCI passthrough fail?"
    row_1 = MACHINES.split("\n")[1]
    sources = [(1, "GPU tests", row_1), (2, "GPU tests", MACHINES), (3, "Other page", MACHINES)]
    (number, span), *_ = best_spans(question, sources)
    assert (number, span.answer, span.parts) == (1, "Dell 9020", ((2, "HP 8300"),))
    # The row alone answers alone; a yes/no question gathers nothing.
    assert best_spans(question, sources[:1])[0][1].parts == ()
    assert best_spans("Does PCI passthrough fail on the HP 8300?", sources)[0][1].parts == ()


def test_units_of_a_table_list_and_passage():
    kinds = [u.kind for u in units(TABLE + "\n" + LIST + "\nOne sentence. Another one.")]
    assert kinds == ["row", "row", "item", "item", "item", "list", "sentence", "sentence"]


@pytest.mark.parametrize(
    "row, pairs",
    [
        ("Member is Alice", (("Member", "Alice"),)),
        ("Member is Alice, and Task is Search", (("Member", "Alice"), ("Task", "Search"))),
        (
            "A is 1, B is x, y, and C is 3",
            (("A", "1"), ("B", "x, y"), ("C", "3")),
        ),
    ],
)
def test_row_pairs(row, pairs):
    assert row_pairs(row) == pairs


def test_counted_items():
    assert counted_items("a; b; c") == "3: a; b; c"


def test_context_words_count_less_than_the_question():
    question = "And the BIOS? (context: Dell, Optiplex, 7040, tested, lab)"
    spans = best_spans(
        question,
        [
            (1, "Lab", "The Dell Optiplex 7040 and the Dell Optiplex 9010 were tested in the lab."),
            (2, "Lab", "BIOS of the Dell Optiplex 7040: 1.14.0"),
        ],
    )
    assert spans[0][0] == 2


def test_support_separates_a_supporting_evidence_from_an_unrelated_one():
    question = "Which TPM version had the Dell Optiplex 7040 in the measurement test?"
    relevant = support(question, "OpenXT 9.0 Measurement Test", TABLE)
    unrelated = support(question, "Cafeteria", "The cafeteria serves soup on Fridays.")
    assert relevant >= 0.6 and unrelated == 0.0
    partial = support("How many weeks of parental leave were discussed in the call?", "", MINUTES)
    assert 0.0 < partial < 0.5 and support("Parental leave?", "Calls", MINUTES) == 0.0


ANNOUNCED = (
    "Enabling Argo transport will address three critical requirements:\n"
    "- Preserve strong isolation between both ends\n"
    "- Enforce mandatory access control over the endpoints\n"
    "- Enable Argo support in the mainline Linux kernel\n"
    "Work starts in July."
)


def test_a_sentence_announcing_a_list_is_answered_with_the_list():
    assert answer("Which critical requirements will Argo transport address?", ANNOUNCED) == (
        "Preserve strong isolation between both ends; Enforce mandatory"
        " access control over the endpoints; Enable Argo support in the mainline Linux kernel"
    )
    assert answer("How many critical requirements will Argo transport address?", ANNOUNCED) == (
        "3: Preserve strong isolation between both ends; Enforce mandatory"
        " access control over the endpoints; Enable Argo support in the mainline Linux kernel"
    )


def test_an_item_that_answers_is_answered_alone():
    assert answer("Which kernel gets Argo support?", ANNOUNCED) == (
        "Enable Argo support in the mainline Linux kernel"
    )


def test_the_best_supported_span_answers_before_a_higher_scored_one():
    question = "Which graphics card failed the GPU passthrough test on the HP 8300?"
    names_only = (1, "GPU Testing", "The HP 8300 GPU test ran Xen 4.4.0 with the 3.13 kernel.")
    answers = (
        2,
        "HP GPU Testing — Results",
        "On every machine the Radeon HD 7750 graphics card failed the passthrough test, as a"
        " long run of stress tests that also covered other hardware showed after several"
        " weeks of work.",
    )
    (first, top), (second, other) = best_spans(question, [names_only, answers])
    assert (first, second) == (2, 1)
    assert top.support > other.support and top.score < other.score
    assert "Radeon HD 7750" in top.answer
    # Leaving the other source out leaves the answer as it was.
    assert best_spans(question, [answers])[0][1].answer == top.answer


STEPS = (
    "- Download an installer from the Fedora web site\n"
    "- Create a new guest with minimal hardware for the installation\n"
    "- Install Fedora and reboot at the end of the installation"
)


def test_a_question_for_several_things_gathers_the_items_of_its_list():
    (_, span), *_ = best_spans(
        "What are the steps of a guest installation?", [(1, "Guests", STEPS)]
    )
    assert [span.answer, *(value for _, value in span.parts)] == [
        "Download an installer from the Fedora web site",
        "Create a new guest with minimal hardware for the installation",
        "Install Fedora and reboot at the end of the installation",
    ]
    (_, one), *_ = best_spans(
        "Where is the Fedora installer downloaded from?", [(1, "Guests", STEPS)]
    )
    assert one.parts == ()


@pytest.mark.parametrize(
    "question",
    [
        "Welche Schritte hat eine Gast-Installation?",
        "Was sind die Schritte einer Gast-Installation?",
        "What are the steps of a guest installation?",
    ],
)
def test_a_german_question_for_several_things_gathers_the_items_too(question):
    (_, span), *_ = best_spans(question, [(1, "Guests", STEPS)], glossary_translations(question))
    assert len(span.parts) == 2


@pytest.mark.parametrize(
    "question, expected",
    [
        ("Is there any information on the isolation of display outputs?", "what"),
        ("Is anything documented on reducing technical debt?", "what"),
        ("Gibt es Informationen über die Isolierung von Anzeigeausgaben?", "what"),
        ("Is there a GitHub repository for the website?", "yesno"),
    ],
)
def test_asking_for_information_is_no_yes_no_question(question, expected):
    assert question_type(question) == expected


def test_which_of_the_x_names_x():
    assert question_focus("For which of the platforms were two reboots needed?") == (
        ("platforms",),
        True,
    )


@pytest.mark.parametrize(
    "question, sentence, expected",
    [
        (
            "What is the recommended configuration for building OpenXT?",
            "Let's assume you're running a 32bits installation of Debian Squeeze, which is the"
            " recommended configuration for building OpenXT.",
            "Let's assume you're running a 32bits installation of Debian Squeeze",
        ),
        (
            "When did the community call on July 23, 2015 start?",
            "The community call on July 23, 2015 -- at 1:00PM (EDT)",
            "at 1:00PM (EDT)",
        ),
        (
            "What will TBOOT trace to, if the target system has a serial port?",
            "TBOOT will trace to serial output if the target system has a serial port.",
            "TBOOT will trace to serial output if the target system has a serial port.",
        ),
    ],
)
def test_clauses_that_only_repeat_the_question_are_left_out(question, sentence, expected):
    assert without_echo(profile_question(question), sentence) == expected


CHECKLIST = (
    "Table 1: Item, Purpose\n"
    "Row 1 in Table 1: Item is Release build archived to stable storage, and Purpose is To"
    " avoid loss of the release materials\n"
    "Row 2 in Table 1: Item is QA report published, and Purpose is Lists the test results"
)


def test_a_why_question_on_a_row_is_answered_by_the_reason():
    question = "Why is the release build archived to stable storage?"
    assert answer(question, CHECKLIST) == "Purpose: To avoid loss of the release materials"


def test_a_yes_no_question_on_a_row_without_a_verdict_cell_says_yes():
    assert answer("Was the QA report published?", CHECKLIST) == "Yes"


def test_a_plural_which_gets_the_issue_keys_of_sibling_sections():
    question = "Which OXT JIRA issues may be encountered during a Fedora guest installation?"
    page = "How to Install Guest VMs — Linux > Fedora"
    sources = [
        (1, f"{page} > Blacklist bochs_drm driver on installation", "OXT-806"),
        (2, f"{page} > Turn off ACPI during installation", "OXT-808\nTurn ACPI off."),
        (3, "Test Matrix — Notes", "OXT-901"),
    ]
    (_, span), *_ = best_spans(question, sources)
    assert span.answer == "OXT-806" and span.parts == ((2, "OXT-808"),)
    # one issue asked for: one answered
    (_, span), *_ = best_spans(question.replace("issues may", "issue may"), sources)
    assert span.parts == ()


def test_gathered_rows_do_not_repeat_a_value_named_already():
    table = (
        "Table 1: Card, Xen Version, Notes\n"
        "Row 1 in Table 1: Card is Nvidia K2, Xen Version is 4.4.0, and Notes is Ubuntu 3.11"
        " Kernel\n"
        "Row 2 in Table 1: Card is AMD W600, Xen Version is 4.4.0, and Notes is Ubuntu 3.13"
        " Kernel\n"
        "Row 3 in Table 1: Card is AMD V5900, Xen Version is 4.3.3, and Notes is Ubuntu 3.11"
        " Kernel, PCI passthrough fails"
    )
    question = "Which Ubuntu versions were used in these GPU tests?"
    (_, span), *_ = best_spans(question, [(1, "Upstream Xen GPU Testing — Results", table)])
    assert span.answer == "Ubuntu 3.11 Kernel" and span.parts == ((1, "Ubuntu 3.13 Kernel"),)


TEAM_ROW = (
    "Row 2 in Table 1: Team is Payments, Lead is Chloe Whitfield, Office is Bristol, Slack"
    " channel is #team-payments, and Jira component is billing"
)


@pytest.mark.parametrize(
    "question",
    ["Where is the Payments team based?", "where are they based? (context: leads, Payments)"],
)
def test_a_where_question_on_a_row_is_answered_by_its_place_column(question):
    (_, span), *_ = best_spans(question, [(1, "Team Directory — Teams", TEAM_ROW)])
    assert span.answer == "Office: Bristol"


HOLIDAY_ROW = (
    "Row 14 in Table 2: Date is Mon 17 May 2027, Holiday is Whit Monday (Pfingstmontag), "
    "Berlin is Public holiday, and Bristol is Normal day"
)


@pytest.mark.parametrize(
    "question, expected",
    [
        # the asked cell lacks what the question asks it to be, its neighbour says it: No
        ("Is Whit Monday a holiday in Bristol?", "No"),
        ("Is Whit Monday a holiday in Berlin?", "Yes"),
    ],
)
def test_a_yes_no_whose_asked_cell_lacks_the_noun_another_cell_says(question, expected):
    (number, span), *_ = best_spans(
        question, [(1, "Offices and Public Holidays — Public holidays", HOLIDAY_ROW)]
    )
    assert span.answer == expected
    assert "Public holiday" not in span.row_key  # it says what is asked, not which row


@pytest.mark.parametrize("question", ["What is TBOOT?", "Was bedeutet TBOOT?", "Was ist TBOOT?"])
def test_a_definition_comes_before_a_better_ranked_sentence_naming_the_thing(question):
    notes = "It is the reference program from Intel for driving TXT."
    spans = best_spans(question, [(1, "Work list", "Update TBOOT"), (2, "TBOOT Notes", notes)])
    assert spans[0][1].answer == notes
    # the verb of asking is no term a definition must hold
    assert set(profile_question(question).terms) == {"tboot"}


def test_a_definition_question_is_answered_by_the_sentence_that_defines():
    notes = (
        "What is TBOOT? It is the reference program from Intel for driving TXT.\nIt lives on SF."
    )
    other = "Update TBOOT to the new release."
    spans = best_spans("What is TBOOT?", [(1, "Work list", other), (2, "TBOOT Notes", notes)])
    assert spans[0] == (2, spans[0][1])
    assert spans[0][1].answer == "It is the reference program from Intel for driving TXT."
    assert profile_question("Was bedeutet TBOOT?").defines == frozenset({"tboot"})
    question = "What is the recommended configuration for building OpenXT?"
    assert profile_question(question).defines == frozenset()


@pytest.mark.parametrize(
    "question, expected",
    [
        ("Ist das Büro am 24. Dezember geöffnet?", "No"),
        ("Is the office closed on 24 December?", "Yes"),
        ("Is the office open on 25 December?", "Yes"),
    ],
)
def test_a_yes_no_question_answered_by_the_opposite_word_is_no(question, expected):
    text = (
        "Zwischen dem 24. Dezember und dem 1. Januar ist das Büro geschlossen.\n"
        "The office is closed from 24 December.\n"
        "On 25 December the office is open for deliveries."
    )
    assert answer(question, text) == expected


def test_plain_words_of_which_x_in_a_row_label_do_not_make_it_the_answer():
    hours = (
        "Row 1 in Table 1: Column 1 is Building opening hours, Berlin is Mon–Fri 07:00–21:00,"
        " and Bristol is Mon–Fri 08:00–19:00"
    )
    assert answer("What are the opening hours of the Bristol office?", hours) == (
        "Mon–Fri 08:00–19:00"
    )


def test_how_many_prefers_the_span_that_names_what_is_counted():
    """At equal support, "58 people" answers "how many people", not another number."""
    sources = [
        (1, "VPN", "Remote work from Bristol uses UDP port 51820."),
        (2, "Team Directory", "Headcount in Bristol: 21 people."),
    ]
    (first, span), *_ = best_spans("How many people work in Bristol?", sources)
    assert first == 2 and span.answer.startswith("21 people")


BATS = (
    "Bats is enabled/disabled using the DISTRO_FEATURE variable of the OpenEmbedded build"
    " system. This variable is declared in OpenXT's local.conf and is the best place to add"
    " the bats distro feature."
)


@pytest.mark.parametrize(
    "question",
    [
        "Where is the DISTRO_FEATURE variable declared that enables BATS?",
        "Wo wird die DISTRO_FEATURE Variable deklariert, die BATS einschaltet?",
    ],
)
def test_a_sentence_that_refers_back_carries_what_it_refers_to(question):
    # "This variable" is the DISTRO_FEATURE variable of the sentence before: the sentence
    # that says where it is declared covers the question, the one before only restates it.
    span = best_spans(question, [(1, "Bats", BATS)], glossary_translations(question))[0][1]
    assert "local.conf" in span.answer


def test_only_a_sentence_opening_with_a_reference_carries_the_one_before():
    first, second, third = units("Bats runs the tests. This variable is set. Xen boots.")
    assert second.antecedent >= {"bat", "test"}
    assert not first.antecedent and not third.antecedent


def glossary_translations(question: str):
    from core.extractive import ExtractiveLLM

    return ExtractiveLLM(glossary=True).translations(question)


BUILDBOT = (
    "See buildbot2.cfg for a complex configuration of buildbot.\n"
    "This puts complexity into the buildbot configuration since the binaries need to be"
    " transferred across machines."
)
TICKETS = (
    "A JIRA ticket is created for the board when no resolution can be reached.\n"
    "Create a JIRA ticket for the board by using the New button of the tracker page."
)


@pytest.mark.parametrize(
    "question, text, expected",
    [
        ("Why is there complexity in the buildbot configuration?", BUILDBOT, "since"),
        ("Warum gibt es Komplexität in der buildbot Konfiguration?", BUILDBOT, "since"),
        ("How is a JIRA ticket for the board created?", TICKETS, "New button"),
        ("Wie wird ein JIRA Ticket für das Board erstellt?", TICKETS, "New button"),
    ],
)
def test_among_equally_covering_spans_the_one_holding_the_asked_relation_wins(
    question, text, expected
):
    # why → a reason clause, how → a means: a span that only restates the question's words
    # does not answer it.
    spans = best_spans(question, [(1, "Build notes", text)], glossary_translations(question))
    assert expected in spans[0][1].answer


def test_a_question_the_page_asks_is_no_answer():
    text = (
        "What happens when two guests run on one host?\n"
        "Kevin: when are topics approved for the call?\n"
        "Each guest gets its own display."
    )
    assert answer("What happens when two guests run?", text) == "Each guest gets its own display."
    # A labelled line ending in "?" is an agenda topic, which is an answer.
    assert answer("What did Kevin have on the agenda?", text).startswith("when are topics")


def test_german_hyphenated_compounds_weigh_as_their_parts():
    # "Versions-Checkliste" is a checklist, not a name: its parts weigh as plain words, as
    # the English question's "release checklist" would; a part that is a name keeps its
    # weight ("OpenXT-Problemnummer", "rc1-Tests").
    terms = profile_question("Was bedeutet Dokumentation gemäß der Versions-Checkliste?").terms
    assert terms["version"] == terms["checklist"] == 1.0
    terms = profile_question("Wie lautete die OpenXT-Problemnummer in den rc1-Tests?").terms
    assert terms["openxt"] == terms["rc1"] == 2.0
    assert profile_question("Welche Tests in Stable-9?").terms["stable-9"] == 2.0
    assert terms["problemnumm"] == terms["test"] == 1.0
    assert "lautet" not in terms
    # English compounds keep their weight.
    assert profile_question("Is the read-only mode set?").terms["read"] == 2.0


KERNELS = (
    "Row 1 in Table 1: Xen Version is 4.3.3, Machine is Dell 9020, and Notes is Ubuntu 3.13"
    " Kernel\n"
    "Row 2 in Table 1: Xen Version is 4.4.0, Machine is HP 8300, and Notes is Ubuntu 3.11 Kernel"
)


@pytest.mark.parametrize(
    "question",
    [
        "Which Ubuntu versions were used in these Xen GPU tests?",
        "Welche Ubuntu Versionen wurden für diese Xen GPU Tests verwendet?",
    ],
)
def test_the_cell_naming_the_name_of_which_x_answers(question):
    # "Xen Version" holds a version and the question's word "version", but the question
    # asks which *Ubuntu* version: the cell that names Ubuntu answers.
    assert "Ubuntu 3.13 Kernel" in answer(question, KERNELS, "Upstream Xen GPU Testing")


def test_a_german_question_weighs_names_and_english_terms_as_the_english_one_does():
    terms = profile_question("Welche Ubuntu Versionen wurden für diese Xen Tests verwendet?").terms
    assert terms["ubuntu"] == terms["xen"] == 2.0
    # German nouns (the glossary's, or the index's translations) are plain words.
    assert terms["test"] == 1.0
    translated = profile_question("Wer prüft die Schreibtische?", (("schreibtische", ("desk",)),))
    assert translated.terms["schreibtisch"] == 1.0
    # English nouns German uses as its own are common words, as in the English question;
    # a name in a compound keeps its weight.
    terms = profile_question("Welche Version hat das JIRA-Ticket der Fedora-Gast-VM?").terms
    assert terms["version"] == terms["ticket"] == terms["gast"] == 1.0
    assert terms["fedora"] == terms["jira"] == terms["vm"] == 2.0


CALL = (
    "Present:\n"
    "Christopher Clark, Rich Persaud; BAE\n"
    "ACTION: Rich to document icbinn to aid in presenting to other users."
)


@pytest.mark.parametrize(
    "question",
    [
        "What were the action items for Rich Persaud in the Community Call on 15th December?",
        "Was waren die Aktionspunkte für Rich Persaud im Community Call am 15. Dezember?",
    ],
)
def test_a_line_holding_only_the_names_of_the_question_does_not_answer_it(question):
    # The attendee line names Rich Persaud; what the question asks about him (action items)
    # is on the ACTION line.
    spans = best_spans(question, [(1, "Community Call", CALL)], glossary_translations(question))
    assert "document icbinn" in spans[0][1].answer


LEAVE = (
    "- Germany: 28 days of annual leave per year.\n"
    "- United Kingdom: 25 days of annual leave per year.\n"
    "- Up to 5 unused days can be carried over."
)


@pytest.mark.parametrize(
    "question",
    [
        "How many days of annual leave in the United Kingdom?",
        "Wie viele Urlaubstage im United Kingdom?",
    ],
)
def test_a_measure_asked_with_how_many_is_a_value_not_a_count_of_items(question):
    reply = answer(question, LEAVE, "Offices — Annual leave")
    assert not reply.startswith("3:"), reply
    assert "25 days" in reply


def test_items_are_still_counted_for_how_many_things():
    """Counted when the heading names the counted thing ("rules"), not otherwise."""
    header = "Offices — Annual leave rules"
    reply = answer("How many rules about annual leave are there?", LEAVE, header)
    assert reply.startswith("3: Germany")
    other = answer("How many rules about annual leave are there?", LEAVE, "Offices — Leave")
    assert not other.startswith("3:")


HOLIDAYS = "- 25 December: Christmas Day\n- 26 December: Boxing Day\n- 1 January: New Year"
FEIERTAGE = "- 25. Dezember: Weihnachten\n- 26. Dezember: Stephanstag\n- 1. Januar: Neujahr"


@pytest.mark.parametrize(
    ("question", "header", "text", "first"),
    [
        (
            "How many public holidays are listed?",
            "Offices — Public holidays",
            HOLIDAYS,
            "25 December",
        ),
        ("Wie viele Feiertage gibt es?", "Büros — Feiertage", FEIERTAGE, "25. Dezember"),
    ],
)
def test_things_named_like_a_unit_are_counted_where_no_measure_is_stated(
    question, header, text, first
):
    reply = answer(question, text, header)
    assert reply.startswith(f"3: {first}"), reply


ANNOUNCING = (
    "1. Deploy the release candidate to staging.\n"
    "  1. Exit criteria for staging:\n"
    "    1. HTTP 5xx rate below 0.5%;\n"
    "    2. p95 latency below 300 ms.\n"
    "Action items:\n"
    "- Change the call times.\n"
    "- Write the copyright policy."
)


def test_an_intro_holding_every_asked_term_announces_the_answer():
    span = best_span(profile_question("What are the exit criteria for staging?"), "P", ANNOUNCING)
    assert span is not None and span.answer.startswith("HTTP 5xx rate below 0.5%")


def test_an_intro_lacking_an_asked_term_is_no_answer():
    # "Action items:" lacks Rich: the items it announces may be anyone's
    assert best_span(profile_question("Action items for Rich?"), "P", ANNOUNCING) is None


def test_a_german_compound_of_german_words_is_no_term_of_its_own():
    # "Software-Dokumentation" is "software documentation" on an English page: only its
    # parts can be found; a compound of names and numbers is written the same in both.
    terms = profile_question("Was bedeutet die Software-Dokumentation in der Stable-9?").terms
    assert "software-dokumentation" not in terms
    assert terms["softwar"] == terms["dokument"] == 1.0
    assert terms["stable-9"] == 2.0


def test_german_function_words_are_no_terms_as_their_english_ones_are_not():
    # "irgendeine" is "any", "dafür" "for it", "mehr" "more": English stopwords.
    terms = profile_question("Hat irgendeine Konfiguration dafür mehr Tests gebraucht?").terms
    assert not {"irgendein", "dafür", "mehr"} & terms.keys()
    english = profile_question("Did any configuration need more tests for it?").terms
    assert len(terms) == len(english)


def test_a_comma_without_a_space_still_ends_a_german_word():
    # "empfohlen,Builds" is two words; joined, the inner capital made it a name.
    terms = profile_question("Warum wird empfohlen,Builds zu archivieren?").terms
    assert terms["empfohlen"] == terms["build"] == 1.0
    assert {"1", "5"} <= profile_question("Warum wird 1,5 GB empfohlen?").terms.keys()


@pytest.mark.parametrize(
    "question, expected",
    [
        ("Did the Dell Optiplex 7040 fail the UEFI OTA upgrade?", "No"),
        ("Did the Dell Optiplex 7060 fail the UEFI OTA upgrade?", "Yes"),
        ("Hat der Dell Optiplex 7040 das UEFI OTA Upgrade nicht bestanden?", "No"),
        ("Hat der Dell Optiplex 7060 das UEFI OTA Upgrade nicht bestanden?", "Yes"),
        ("Hat der Dell Optiplex 7040 das UEFI OTA Upgrade bestanden?", "Yes"),
    ],
)
def test_a_question_asking_whether_something_failed_reads_a_pass_cell_as_no(question, expected):
    # "nicht bestanden" asks about failing, as "fail" does: a Pass cell says no.
    assert answer(question, TABLE) == expected


def test_a_negated_german_question_is_contradicted_by_its_positive_word():
    text = "Row 1 in Table 1: Configuration is Network DHCP, and Notes is tests passed"
    question = "Hat die Konfiguration Network DHCP den Test nicht bestanden?"
    assert answer(question, text) == "No"
    assert answer("Hat die Konfiguration Network DHCP den Test bestanden?", text) == "Yes"


RELEASE_ROWS = (
    "Row 2 in Table 1: Column 1 is Release software version is correct in the release branch,"
    " and Column 2 is Version metadata needs to be updated\n",
    "Row 16 in Table 1: Column 1 is Software documentation has been completed, and Column 2 is"
    " Updated to reflect new features",
)


def test_a_word_the_glossary_translates_counts_as_the_english_word():
    # "Dokumentation" and "abgeschlossen" are the glossary's "documentation", "completed":
    # the row holding them answers before the one holding only the cognates "software"
    # and "version", as it does for the English question, though it was found lower.
    question = "Was bedeutet „Software-Dokumentation abgeschlossen“ gemäß der Versions-Checkliste?"
    sources = [(n, "Release Checklist", text) for n, text in zip((1, 9), RELEASE_ROWS, strict=True)]
    spans = best_spans(question, sources, glossary_translations(question))
    assert spans[0][1].answer.startswith("Software documentation has been completed")
    english = "What does software documentation completed mean in the release checklist?"
    assert best_spans(english, sources)[0][1].answer == spans[0][1].answer


def test_a_word_in_german_quotes_is_no_name():
    # The capital after „ is no inner capital: „Beiträge“ is a plain noun, as "contributions"
    # is in the English question.
    question = "Darf jeder ein neues Ticket erstellen, wie im Dokument „Beiträge“ angegeben?"
    assert profile_question(question).terms["beiträg"] == 1.0


def test_an_answer_is_not_cut_before_the_end_of_its_clause():
    from core.spans import clip_clause

    sentence = (
        "Closed indicates that QA has signed off on the item as verified completed, and "
        "the ticket may then be archived by the release manager at any later time."
    )
    assert clip_clause(sentence, 8) == (
        "Closed indicates that QA has signed off on the item as verified completed …"
    )
    short = "Closed indicates that QA has signed off on the item as verified completed."
    assert clip_clause(short, 8) == short  # it ends there: shown whole
    assert clip_clause(" ".join(["word"] * 40), 10) == " ".join(["word"] * 10) + " …"
    german = (
        "Geschlossen bedeutet, dass die Qualitätssicherung den Punkt als erledigt abgenommen hat."
    )
    assert clip_clause(german, 5) == german


def test_an_item_cut_where_its_evidence_ends_is_answered_whole_from_another_source():
    cut = "The following items are measured:\n- Device firmware\n- Xen hypervisor and the Xen"
    whole = "- Device firmware\n- Xen hypervisor and the Xen boot command line\n- Dom0 kernel"
    sources = [(1, "Measured Launch > Introduction", cut), (2, "Measured Launch", whole)]
    question = "What was measured about the Xen hypervisor?"
    (number, span), *_ = best_spans(question, sources)
    assert (number, span.answer) == (2, "Xen hypervisor and the Xen boot command line")
    (number, span), *_ = best_spans(question, sources[:1])
    assert span.answer.endswith("and the Xen")  # no source holds the rest
    german = "Was wurde über den Xen hypervisor gemessen?"
    assert best_spans(german, sources)[0][1].answer.endswith("boot command line")


@pytest.mark.parametrize(
    "question",
    ["Who created the contributions document?", "Wer hat das Dokument über Beiträge erstellt?"],
)
def test_a_question_about_the_page_owner_is_not_answered_by_a_label(question):
    # No byline among the evidences: a labelled item that names no owner is no answer
    # ("Abstract Section" is no person who created the page); one that says so is.
    translations = glossary_translations(question)
    items = "- Abstract Section: The RFC gives an overview of the entire document."
    spans = best_spans(question, [(1, "How to contribute", items)], translations)
    assert not answers_type(profile_question(question), spans[0][1])
    author = "- Document author: Danielle Cummings."
    spans = best_spans(question, [(1, "How to contribute", author)], translations)
    assert answers_type(profile_question(question), spans[0][1])


@pytest.mark.parametrize(
    "question",
    [
        "What is the main advantage of a single customization layer?",
        "Was ist der Hauptvorteil einer einzelnen customization layer?",
    ],
)
def test_a_sentence_announcing_its_reasons_is_answered_by_the_next_one(question):
    text = (
        "The single customization layer approach is attractive for several reasons. First, "
        "only one extra repository needs to be tracked, and it is not a fork. The derivative "
        "project keeps control over it."
    )
    (_, span), *_ = best_spans(question, [(1, "Derivative RFC > Benefits", text)])
    assert span.answer.startswith("First, only one extra repository needs to be tracked")


def test_a_sentence_giving_its_reason_is_its_own_answer():
    text = "The single layer is attractive because only one repository is tracked. It is small."
    question = "Why is the single layer attractive?"
    (_, span), *_ = best_spans(question, [(1, "Derivative RFC", text)])
    assert "only one repository is tracked" in span.answer


AGENDA = (
    "Topics for this week's call:\n"
    "1. Release 7.0 planning:\n"
    "- Measured Launch merge\n"
    "- Xen upstream: V4V improvements\n"
    "- Xen upstream: xl/qemu improvements\n"
    "2. Release 6.0 planning:\n"
    "- upgrade support for minor versions\n"
    "Xen upstream improvements were planned for release 6.0 last year."
)


def test_items_under_an_introducing_item_read_it_as_their_heading():
    found = units(AGENDA)
    items = [u for u in found if u.kind == "item" and "V4V" in u.text]
    assert {"7.0", "plan"} <= items[0].antecedent
    prose = [u for u in found if u.kind == "sentence" and "last year" in u.text]
    assert not prose[0].antecedent  # a paragraph after the list is no item of it


@pytest.mark.parametrize(
    "question",
    [
        "What were the improvements planned for Xen upstream in the 7.0 planning?",
        "Welche Verbesserungen für Xen upstream waren in der 7.0 planning vorgesehen?",
    ],
)
def test_the_items_under_the_asked_intro_answer_not_a_sentence_elsewhere(question):
    (_, span), *_ = best_spans(question, [(1, "Community Call", AGENDA)])
    assert "V4V improvements" in span.answer


QA_PAGE = (
    "The proposed Display Handler would contain a dumb-buffer renderer\n"
    "I assume from this that hooking DDI and D3D accelerations in the VM driver is not "
    "planned at this time. ANSWER: Correct. BUT there will be HW cursor support.\n"
    "The Display Handler will support more than one GPU, one GPU at a time for the UIVM.\n"
    "Wird der Treiber Monitore klonen? Antwort: Nein, das klont der Display Handler."
)


@pytest.mark.parametrize(
    "question",
    [
        "I assume that hooking DDI and D3D accelerations in the VM driver is not planned?",
        "Ich gehe davon aus, dass DDI und D3D accelerations im VM driver nicht planned sind?",
    ],
)
def test_a_question_and_answer_line_is_answered_by_its_answer(question):
    (_, span), *_ = best_spans(question, [(1, "Display Driver", QA_PAGE)])
    assert span.answer == "Correct. BUT there will be HW cursor support."


def test_the_question_of_a_question_and_answer_line_is_no_unit():
    texts = [u.text for u in units(QA_PAGE)]
    assert "Nein, das klont der Display Handler." in texts
    assert not any(t.startswith(("I assume", "Wird der Treiber")) for t in texts)
    (answer,) = [u for u in units(QA_PAGE) if u.text.startswith("Correct")]
    assert answer.answers and {"acceler", "driver"} <= answer.antecedent


@pytest.mark.parametrize(
    "question",
    [
        "How can a guest have more displays than the host?",
        "Wie kann ein guest mehr displays als der host haben?",
    ],
)
def test_an_answer_whose_question_refers_back_reads_the_line_before_it(question):
    page = (
        "If the guest has more displays than the host,\n"
        "How would this situation come about? ANSWER: user unplugs a monitor. The driver "
        "cannot respond.\n"
        "If the guest has only one monitor, and the host has many, the guest is cloned."
    )
    (answer,) = [u for u in units(page) if u.answers]
    assert {"guest", "display", "host", "situat"} <= answer.antecedent
    (_, span), *_ = best_spans(question, [(1, "Driver", page)])
    assert span.answer.startswith("user unplugs a monitor")


@pytest.mark.parametrize(
    "question",
    [
        "What was measured about grub during measured launches?",
        "Was wurde über grub während der measured launches gemessen?",
    ],
)
def test_a_name_finds_it_with_a_generation_number_run_on(question):
    page = "The following items are measured:\n- UEFI multi-boot modules\n- grub2 bootloader"
    (_, span), *_ = best_spans(question, [(1, "Measured Launch", page)])
    assert span.answer == "grub2 bootloader"


def test_a_generation_number_is_no_name_of_its_own():
    from core.questions import terms

    assert {"grub2", "grub", "tpm2", "tpm"} <= set(terms("grub2 TPM2"))
    assert "rc" not in terms("rc2") and "x" not in terms("x86")


@pytest.mark.parametrize(
    "question",
    [
        "What was common to the discussion on Qemu and LibXL in the 7.0 planning?",
        "Was war gemeinsam bei der Diskussion über Qemu und LibXL in der 7.0 planning?",
    ],
)
def test_a_question_about_two_named_things_gets_the_item_of_each(question):
    (_, span), *_ = best_spans(question, [(1, "Community Call", AGENDA_PAIR)])
    answered = [span.answer, *(value for _, value in span.parts)]
    assert sorted(answered) == ["LibXL merge", "Qemu 2.6 merge"]


AGENDA_PAIR = (
    "1. Release 7.0 planning:\n- Measured Launch merge\n- LibXL merge\n- Qemu 2.6 merge\n"
    "- tapdisk3 migration\n2. Release 6.0 planning:\n- Qemu security fixes"
)


MATRIX = (
    "Table 1: Build, Platform, Install, Upgrade\n"
    "Row 1 in Table 1: Build is 812, Platform is Acme Box 5, Install is Pass, and Upgrade is"
    " Fail DISK-17\n"
    "Row 2 in Table 1: Build is 812, Platform is Acme Box 6, Install is Pass, and Upgrade is Pass"
)


RETIRING = (
    "A Board member may retire as follows:\n"
    "- The Board member sends a signed request to the mailing list\n"
    "- The Board acknowledges the request\n"
    "- The seat is filled at the next election"
)
ATTENDEES = "Attendees:\n- Rich Persaud\n- Eric Chanudet\n- Kevin Pearson"


def _reply(question: str, text: str, header: str) -> str:
    """The answer of the best span, "" when no unit shares a term with the question."""
    span = best_span(profile_question(question), header, text)
    return span.answer if span else ""


@pytest.mark.parametrize(
    "question",
    [
        "What was the reason? (context: Acme, Box, 5, pass, upgrade, 812)",
        "Was war der Grund dafür? (context: Acme, Box, 5, Upgrade, bestanden, 812)",
    ],
)
def test_a_why_follow_up_on_a_row_is_answered_by_the_failure_not_the_row_key(question):
    # the carried context names the row's key cells; the reason is the cell that fails and
    # says more than its verdict
    assert answer(question, MATRIX) == "Upgrade: Fail DISK-17"


def test_a_bare_failure_is_no_reason():
    from core.spans import _gives_reason

    assert _gives_reason("Fail DISK-17") and _gives_reason("because of the disk")
    assert not _gives_reason("Fail") and not _gives_reason("Pass DISK-17")


@pytest.mark.parametrize(
    "question",
    ["How many people attended the Board meeting?", "Wie viele Personen nahmen am Board teil?"],
)
def test_a_list_of_other_things_is_no_count_of_people(question):
    assert not _reply(question, RETIRING, "Governance — Board").startswith("3:")


@pytest.mark.parametrize(
    "question",
    ["How many people attended the Board meeting?", "Wie viele Personen waren im Board Meeting?"],
)
def test_a_list_of_names_counts_people(question):
    assert answer(question, ATTENDEES, "Meeting — Board").startswith("3: Rich Persaud")


@pytest.mark.parametrize(
    "question, counted",
    [
        ("How many statuses does a ticket have?", False),
        ("How many steps does a Board member take to retire?", False),
        ("Wie viele Status hat ein Ticket?", False),
    ],
)
def test_a_list_counts_only_what_its_intro_or_heading_names(question, counted):
    reply = _reply(question, RETIRING, "Governance — Board")
    assert reply.startswith("3:") is counted


def test_a_list_under_a_heading_naming_the_counted_thing_is_counted():
    statuses = "- Open\n- In Progress\n- Review\n- Done"
    assert answer("How many statuses does a ticket have?", statuses, "Tickets — Statuses") == (
        "4: Open; In Progress; Review; Done"
    )
    assert answer("Wie viele Status hat ein Ticket?", statuses, "Tickets — Status").startswith(
        "4: Open"
    )


CONFIRMED = (
    "No support is planned for monitor rotation.\n"
    "I assume from this that supporting rotated framebuffers is not planned at this time."
    " ANSWER: correct.\n"
    "Is HDMI audio planned? ANSWER: No.\n"
    "Ich gehe davon aus, dass VGA entfällt. ANTWORT: Ja."
)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "Is supporting rotated framebuffers planned?",
            "Correct: supporting rotated framebuffers is not planned at this time.",
        ),
        (
            "Ist Unterstützung für rotated framebuffers geplant?",
            "Richtig: supporting rotated framebuffers is not planned at this time.",
        ),
        ("Ist es richtig, dass VGA entfällt?", "Ja: VGA entfällt."),
        ("Does VGA go away (entfällt)?", "Yes: VGA entfällt."),
    ],
)
def test_a_bare_confirmation_says_what_it_confirms(question, expected):
    assert answer(question, CONFIRMED, "Display Handler") == expected


def test_a_confirmation_of_a_question_stays_as_it_is():
    assert answer("Is HDMI audio planned?", CONFIRMED, "Display Handler") == "No"


@pytest.mark.parametrize(
    "question, text",
    [
        ("How many people attended?", "The call was held on July 23, 2015 at 1:00PM (EDT)."),
        ("Wie viele Personen nahmen teil?", "Die Besprechung begann am 23. Juli 2015 um 13:30."),
        ("Wie viele Personen nahmen teil?", "Beginn: 9.30 Uhr im großen Raum."),
    ],
)
def test_a_time_of_day_is_no_count(question, text):
    assert typed_values("count", text, profile_question(question)) == []
    assert typed_values("count", f"{text} 7 attendees joined.", profile_question(question))


@pytest.mark.parametrize(
    "question, expected",
    [
        # a setting said first, up to a comma: the question opens after it
        ("In the laptop rollout, was the installation of Fedora successful?", "yesno"),
        ("Im Laptop-Rollout, wurde Fedora erfolgreich installiert?", "yesno"),
        ("During the upgrade test, who signed off?", "who"),
        # a question word inside the phrase: it is the question
        ("In which rollout was Fedora installed?", "what"),
    ],
)
def test_a_setting_before_the_question_does_not_hide_its_type(question, expected):
    assert question_type(question) == expected


FAILS = "The UEFI upgrade is known to fail on reboot."
RESOLVED = "The UEFI upgrade issue was resolved in March."
GELOEST = "Das UEFI Upgrade Problem wurde im März nicht gelöst."


@pytest.mark.parametrize(
    "question, text, expected",
    [
        # Found only through the follow-up's carried topic: nothing in it is what is asked,
        # so it gives no Yes or No (the answer then declines).
        ("Were any of them resolved? (context: UEFI upgrade issues)", FAILS, ""),
        ("Wurde eines davon gelöst? (context: UEFI Upgrade Probleme)", FAILS, ""),
        # A clause that holds what is asked decides it.
        ("Were any of them resolved? (context: UEFI upgrade issues)", RESOLVED, "Yes"),
        ("Wurde eines davon gelöst? (context: UEFI Upgrade Probleme)", GELOEST, "No"),
    ],
)
def test_a_yes_no_needs_a_clause_holding_what_is_asked(question, text, expected):
    span = best_span(profile_question(question), "Measured launch", text)
    assert span is not None and span.answer == expected


ROTA = (
    "Table 1: Week, Dates, Team, Secondary\n"
    "Row 1 in Table 1: Week is Week 4, Dates is Mon 26 Oct – Mon 2 Nov, Team is Payments,"
    " and Secondary is Sophie Brandt\n"
    "Row 2 in Table 1: Week is Week 2, Dates is Mon 12 Oct – Mon 19 Oct, Team is Payments,"
    " and Secondary is Emre Yilmaz"
)


@pytest.mark.parametrize(
    ("question", "translations"),
    [
        ("Who is the secondary for Payments in week 2?", ()),
        ("Wer ist in Woche 2 Secondary für Payments?", (("woche", ("week",)),)),
        # a follow-up's carried topic lists it as "Woche, 2", its word untranslated
        ("und der Secondary? (context: Woche, 2, Bereitschaft, Payments)", ()),
    ],
)
def test_a_numbered_thing_is_matched_through_its_translation(question, translations):
    """ "Woche 2" names the row of "Week 2", not the row whose dates hold a 2."""
    (_, span), *_ = best_spans(question, [(1, "On-call rotation", ROTA)], translations)
    assert "Emre Yilmaz" in span.answer


@pytest.mark.parametrize(
    "question",
    [
        "Was bedeutet TBOOT?",
        "Was beschreiben Ereignisse wie DEV_SET?",
        "Kann OXT für Linux kompiliert werden?",
    ],
)
def test_german_questions_are_read_as_german(question):
    assert profile_question(question).language == "de"


def test_german_question_and_modal_words_are_no_terms():
    """Words of asking weigh nothing, as "where", "should" and "has" in English ones."""
    profile = profile_question(
        "Wohin verfolgt TBOOT, wenn das Zielsystem über eine serielle Schnittstelle verfügt?"
    )
    assert not {"wohin", "verfügt"} & set(profile.terms)
    profile = profile_question("Welche drei Dinge sollten wir während der Installation prüfen?")
    assert "sollten" not in profile.terms and profile.plural
    # "in Bezug auf" says "about"
    assert "bezug" not in profile_question("Was gilt in Bezug auf Urlaub?").terms
    # a hyphen standing for an omitted word marks no name
    weights = profile_question("Was prüfen wir während der VM-Installation und -Konfiguration?")
    assert weights.terms["konfigur"] == 1.0


TEAMS = (
    "Who owns what at Northwind Robotics. All engineering work is tracked in Jira."
    " Headcount as of 15 September 2026: 58 people (Berlin 37, Bristol 21)."
)


def test_a_stated_count_is_about_what_its_passage_opens_naming():
    # "Northwind" only in the passage's opening sentence: the count still answers.
    for question in (
        "How many people work at Northwind?",
        "Wie viele Personen arbeiten bei Northwind?",
    ):
        sources = [(1, "Team Directory", TEAMS)]
        (_, span), *_ = best_spans(question, sources, glossary_translations(question))
        assert span.answer == "58 people"
        assert span.support > 0.5
    # A number not stated of the counted noun inherits nothing.
    votes = (
        "The Northwind Board decides technical matters. It votes with a simple +1 or -1 by"
        " each member. The board will have between 5 and 9 members."
    )
    span = best_span(profile_question("How many members will the Northwind Board have?"), "", votes)
    assert span is not None and span.whole == "The board will have between 5 and 9 members."


RESULTS = (
    "Row 1 in Table 1: Test Description is Configure guest VM, TPM is 2.0, OS Version is"
    " Debian 9.9, Build is 6662, Result is PWE Isolation, Build is 6674, Result is PASS,"
    " and Notes/Test Data is OXT-1577 fixed"
)


@pytest.mark.parametrize(
    "question",
    [
        "What was the result when Debian 9.9 was tested with TPM 2.0 and build 6662?",
        "Was war das Ergebnis, als Debian 9.9 mit TPM 2.0 und Build 6662 getestet wurde?",
    ],
)
def test_repeated_columns_answer_from_the_block_of_the_asked_value(question):
    # The result beside build 6662, not the last one; "Test" in two column names picks
    # neither, and the TPM the question already says is not repeated.
    for build, result in (("6662", "PWE Isolation"), ("6674", "PASS")):
        asked = question.replace("6662", build)
        sources = [(1, "Test Matrix", RESULTS)]
        (_, span), *_ = best_spans(asked, sources, glossary_translations(asked))
        assert span.answer == result


SIZES = (
    "Row 1 in Table 1: Team is Site Reliability (SRE), Lead is Aisha Mensah, Office is"
    " Bristol, and People is 5\n"
    "Row 2 in Table 1: Team is Payments, Lead is Chloe Whitfield, Office is Bristol, and"
    " People is 4"
)


@pytest.mark.parametrize("question", ["How big is the SRE team?", "Wie groß ist das SRE-Team?"])
def test_the_one_number_of_a_row_answers_a_size_question(question):
    # The Team cell names the row asked about; the one number of the row answers.
    assert answer(question, SIZES) == "People: 5"


@pytest.mark.parametrize(
    "aside",
    ['("Board votes" stage in the above Project Changes diagram)', "{info:icon=None}"],
)
def test_an_aside_or_a_macro_leftover_never_answers(aside):
    text = f"{aside}\nThe board votes to accept or reject a proposed change."
    found = scored_units(profile_question("What does the board vote on?"), "Governance", text)
    assert [s.unit.text for s in found] == [
        "The board votes to accept or reject a proposed change."
    ]


def test_an_aside_holding_the_person_asked_for_answers_who():
    aside = "(Work in progress - Dickon Reed, 2 September 2014)."
    profile = profile_question("Who is working on the Windows builds?")
    found = scored_units(profile, "Windows builds", aside)
    assert [s.unit.text for s in found] == [aside]


def test_an_item_cut_after_a_whole_sentence_is_answered_whole_from_another_source():
    # a passage's following context ends at a sentence, inside the item that goes on
    cut = (
        "A process has evolved for handling PRs. These are its aspects:\n"
        "- Monitor all new PRs.\n- Some PRs can get rejected right up front."
    )
    whole = (
        "- Monitor all new PRs.\n- Some PRs can get rejected right up front. These are ones"
        " with obvious issues.\n  - The PR does not have a ticket."
    )
    question = "When can PRs get rejected without discussion?"
    number, span = best_spans(question, [(1, "Process", cut), (2, "Process", whole)])[0]
    assert (number, span.whole) == (
        2,
        "Some PRs can get rejected right up front. These are ones with obvious issues.",
    )


def test_a_follow_ups_carried_topic_decides_between_spans_alike():
    call = (
        2,
        "Community Call - July 23 2015 — Dial-In Information",
        "July 23, 2015 at 1:00PM (EDT)",
    )
    charter = (
        1,
        "Governance Charter — Project Meetings",
        "The project shall hold monthly Community Call meetings on the third Thursday of every"
        " month at 4pm UTC.",
    )
    asked = "When did the call start?"
    followup = f"{asked} (context: Community, July, 23, 2015)"
    assert best_spans(followup, [charter, call])[0][0] == 2
    assert best_spans(asked, [charter, call])[0][0] == 1  # asked alone: no topic to weigh


@pytest.mark.parametrize(
    ("question", "text", "expected"),
    [
        # the clause names someone else as the one who did what is asked
        (
            "Did Christopher Clark also propose these ideas?",
            "Daniel Smith proposed this idea, which has been supported by Christopher Clark.",
            "No",
        ),
        (
            "Did Daniel Smith propose these ideas?",
            "Daniel Smith proposed this idea, which has been supported by Christopher Clark.",
            "Yes",
        ),
        # a closed list ("only") that leaves out what is asked
        (
            "Are variable names allowed to have hyphens?",
            "Variable names may contain only letters, numbers and underscores.",
            "No",
        ),
        (
            "Are variable names allowed to have underscores?",
            "Variable names may contain only letters, numbers and underscores.",
            "Yes",
        ),
    ],
)
def test_a_yes_no_clause_that_says_no_without_a_negation(question, text, expected):
    assert answer(question, text) == expected
