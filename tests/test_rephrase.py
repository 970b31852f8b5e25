"""Question completion: the offline completer's rules and the LLM completer against a real
local chat-completions server."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from core.answer import OUT_OF_SCOPE
from core.followup import following_up
from core.llm import OpenAILLM
from core.questions import is_followup
from core.rephrase import (
    Exchange,
    LLMCompleter,
    OfflineCompleter,
    clean_rewrite,
    make_completer,
    rephrase_messages,
    salient_terms,
)
from core.settings import Settings
from tests.fakes.openai_server import FakeOpenAI, Reply


@pytest.mark.parametrize(
    "text, terms",
    [
        ("What does BATS stand for?", ["BATS", "stand"]),
        ("And what about TPM?", ["TPM"]),
        ("Und was ist mit TPM?", ["TPM"]),
        ("Wofür steht das?", ["steht"]),
        (
            "Which OpenXT 9.0.2 tests did Dell 9010 pass?",
            ["OpenXT", "9.0.2", "tests", "Dell", "9010", "pass"],
        ),
        ("Was war der Grund dafür?", ["Grund"]),
        ("OXT-1654 and oxt-1654", ["OXT-1654"]),
    ],
)
def test_salient_terms(text, terms):
    assert salient_terms(text) == terms


def ex(question: str, completed: str | None = None, answer: str = "") -> Exchange:
    """A turn that continued its topic."""
    return Exchange(question, completed or question, answer, topic_start=False)


def start(question: str, answer: str = "") -> Exchange:
    """A turn that began a topic."""
    return Exchange(question, question, answer, topic_start=True)


def test_offline_first_question_is_kept():
    completion = OfflineCompleter().complete("  What does BATS stand for? ", [])
    assert completion.question == completion.query == "What does BATS stand for?"
    assert completion.prompt_question == "What does BATS stand for?"
    assert completion.messages is None and completion.clarification == ""
    assert completion.notes["topic_start"] is True


def test_offline_follow_up_carries_earlier_questions_into_query_and_prompt_only():
    history = [start("What was the BIOS of the Dell Optiplex 7040 in the OpenXT 9.0 tests?")]
    completion = OfflineCompleter().complete("And what about TPM?", history)
    assert completion.query == (
        "And what about TPM? What was the BIOS of the Dell Optiplex 7040 in the OpenXT 9.0 tests?"
    )
    # shown: a readable question, never a keyword list
    assert completion.question == (
        "And what about TPM? — following up on “What was the BIOS of the Dell Optiplex 7040"
        " in the OpenXT 9.0 tests?”"
    )
    assert "context" not in completion.question
    # the answer prompt carries the topic for the offline answerer
    assert completion.prompt.startswith("And what about TPM? (context: BIOS, Dell, Optiplex")
    assert "7040" in completion.prompt and "TPM" not in completion.prompt.split("(")[1]
    assert is_followup(completion.prompt) and not is_followup(completion.question)
    assert completion.notes["carried_turns"] == 1


def test_offline_caps_history_and_carries_the_question_followed():
    history = [start("Tell me about Alpha?")] + [ex(f"Question about topic{i}?") for i in range(10)]
    completer = OfflineCompleter(max_turns=3, max_terms=4)
    completion = completer.complete("And then?", history)
    assert (
        completion.query
        == "And then? Question about topic7? Question about topic8? Question about topic9?"
    )
    # the prompt carries the question it follows, not the older turns' words
    assert completion.notes["carried"] == ["Question", "topic9"]


def test_a_thin_follow_up_after_a_thin_one_carries_the_subject_they_follow():
    first = "How many people does Robot Firmware have?"
    second = "which Slack channel do they use?"
    history = [
        start(first, "The People for Robot Firmware is 9 [1]."),
        ex(second, following_up(second, first, "en"), "#team-firmware [1]"),
    ]
    completion = OfflineCompleter().complete("and their Jira component?", history)
    # the turn before names no team: the question it followed does, and goes first
    assert completion.notes["carried"][:3] == ["people", "Robot", "Firmware"]
    assert "Slack" in completion.notes["carried"]


def test_she_is_the_person_answered_by_a_who_question_shown_following_up():
    first = "What is the meal allowance in Bristol?"
    asked = "Who is the CEO?"
    history = [
        start(first, "The meal allowance in Bristol is £35 [1]."),
        ex(asked, following_up(asked, first, "en"), "The CEO is Maren Lindqvist (Berlin) [1]."),
    ]
    completion = OfflineCompleter().complete("where does she work?", history)
    assert completion.question == "where does Maren Lindqvist work?"
    assert completion.notes["carried"] == []  # the person, wherever the wiki says it


def test_a_followup_that_says_what_it_asks_carries_only_the_topics_page():
    # the older turns' words would pull the answer to the rows they asked about
    history = [
        Exchange(
            "Which BIOS did the Optiplex 7060 have in the OpenXT 9.0 measurement tests?",
            "Which BIOS did the Optiplex 7060 have in the OpenXT 9.0 measurement tests?",
            "BIOS: 1.3.4 [1]",
            True,
            ("OpenXT 9.0 Measurement Test",),
        )
    ]
    question = "What color does the XT shield become after a successful installation?"
    completion = OfflineCompleter().complete(question, history)
    assert completion.notes["carried"] == ["OpenXT", "9.0", "Measurement", "Test"]
    assert completion.prompt == f"{question} (context: OpenXT, 9.0, Measurement, Test)"
    # German
    history = [
        Exchange(
            "Welches BIOS hatte der Optiplex 7060?",
            "Welches BIOS hatte der Optiplex 7060?",
            "BIOS: 1.3.4 [1]",
            True,
            ("OpenXT 9.0 Measurement Test",),
        )
    ]
    completion = OfflineCompleter().complete(
        "Welche Farbe bekommt das XT Shield nach einer erfolgreichen Installation?", history
    )
    assert completion.notes["carried"] == ["OpenXT", "9.0", "Measurement", "Test"]


def test_offline_topic_starts_at_last_turn_that_began_one():
    history = [
        start("What is BATS?"),
        ex("Who wrote it?"),
        start("Which TPM had the Optiplex?"),
        ex("And the BIOS?"),
    ]
    assert [e.question for e in OfflineCompleter().topic(history)] == [
        "Which TPM had the Optiplex?",
        "And the BIOS?",
    ]
    # turns stored without the note: a turn whose completed question is its question began one
    old = [Exchange("What is BATS?", "What is BATS?"), Exchange("Who?", "Who? (context: BATS)")]
    assert len(OfflineCompleter().topic(old)) == 2


@dataclass
class _Evidence:
    title: str
    text: str = ""
    page_id: str = ""


@dataclass
class _Result:
    evidence: _Evidence


def search_returning(title: str):
    calls = []

    def search(query: str):
        calls.append(query)
        return [_Result(_Evidence(title))]

    search.calls = calls
    return search


def test_offline_new_topic_when_question_names_another_page():
    history = [start("What did the measured launch tests cover?")]
    search = search_returning("Forward Seal Test Procedures")
    completion = OfflineCompleter().complete(
        "What were the preconditions in Forward Seal Test Procedures?", history, search
    )
    assert (
        completion.question
        == completion.query
        == ("What were the preconditions in Forward Seal Test Procedures?")
    )
    assert completion.notes["new_topic"] is True and completion.notes["topic_start"] is True
    assert search.calls == ["What were the preconditions in Forward Seal Test Procedures?"]


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("By the way, what is TBOOT?", "What is TBOOT?"),
        ("Übrigens, was ist TBOOT eigentlich?", "Was ist TBOOT eigentlich?"),
    ],
)
def test_an_aside_starts_a_new_topic_searched_with_the_topics_first_question(question, asked):
    first = "Which CPUs were used in the TXT Testing TBOOT 1.8.3?"
    history = [start(first), ex("And which memory did the HP have?")]
    search = search_returning("TXT Testing TBOOT 1.8.3")  # the topic's page, alone
    completion = OfflineCompleter().complete(question, history, search)
    assert completion.question == question  # shown as typed
    assert completion.prompt_question == asked
    assert completion.query == f"{asked} {first}"  # not the thread's later turns
    assert completion.notes["topic_start"] is True and completion.notes["aside"] is True
    # the turn after it follows the aside, not the thread it left
    aside_turn = Exchange(question, question, "TBOOT is ...", topic_start=True)
    after = OfflineCompleter().complete("Who wrote it?", [*history, aside_turn])
    assert first not in after.query and question in after.query


def test_an_aside_after_a_declined_question_is_searched_alone():
    history = [start("What is the canteen menu today?", OUT_OF_SCOPE)]
    completion = OfflineCompleter().complete("By the way, what is TBOOT?", history)
    assert completion.query == "What is TBOOT?"


def test_an_aside_that_points_back_follows_the_topic():
    history = [start("Who wrote the TBOOT notes?")]
    completion = OfflineCompleter().complete("By the way, when did he write them?", history)
    assert completion.notes["topic_start"] is False
    assert "Who wrote the TBOOT notes?" in completion.query


def test_offline_same_topic_when_title_words_were_already_named():
    history = [start("What does BATS stand for?")]
    search = search_returning("Bats: Bash Automated Testing System")
    completion = OfflineCompleter().complete("Is BATS compliant with TAP?", history, search)
    assert completion.notes["new_topic"] is False
    assert "What does BATS stand for?" in completion.query


def test_offline_new_topic_when_question_names_a_sibling_release_or_date():
    history = [
        start("What was the hardware in the Stable-9 rc2 Test Matrix?"),
        ex("Was a performance test run for these configs?"),
    ]
    search = search_returning("Stable-9 rc2 Test Matrix results")  # the old page, alone
    completion = OfflineCompleter().complete(
        "Which guest VMs were used in the rc1 Test results?", history, search
    )
    assert completion.query == "Which guest VMs were used in the rc1 Test results?"
    assert completion.notes["new_topic"] is True and completion.notes["switched"] == ["rc1"]
    call = "Who attended the call on July 23, 2015?"
    meeting = [start(call)]
    completion = OfflineCompleter().complete("And on August 20, 2015?", meeting)
    assert completion.notes["switched"] == ["2015-08-20"]
    # a date written with numbers is the same date, or another one
    completion = OfflineCompleter().complete("Und am 20.8.15?", meeting)
    assert completion.notes["switched"] == ["2015-08-20"]
    completion = OfflineCompleter().complete("Wer war am 23.7.15 dabei?", meeting)
    assert "switched" not in completion.notes


def test_a_question_on_a_sibling_release_or_date_searches_with_the_topic_page_title():
    def cited(question: str, title: str, began: bool) -> Exchange:
        return Exchange(question, question, "an answer [1]", began, (title,), ("1",))

    matrix = [
        cited("What was the hardware in rc2?", "Stable-9 rc2 Test Matrix (results)", True),
        cited("Was a performance test run for these configs?", "Guest VM notes", False),
    ]
    question = "Which guest VMs were used in the rc1 Test results?"
    completion = OfflineCompleter().complete(question, matrix)
    # shown as asked; searched with the title that named rc2, without it
    assert completion.question == question
    assert completion.query == f"{question} Stable-9 Test Matrix (results)"
    assert completion.notes["sibling"] == "Stable-9 Test Matrix (results)"
    calls = [cited("Who attended the call on 23.7.15?", "Community Call - July 23 2015", True)]
    completion = OfflineCompleter().complete("Wie viele nahmen am 20.8.15 teil?", calls)
    assert completion.query == "Wie viele nahmen am 20.8.15 teil? Community Call -"
    # a follow-up that changes the date: the title's date goes with the replaced one
    completion = OfflineCompleter().complete("Und am 20.8.15?", calls)
    assert completion.notes["substituted"] == [["23.7.15", "20.8.15"]]
    assert "20.8.15" in completion.query and "July" not in completion.query
    # no cited title names a date or release candidate: the question is searched alone
    plain = [cited("Who attended the call on July 23, 2015?", "Community Calls", True)]
    completion = OfflineCompleter().complete("And on August 20, 2015?", plain)
    assert completion.query == "And on August 20, 2015?" and "sibling" not in completion.notes


@pytest.mark.parametrize(
    "question",
    [
        "Did the rc2 build pass?",  # the same release candidate
        "Which TPM 2.0 tests failed?",  # versions of different things are not siblings
        "Which BIOS did it have?",  # nothing named
    ],
)
def test_offline_same_topic_without_a_sibling_entity(question):
    history = [start("What was the hardware in the Stable-9 rc2 Test Matrix with Debian 9.9?")]
    completion = OfflineCompleter().complete(question, history)
    assert completion.notes.get("new_topic", False) is False
    assert "Stable-9 rc2 Test Matrix" in completion.query


def test_make_completer(tmp_path):
    settings = Settings.load(environ={"CONFBOT_DATA_DIR": str(tmp_path)})
    assert isinstance(make_completer(settings, None), OfflineCompleter)
    online = settings.replace(llm_base_url="http://127.0.0.1:9/v1")
    assert isinstance(make_completer(online, object()), LLMCompleter)


# --------------------------------------------------------------------------- LLM completer
HISTORY = [
    Exchange("Why was BATS used for OpenXT?", "Why was BATS used for OpenXT?", "It is simple [1].")
]


def test_rephrase_messages_hold_history_and_question():
    system, user = rephrase_messages("What does it stand for?", HISTORY)
    assert "self-contained" in system["content"]
    assert "Q1: Why was BATS used for OpenXT?\nA1: It is simple [1]." in user["content"]
    assert "Latest question: What does it stand for?" in user["content"]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("What does BATS stand for?", "What does BATS stand for?"),
        ("Self-contained question: What does BATS stand for?", "What does BATS stand for?"),
        ('"What does BATS stand for?"\nBecause it is referenced.', "What does BATS stand for?"),
        ("", None),
        ("   \n  ", None),
        (OUT_OF_SCOPE, None),
        ("x" * 2000, None),
    ],
)
def test_clean_rewrite(text, expected):
    assert clean_rewrite(text, "What does it stand for?") == expected


@pytest.fixture
def server():
    with FakeOpenAI() as fake:
        yield fake


def completer_for(server: FakeOpenAI) -> LLMCompleter:
    return LLMCompleter(OpenAILLM(server.base_url, "fake-model", "k", max_retries=0))


def test_llm_completer_uses_the_rewrite(server):
    server.push("What does BATS stand for?")
    completion = completer_for(server).complete("What does it stand for?", HISTORY)
    assert completion.question == completion.query == "What does BATS stand for?"
    (request,) = server.chat_requests
    assert request.json["messages"] == completion.messages
    assert request.json["temperature"] == 0.0


def test_llm_completer_skips_the_model_without_history(server):
    completion = completer_for(server).complete("What is BATS?", [])
    assert completion.question == "What is BATS?" and server.chat_requests == []


def test_llm_completer_keeps_question_on_junk_or_failure(server):
    server.push("", Reply.error(500), Reply.error(400))
    completer = completer_for(server)
    for _ in range(3):
        completion = completer.complete("What does it stand for?", HISTORY)
        assert completion.question == completion.query == "What does it stand for?"
    assert len(server.chat_requests) == 3


@pytest.mark.parametrize(
    "question, changed",
    [
        ("and in week 3?", True),
        ("Who is the secondary in week 3?", True),
        ("Who is the primary in week 3?", False),  # no row says primary is a role: kept whole
        ("und gibt es festgelegte Regeln für den Änderungszugriff in Woche 3?", False),
    ],
)
def test_offline_changes_one_thing_only_when_the_follow_up_says_little_else(question, changed):
    anchor = "Who is the secondary on-call for the Payments team in week 2?"
    completion = OfflineCompleter().complete(question, [start(anchor)])
    assert ("substituted" in completion.notes) is changed
    if changed:
        assert completion.question.endswith("for the Payments team in week 3?")
        assert completion.query.endswith("week 3") and "week 2" not in completion.query
        # the changed question is what the answerer reads: the one it follows would bring
        # back "week 2", and a span naming both weeks would outscore week 3's own row
        assert completion.prompt_question == completion.question


def test_a_followup_that_says_what_it_asks_searches_with_the_topics_first_and_last_turns():
    history = [
        start("What was the dial-in number for the community call on 23.7.15?"),
        ex("How many people attended?"),
        ex("How many were from the AIS team?"),
    ]
    completion = OfflineCompleter().complete("What did Eric have on the agenda?", history)
    # the first names the topic, the latest keeps to it; the middle one's rows stay out
    assert completion.query == (
        "What did Eric have on the agenda? What was the dial-in number for the community"
        " call on 23.7.15? How many were from the AIS team?"
    )
    # a topic longer than the turns carried still searches with its first question
    longer = [
        *history,
        *(ex(f"Action item for person {n}?") for n in range(OfflineCompleter().max_turns)),
    ]
    completion = OfflineCompleter().complete("What did Eric have on the agenda?", longer)
    assert "community call on 23.7.15?" in completion.query
    assert "How many people attended?" not in completion.query
    # German; a follow-up that needs the turn before searches with the whole topic
    completion = OfflineCompleter().complete("Und wer noch?", history)
    assert "How many people attended?" in completion.query


def test_the_topics_page_is_the_latest_two_cited_pages():
    # one answer from a wrong page does not take the topic with it
    def cited(question: str, title: str) -> Exchange:
        return Exchange(question, question, "an answer [1]", False, (title,))

    history = [
        cited("Is there a git repository for the website?", "OpenXT Website"),
        cited("Who may edit the wiki pages?", "Confluence Wiki Access"),
        cited("Can anyone read them?", "Confluence Wiki Access"),
    ]
    completion = OfflineCompleter().complete(
        "What is the modification or contribution policy of the website?", history
    )
    assert completion.notes["carried"] == ["Confluence", "Wiki", "Access", "OpenXT"]


def test_a_substitution_searches_with_the_topics_page_too():
    # the question it changes was itself a follow-up that named little of its topic
    history = [
        Exchange(
            "What was the dial-in number for the meeting on 23.7.15?",
            "What was the dial-in number for the meeting on 23.7.15?",
            "Dial-in number: 857-216-2410 [1]",
            True,
            ("Community Call - July 23 2015",),
        ),
        Exchange(
            "How many were from the AIS team?",
            "How many were from the AIS team?",
            "AIS: 7 people [1]",
            False,
            ("Community Call - July 23 2015",),
        ),
    ]
    completion = OfflineCompleter().complete("And BAH?", history)
    assert completion.question == "How many were from the BAH team?"
    assert completion.query.split()[-5:] == ["Community", "Call", "July", "23", "2015"]
    assert "AIS" not in completion.query


def test_a_resolved_reference_carries_the_topics_page_not_the_question_it_follows():
    history = [
        Exchange(
            "What is a known issue with the upgrade?",
            "What is a known issue with the upgrade?",
            "Re-addition of DRTM [1]",
            True,
            ("OpenXT 9.0 Measurement Test",),
        ),
        ex("What color does the XT shield become?"),
    ]
    completion = OfflineCompleter().complete("Where is it located?", history)
    assert completion.question == "Where is the XT shield located?"
    assert completion.notes["carried"] == ["OpenXT", "9.0", "Measurement", "Test"]
    # it searches as a question that says what it asks: with the topic's first and last turns
    assert completion.query == (
        "Where is the XT shield located? What is a known issue with the upgrade?"
        " What color does the XT shield become?"
    )


@pytest.mark.parametrize(
    "first, followup",
    [
        ("What did Eric have on the agenda?", "Action item for Rich?"),
        ("Was hatte Eric auf der Tagesordnung?", "Aktionspunkt für Rich?"),
    ],
)
def test_offline_follow_up_searches_its_own_words_within_the_topic_pages(first, followup):
    topic = [
        Exchange(first, first, "Eric: Update on Linux 3.18 [1]", True, ("Call",), ("11",)),
        Exchange("And Kevin?", "And Kevin?", "Kevin: RFCs [1]", False, ("Old call",), ("12",)),
    ]
    completion = OfflineCompleter().complete(followup, topic)
    assert completion.focus is not None
    assert completion.focus.query == followup
    assert completion.focus.pages == ("12", "11")  # the latest answer's page first


def test_offline_new_topic_and_first_question_search_no_topic_pages():
    completion = OfflineCompleter().complete("What is BATS?", [])
    assert completion.focus is None


@pytest.mark.parametrize(
    "earlier, followup, expected",
    [
        (
            "Which Ubuntu versions were used in these GPU tests?",
            "And Xen?",
            "Which Xen versions were used in these GPU tests?",
        ),
        # German capitalizes nouns: the name is told from "Versionen" by the wiki's text
        (
            "Welche Ubuntu Versionen wurden für diese GPU Tests verwendet?",
            "Und Xen?",
            "Welche Xen Versionen wurden für diese GPU Tests verwendet?",
        ),
    ],
)
def test_a_name_changes_the_question_shown_following_up_on_another(earlier, followup, expected):
    # the earlier question pointed back ("these GPU tests") and was shown following up on
    # the one before; it still says what it asked, and "And Xen?" changes it
    first = "Who should have write access for the table?"
    history = [
        start(first, "All developers should have write access [1]"),
        Exchange(
            earlier,
            following_up(earlier, first, "de" if "Welche" in earlier else "en"),
            "Ubuntu 3.11 Kernel [1]; Ubuntu 3.13 Kernel [2]",
            False,
        ),
    ]
    completion = OfflineCompleter().complete(followup, history)
    assert completion.question == expected
    assert completion.notes["substituted"] == [["Ubuntu", "Xen"]]


def _rows_search(rows_by_words: dict[str, list[str]]):
    """A search whose results are the rows of the first entry all of whose words the query
    holds (an empty entry matches any query)."""
    calls = []

    def search(query: str):
        calls.append(query)
        lowered = query.lower()
        for words, rows in rows_by_words.items():
            if all(w in lowered for w in words.split()):
                return [_Result(_Evidence("Test Matrix", row, "7")) for row in rows]
        return []

    search.calls = calls
    return search


MATRIX_HEADER = "Table 1: Test Desc, Platform, Host Boot, Result"
UPGRADE_ROW = (
    "Row 29 in Table 1: Test Desc is Upgrade to self., Platform is Dell Optiplex 7040,"
    " Host Boot is Legacy, and Result is PASS"
)
SEAL_ROW = (
    "Row 26 in Table 1: Test Desc is Forward seal works., Platform is Dell Latitude 7490,"
    " Host Boot is UEFI, and Result is PASS"
)


@pytest.mark.parametrize(
    "earlier, followup, expected",
    [
        (
            "Which Dell platform was used in the upgrade to self tests?",
            "And what about forward seal works?",
            "Which Dell platform was used in the forward seal works tests?",
        ),
        (
            "Welche Dell Plattform wurde in den 'Upgrade to self' Tests genutzt?",
            "Und was ist mit den 'forward seal works'?",
            "Welche Dell Plattform wurde in den 'forward seal works' Tests genutzt?",
        ),
    ],
)
def test_an_elliptical_followup_finds_the_row_it_names_with_the_question_it_follows(
    earlier, followup, expected
):
    # alone it finds a page of its own name; the question it follows finds its own row;
    # only both together find the other row of the same column, which makes the change
    search = _rows_search(
        {
            "forward seal upgrade": [f"{MATRIX_HEADER}\n{SEAL_ROW}", UPGRADE_ROW],
            "forward seal": ["Forward Seal Record: /boot/system/tpm/forward_pcr.lst"],
            "upgrade": [UPGRADE_ROW],
        }
    )
    history = [start(earlier, "The Platform for Upgrade to self is Dell Optiplex 7040 [1].")]
    completion = OfflineCompleter().complete(followup, history, search)
    assert completion.question == expected
    assert completion.notes["topic_start"] is False
    assert f"{followup} {earlier}" in search.calls


def test_an_elliptical_followup_whose_row_is_known_searches_no_more():
    # the question it follows already retrieves both rows: no third search
    search = _rows_search({"": [f"{MATRIX_HEADER}\n{SEAL_ROW}", UPGRADE_ROW]})
    earlier = "Which Dell platform was used in the upgrade to self tests?"
    completion = OfflineCompleter().complete(
        "And what about forward seal works?", [start(earlier)], search
    )
    assert completion.question == "Which Dell platform was used in the forward seal works tests?"
    assert search.calls == ["And what about forward seal works?", earlier]


@dataclass
class _Section:
    title: str
    text: str
    heading: str = ""
    page_id: str = ""


def test_a_question_keeps_its_topic_when_the_topic_page_says_what_it_finds_alone():
    """The topic's page text near a question is what the question finds with the topic's
    latest question and what it finds alone: the USB steps of the topic's page, found alone
    below another page headed "Generic USB", make "USB" no subject of its own."""
    topic_page = "Section 4: VM Installation"
    history = [
        Exchange(
            "What .NET version is needed for the tools?",
            "What .NET version is needed for the tools?",
            ".NET 4.0 [1]",
            topic_start=True,
            titles=(topic_page,),
        )
    ]
    question = "How to add and test a USB device?"
    other = _Section("Regression testing", "Assign a USB device with the button.", "Generic USB")
    usb_step = _Section(topic_page, "4.7) Add a USB device to the VM and test it.")
    net_step = _Section(topic_page, "4.2) Install the tools; .NET 4.0 is needed.")

    def search(query: str):
        if query == question:
            return [_Result(other), _Result(usb_step)]
        return [_Result(net_step)]

    completion = OfflineCompleter().complete(question, history, search)
    assert completion.notes["new_topic"] is False
    assert not completion.notes["topic_start"]

    def search_elsewhere(query: str):  # the topic's page says nothing of USB
        return [_Result(other), _Result(net_step)] if query == question else [_Result(net_step)]

    completion = OfflineCompleter().complete(question, history, search_elsewhere)
    assert completion.notes["new_topic"] is True and "USB" in completion.notes["unseen"]


def test_a_question_that_says_what_it_asks_after_declined_turns_is_asked_on_its_own():
    """The declined turns name no page to follow: a question of its own is shown and
    answered as asked (no follow-up context), its search still near the topic's words."""
    declined = "The desired information cannot be found in the retrieved pool of evidence."
    history = [start("Wo findet dieses Jahr die Weihnachtsfeier statt?", declined)]
    completion = OfflineCompleter().complete("Can I take a taxi at 23:00?", history)
    assert completion.question == completion.prompt == "Can I take a taxi at 23:00?"
    assert completion.notes["after_declined"] is True
    assert "Weihnachtsfeier" in completion.query
    # one that needs the turn before still follows it
    thin = OfflineCompleter().complete("and in week 3?", history)
    assert "after_declined" not in thin.notes
    # after an answered turn a question is a follow-up as before
    answered = [start("Can I take a taxi at 23:00?", "Yes: Taxis are fine after 22:00 [1]")]
    follow = OfflineCompleter().complete("What about trains?", answered)
    assert "after_declined" not in follow.notes


def test_a_pronoun_for_the_answered_name_carries_no_page():
    # "she" is the person the last answer named: asked about wherever the wiki says it
    history = [
        Exchange(
            "Who is the VP Engineering?",
            "Who is the VP Engineering?",
            "The VP Engineering is Karin Vogel [1].",
            True,
            ("On-Call Rotation and Escalation",),
        )
    ]
    completion = OfflineCompleter().complete("where is she based?", history)
    assert completion.question == "where is Karin Vogel based?"
    assert completion.notes["carried"] == []
    assert completion.prompt == (
        "where is Karin Vogel based? (following up on: Who is the VP Engineering?)"
    )
