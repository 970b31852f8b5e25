"""Grounding a model's reply in its sources: sentence alignment, citation repair, and the
replies that are no answer (a citation only, a pasted source, a decline in other words).
The replies are the kinds a real 1.5B model wrote (issue 35)."""

from __future__ import annotations

import pytest

from core.answer import OUT_OF_SCOPE
from core.declines import is_decline, is_decline_sentence
from core.grounding import (
    UNSUPPORTED_MARK,
    denying_cells,
    ground,
    split_sentences,
    stated_facts,
)

HEADERS = ["Team Directory — Members", "On-call rotation — Weeks", "Office — Wi-Fi"]
SOURCES = [
    "Sophie Brandt is a Site Reliability Engineer in Berlin. Max Weber leads Platform.",
    "Week 1: Max Weber.\nWeek 2: Sophie Brandt.\nWeek 3: Lena Vogel.",
    "The guest network is Guest-5G; its password is printed on the whiteboard.",
]
ON_CALL = "Who is on call in week 2?"


def check(reply: str, question: str = ON_CALL, unsupported: str = "drop"):
    return ground(reply, question, SOURCES, HEADERS, unsupported)


@pytest.mark.parametrize(
    "reply, kind, text",
    [
        # right fact, citation kept
        (
            "Sophie Brandt is on call in week 2 [2].",
            "answer",
            "Sophie Brandt is on call in week 2 [2].",
        ),
        # right fact, wrong citation (the directory also names her): replaced
        (
            "Sophie Brandt is on call in week 2 [1].",
            "answer",
            "Sophie Brandt is on call in week 2 [2].",
        ),
        # no citation: added
        (
            "Sophie Brandt is on call in week 2.",
            "answer",
            "Sophie Brandt is on call in week 2 [2].",
        ),
        # citation after the full stop belongs to the sentence before it
        ("Week 2: Sophie Brandt. [2]", "answer", "Week 2: Sophie Brandt [2]."),
        # a name the rotation gives another week: not supported
        ("Lena Vogel is on call in week 2 [2].", "unsupported", ""),
        # a made-up sentence after a supported one is dropped
        (
            "Sophie Brandt is on call in week 2 [2]. She is also on call in week 5.",
            "answer",
            "Sophie Brandt is on call in week 2 [2].",
        ),
        ("is [2].", "citation_only", ""),
        ("[2]", "citation_only", ""),
        ("The on-call person is not mentioned in the provided sources.", "decline", OUT_OF_SCOPE),
        (OUT_OF_SCOPE, "decline", OUT_OF_SCOPE),
        (
            "[2] On-call rotation — Weeks\nWeek 1: Max Weber.\nWeek 2: Sophie Brandt.",
            "pasted_source",
            "",
        ),
        ("", "empty", ""),
    ],
)
def test_ground(reply, kind, text):
    grounding = check(reply)
    assert (grounding.kind, grounding.text) == (kind, text)


def test_pasted_source_block_is_cut_and_the_answer_kept():
    reply = "[2] On-call rotation — Weeks\nWeek 1: Max Weber.\n\nSophie Brandt is on call [2]."
    grounding = check(reply)
    assert grounding.pasted and grounding.kind == "answer"
    assert grounding.text == "Sophie Brandt is on call [2]."


def test_a_made_up_value_is_unsupported():
    grounding = check("The Wi-Fi password is none.", "What is the Wi-Fi password?")
    assert grounding.kind == "unsupported" and grounding.dropped


def test_a_value_the_source_holds_is_supported():
    grounding = check("The guest network is called Guest-5G.", "What is the guest Wi-Fi called?")
    assert grounding.kind == "answer" and grounding.text.endswith("[3].")


def test_marking_instead_of_dropping():
    reply = "Sophie Brandt is on call in week 2 [2]. She also runs the pager drill on Fridays."
    grounding = check(reply, unsupported="mark")
    assert grounding.text == (
        "Sophie Brandt is on call in week 2 [2]. "
        f"She also runs the pager drill on Fridays. {UNSUPPORTED_MARK}"
    )
    with pytest.raises(ValueError, match="drop, mark"):
        check(reply, unsupported="hide")


def test_a_decline_beside_an_answer_is_dropped():
    reply = (
        "Sophie Brandt is on call in week 2 [2]. Her phone number is not mentioned in the sources."
    )
    grounding = check(reply)
    assert (
        grounding.kind == "answer" and grounding.text == "Sophie Brandt is on call in week 2 [2]."
    )


def test_two_sources_together_support_a_joined_sentence():
    sources = [
        "Row 2 in Table 1: Week is 2, Engineer is Sophie Brandt",
        "Pager duty starts Monday 09:00.",
    ]
    grounding = ground(
        "Sophie Brandt has week 2, and pager duty starts Monday 09:00.",
        "Who has week 2 and when does it start?",
        sources,
        ["Rotation", "Rotation — Rules"],
    )
    assert grounding.kind == "answer" and grounding.text.endswith("[1][2].")


@pytest.mark.parametrize(
    "text, facts",
    [
        ("Sophie Brandt is on call in week 2 [4].", {"Sophie", "Brandt"}),
        ("Submit expenses within 30 days.", {"30"}),
        ("Reisekosten werden innerhalb von 30 Tagen erstattet.", {"30"}),
        ("It is in week 2.", set()),
    ],
)
def test_stated_facts(text, facts):
    assert stated_facts(text, ON_CALL) == facts


def test_split_sentences_keeps_versions_and_moves_trailing_citations():
    assert split_sentences("Install v2.3 first. [1] Then restart.\n- Step two") == [
        "Install v2.3 first. [1]",
        "Then restart.",
        "- Step two",
    ]


@pytest.mark.parametrize(
    "reply",
    [
        OUT_OF_SCOPE,
        "The Wi-Fi password is not mentioned in the provided sources.",
        "The expense deadline is not specified in the given context.",
        "The sources do not contain information about the week-3 on-call.",
        "The provided sources don't say who owns the budget.",
        "There is no information about parking in the sources.",
        "I could not find this in the wiki.",
        "I'm sorry, I cannot answer that from the sources. I don't know.",
        "This cannot be determined from the sources [1].",
        "Diese Information ist in den Quellen nicht enthalten.",
        "Die Quellen enthalten keine Angaben zum Passwort.",
        "Das Passwort wird in den bereitgestellten Dokumenten nicht erwähnt.",
        "Dazu kann ich in den Quellen nichts finden.",
        "Dazu steht nichts in den Quellen.",
    ],
)
def test_declines_in_other_words(reply):
    assert is_decline(reply)


@pytest.mark.parametrize(
    "reply",
    [
        "Badges are not required on Fridays [2].",
        "Sophie Brandt is on call in week 2 [2].",
        "The guest network is not the staff network; use Guest-5G [3].",
        "Urlaub muss bis Ende März genommen werden [1].",
        "Sophie Brandt is on call [2]. The pager number is not mentioned in the sources.",
        "",
    ],
)
def test_answers_are_no_declines(reply):
    assert not is_decline(reply)


def test_a_decline_sentence_inside_an_answer_is_one():
    assert is_decline_sentence("The pager number is not mentioned in the sources.")


def test_a_german_answer_over_english_sources():
    """A German question over an English wiki: the answer's own words are German, its
    technical terms and numbers are the source's; a made-up number is still dropped."""
    sources = ["BATS is enabled in the OpenEmbedded build system with the DISTRO_FEATURE variable."]
    question = "Wie wird BATS im Build aktiviert?"
    kept = ground(
        "BATS wird im OpenEmbedded Build-System über die Variable DISTRO_FEATURE aktiviert.",
        question,
        sources,
        ["Bats — Build"],
    )
    assert kept.kind == "answer" and kept.text.endswith("aktiviert [1].")
    made_up = ground("BATS wird seit Version 7 mit DISTRO_FEATURE aktiviert.", question, sources)
    assert made_up.kind == "unsupported"


def test_the_items_of_one_things_list_support_a_sentence_together():
    # A 1.5B model's reply on ConfQuestions (issue 35): the hardware list's two items, one
    # source, cited alone (it was paired with an unrelated test-matrix row before).
    sources = [
        "- Dell Optiplex 7040\n- BIOS: 1.14.0",
        "Row 3 in Table 1: OS Version is Windows 10 1803, Result is FAIL",
    ]
    reply = "The hardware used was a Dell Optiplex 7040 with BIOS version 1.14.0."
    grounding = ground(reply, "What hardware was used?", sources, ["Hardware used:", "Matrix"])
    assert (
        grounding.text == "The hardware used was a Dell Optiplex 7040 with BIOS version 1.14.0 [1]."
    )


def test_items_of_the_same_kind_are_not_joined():
    sources = ["- Week 2: Sophie Brandt\n- Week 3: Lena Vogel"]
    grounding = ground("Lena Vogel is on call in week 2.", ON_CALL, sources, ["Rotation"])
    assert grounding.kind == "unsupported"


def test_a_listed_answer_keeps_its_items_on_their_own_lines():
    sources = ["Use cases:\n- Run a client desktop.\n- Run a hardened endpoint."]
    reply = "The use cases are:\n- Run a client desktop.\n- Run a hardened endpoint."
    grounding = ground(reply, "What are the use cases?", sources, ["Architecture"])
    assert grounding.text.split("\n") == [
        "- Run a client desktop [1].",
        "- Run a hardened endpoint [1].",
    ]


def test_a_list_intro_that_restates_the_question_is_left_out():
    # A real model's intro was cited to another list whose heading held the question's words.
    sources = ["- Run a client desktop.", "Use cases of the platform:\n- Loose coupling"]
    reply = "The platform use cases include:\n- Run a client desktop."
    grounding = ground(reply, "What are the platform use cases?", sources, ["Uses", "Properties"])
    assert grounding.text == "- Run a client desktop [1]."


@pytest.mark.parametrize(
    "reply, kind",
    [
        # A real model's yes (issue 35 measurement): one sentence of a source says all of it.
        ("Yes, anyone may create new tickets.", "answer"),
        # Its made-up yes to an out-of-scope question: the question's words are in the
        # source, but no sentence of it says this.
        ("Yes, OpenXT can live-migrate a running guest VM to another host.", "unsupported"),
    ],
)
def test_a_yes_that_echoes_the_question_needs_one_sentence_saying_it(reply, kind):
    sources = [
        "Anyone may create new tickets. A ticket is Open by default.",
        "OpenXT runs each guest VM on the host. Live status is shown. Migrate old configs first.",
    ]
    question = (
        "Is anyone allowed to create new tickets?"
        if "tickets" in reply
        else "Can OpenXT live-migrate a running guest VM to another host?"
    )
    assert ground(reply, question, sources, ["Jira", "Guests"]).kind == kind


PR_RULES = (
    "Some PRs can get rejected right up front:\n"
    "- The PR is a large feature change and should have had an RFC done first.\n"
    "- The PR does not have a ticket.\n"
    "- Someone makes a specific request for documentation before the PR is considered."
)
REJECTED = "When can pull requests get rejected right up front?"


@pytest.mark.parametrize(
    "reply, question, source, kind",
    [
        # The source's words with its negation dropped (a real model's "Yes, there are set
        # guidelines…", issue 35): unsupported; kept, supported.
        (
            "There are set guidelines for getting modify access to the wikis.",
            "Are there guidelines for modify access?",
            "There is no set guideline for getting modify access to the public wikis.",
            "unsupported",
        ),
        (
            "There is no set guideline for getting modify access to the wikis.",
            "Are there guidelines for modify access?",
            "There is no set guideline for getting modify access to the public wikis.",
            "answer",
        ),
        # A negation added to the item it mostly repeats (the real model's flipped reason).
        (
            "They also should not have a ticket and someone makes a specific request for"
            " documentation before the PR is considered.",
            REJECTED,
            PR_RULES,
            "unsupported",
        ),
        # "should have had" says it was not done: the same as "have not had".
        (
            "PRs get rejected when they are a large feature change and have not had an RFC"
            " done first.",
            REJECTED,
            PR_RULES,
            "answer",
        ),
    ],
)
def test_a_sentence_agrees_in_negation_with_the_line_it_repeats(reply, question, source, kind):
    assert ground(reply, question, [source], ["Process"]).kind == kind


@pytest.mark.parametrize(
    "reply, kind",
    [
        # A count read off the names it lists needs no source that states it.
        ("3 people attended: Max Weber, Sophie Brandt and Lena Vogel.", "answer"),
        # A count the list does not bear out is a made-up number.
        ("4 people attended: Max Weber, Sophie Brandt and Lena Vogel.", "unsupported"),
    ],
)
def test_a_count_of_the_listed_items_is_checked_against_the_list(reply, kind):
    source = "Attendees: Max Weber, Sophie Brandt, Lena Vogel."
    assert ground(reply, "How many people attended?", [source], ["Call"]).kind == kind


@pytest.mark.parametrize(
    "reply, kind",
    [
        # One passing row does not say its system failed most (a real model's answer).
        ("The guest OS with the most failures was Windows 10 1803.", "unsupported"),
        ("The guest OS with the most failures was Debian 10.", "answer"),
    ],
)
def test_a_superlative_must_stand_in_the_supporting_line(reply, kind):
    sources = [
        "Row 57: OS Version is Windows 10 1803, Result is PASS",
        "Summary: the most failures were seen with Debian 10.",
    ]
    question = "Which guest OS had the most failures?"
    assert ground(reply, question, sources, ["Matrix", "Summary"]).kind == kind


def test_a_quote_framed_as_the_answer_needs_a_source_about_the_question():
    # A real model framed another paragraph as the answer: the quote is true, the frame not.
    source = (
        "Derivative Works may include Platform Components. "
        "Derivative Works are governed independently."
    )
    reply = (
        "The platform properties concerning verification are listed in the source, which"
        ' states: "Derivative Works may include Platform Components. Derivative Works are'
        ' governed independently."'
    )
    question = "What are the platform properties concerning verification?"
    grounding = ground(reply, question, [source], ["Charter"])
    assert grounding.kind == "unsupported" and len(grounding.dropped) == 2
    about = "Platform properties concerning verification: " + source
    assert ground(reply, question, [about], ["Charter"]).kind == "answer"


BOARD_HEADERS = [
    "Governance — Decision Process",
    "Charter draft — Consensus Building",
]
BOARD_SOURCES = [
    "Action is initiated by creating a JIRA ticket that describes the technical issue. "
    "Any member can elect to abstain from voting.",
    "Action by the Governance Board is initiated by any member of the community creating a"
    " JIRA ticket that describes the issue.",
]


@pytest.mark.parametrize(
    "reply, kind",
    [
        # "any member" stands in another line of the source than the one the claim is from
        ("Action is initiated by any member creating a JIRA ticket [1].", "unsupported"),
        ("Action is initiated by creating a JIRA ticket [1].", "answer"),
    ],
)
def test_a_quantifier_must_stand_in_the_line_the_claim_is_read_from(reply, kind):
    question = "How is action by the board initiated?"
    assert ground(reply, question, BOARD_SOURCES[:1], BOARD_HEADERS[:1]).kind == kind


def test_a_sentence_repeating_the_questions_names_needs_a_source_about_them():
    # A real model's sentence (issue 35): the draft charter's line reads the same, but it is
    # about the Governance Board, not the Technical Advisory Board asked about.
    reply = (
        "Actions by the Technical Advisory Board are initiated by any member of the community"
        " creating a JIRA ticket."
    )
    question = "How are actions by the Technical Advisory Board initiated?"
    assert ground(reply, question, BOARD_SOURCES, BOARD_HEADERS).kind == "unsupported"
    about = [BOARD_SOURCES[1].replace("Governance Board", "Technical Advisory Board")]
    assert ground(reply, question, about, BOARD_HEADERS[1:]).kind == "answer"


@pytest.mark.parametrize(
    "line, kind",
    [
        # a row of the EFI table does not say the machine was tested with legacy as well
        ("Row 3 in Table 5: Platform is Dell Optiplex 7050, TPM is 2.0, Result is Pass", None),
        ("Tested with legacy and EFI: Dell Optiplex 7050.", "answer"),
        ("Both boot modes were tested on the Dell Optiplex 7050.", "answer"),
    ],
)
def test_both_a_and_b_needs_a_line_holding_a_and_b(line, kind):
    reply = "The machine tested with both legacy and EFI is the Dell Optiplex 7050 [1]."
    question = "Which machine was tested with both legacy and EFI?"
    grounding = ground(reply, question, [line], ["Measurement Test — EFI"])
    assert grounding.kind == (kind or "unsupported")


def test_all_is_not_read_from_one_row():
    rows = "Row 1 in Table 1: Test is GPU pass through, OS is Windows 10, Result is Pass"
    question = "Did the GPU pass through tests pass on Windows 10?"
    reply = "Yes, all GPU pass through tests on Windows 10 passed [1]."
    assert ground(reply, question, [rows], ["Test Matrix"]).kind == "unsupported"
    said = "All GPU pass through tests on Windows 10 passed."
    assert ground(reply, question, [said], ["Test Matrix"]).kind == "answer"


MATRIX = "Stable-9 rc1 Test Matrix — Results"
MATRIX_ROWS = [
    "Row 9 in Table 1: Test Desc is Configure guest VM, Result is PWE, and Notes/Test Data is"
    " Power: FAIL - OXT-1591 Info: PWE - Many issues",
    "Row 10 in Table 1: Test Desc is Network setups, Result is PASS, and Notes/Test Data is"
    " Did not fail once",
]


@pytest.mark.parametrize(
    "text, cells",
    [
        # a notes cell says what the denial denies: contradicted, whatever column it read
        (
            "No: none of the rows in Stable-9 rc1 Test Matrix failed (Result: PWE and PASS).",
            ["Notes/Test Data is Power: FAIL - OXT-1591 Info: PWE - Many issues"],
        ),
        (
            "None of the tested configurations failed [1].",
            ["Notes/Test Data is Power: FAIL - OXT-1591 Info: PWE - Many issues"],
        ),
        # the rows found, counted, are the same subject (issue 35), English and German
        (
            "No: none of the 2 rows found in Stable-9 rc1 Test Matrix failed (Result: PWE).",
            ["Notes/Test Data is Power: FAIL - OXT-1591 Info: PWE - Many issues"],
        ),
        (
            "Nein: keine der 2 gefundenen Zeilen in Stable-9 rc1 Test Matrix ist fail.",
            ["Notes/Test Data is Power: FAIL - OXT-1591 Info: PWE - Many issues"],
        ),
        # what no cell says ("Did not fail" is negated); the values in brackets it read
        ("No: none of the rows was skipped (Result: PWE and PASS).", []),
        # the denial says the cell itself
        (
            'No: none of the rows failed by its Result, but a notes cell says "Power: FAIL" [1].',
            [],
        ),
        # no denial of every row
        ("The Result of row 10 is PASS [2].", []),
    ],
)
def test_a_denial_of_every_row_is_contradicted_by_any_cell_saying_it(text, cells):
    sources = [f"{MATRIX}\n{row}" for row in MATRIX_ROWS]
    assert denying_cells(text, sources) == cells


def test_a_model_denial_is_not_supported_where_a_row_of_the_page_contradicts_it():
    question = "Did any tested configuration fail the Stable-9 rc1 test?"
    reply = "No, none of the configurations failed [2]."
    summary = "Summary: none of the configurations failed."
    grounding = ground(reply, question, [MATRIX_ROWS[0], summary], [MATRIX, MATRIX])
    assert grounding.kind == "unsupported"
    other_page = ground(reply, question, [MATRIX_ROWS[0], summary], ["Stable-8 — Results", MATRIX])
    assert other_page.kind == "answer" and other_page.sentences[0].supported_by == [2]
