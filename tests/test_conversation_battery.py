"""Conversations that hold, on the sample wiki (bot/sample_wiki), through the real Assistant
with the default embedder, the offline completer and the offline answerer: follow-ups that
change one thing (week, role, team, city, country, column), references back ("that team",
"there"), topics that end, clarifications with no topic, and "New conversation".

Each turn asserts the completed question shown to the user (`SAME`: the question as typed)
and facts the answer must hold (a name or value of the cited row, checked against the
pages), never the wording of the reply. Where the offline answerer picks another row of
the right table, the turn asserts the page it cited instead (`page=`)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from core.assistant import Assistant, ConversationKey
from core.questions import is_followup

SAME = "="
ROTATION = "On-Call Rotation and Escalation"
OFFICES = "Offices and Public Holidays"


@dataclass(frozen=True)
class T:
    """One turn: the question, the completed question expected (`SAME`: unchanged), facts
    the answer holds, the page it cites, or the clarifying reply expected."""

    question: str
    completed: str = SAME
    facts: tuple[str, ...] = ()
    page: str = ""
    clarify: str = ""
    new_topic: bool | None = None


NEW = T("/new")

CONVERSATIONS = {
    "readme-rotation": [
        T(
            "Who is the secondary on-call for the Payments team in week 2?",
            facts=("Sophie Brandt",),
        ),
        T(
            "and in week 3?",
            "Who is the secondary on-call for the Payments team in week 3?",
            ("Chloe Whitfield",),
        ),
        T(
            "and the primary?",
            "Who is the primary on-call for the Payments team in week 3?",
            page=ROTATION,
        ),
        T(
            "and for Fleet Platform?",
            "Who is the primary on-call for the Fleet Platform team in week 3?",
            page=ROTATION,
        ),
        T("Who leads that team?", "Who leads the Fleet Platform team?", ("Priya Natarajan",)),
        # the week is taken from the latest question that names one
        T(
            "and in week 4?",
            "Who is the primary on-call for the Fleet Platform team in week 4?",
            page=ROTATION,
        ),
    ],
    # a question that says what it asks, on the topic's page, asks for its own row: the
    # earlier question's team and week do not pull their rows into its search
    "own-row-in-the-thread": [
        T("Who is on call for Robot Firmware in week 3?", facts=("Aisha Mensah",)),
        T(
            "Who is the secondary on-call for the Payments team in week 2?",
            facts=("Sophie Brandt",),
        ),
    ],
    # a pronoun points at what the earlier answer named ("it": the team that owns tern-os),
    # at a person answered ("she"), or at the team the earlier question named ("their")
    "pronouns-take-the-answer": [
        T("Which team owns the tern-os component?", facts=("Robot Firmware",)),
        T("who leads it?", "who leads Robot Firmware?", ("Lena Hoffmann",)),
        NEW,
        T("Who is the VP Engineering?", facts=("Karin Vogel",)),
        T("where is she based?", "where is Karin Vogel based?", ("Berlin",)),
        NEW,
        T("Who is on call for the Payments team in week 2?", page=ROTATION),
        T("what's their slack channel?", "what's the Payments team's slack channel?"),
        NEW,
        T("Welches Team ist für tern-os zuständig?", facts=("Robot Firmware",)),
        T("wer leitet es?", "wer leitet Robot Firmware?", ("Lena Hoffmann",)),
        NEW,
        # the name answered with where it works in parentheses
        T("Who is the CEO?", facts=("Maren Lindqvist",)),
        T("where does she work?", "where does Maren Lindqvist work?", ("Berlin",)),
    ],
    # a thin follow-up after a thin one still asks about the team the topic named
    "thin-after-thin": [
        T("How many people does Robot Firmware have?", facts=("9",)),
        T(
            "which Slack channel do they use?",
            "which Slack channel do they use? — following up on “How many people does Robot"
            " Firmware have?”",
            ("#team-firmware",),
        ),
        T(
            "and their Jira component?",
            "and their Jira component? — following up on “How many people does Robot"
            " Firmware have?”",
            ("tern-os",),
        ),
    ],
    "firmware-rotation": [
        T("Who is the primary on-call for Robot Firmware in week 1?", page=ROTATION),
        T(
            "and in week 2?",
            "Who is the primary on-call for Robot Firmware in week 2?",
            ("Tom Okafor",),
        ),
        T(
            "and the secondary?",
            "Who is the secondary on-call for Robot Firmware in week 2?",
            page=ROTATION,
        ),
        T(
            "and in week 4?",
            "Who is the secondary on-call for Robot Firmware in week 4?",
            page=ROTATION,
        ),
    ],
    "travel-limits": [
        T("What's the hotel limit in Amsterdam?", facts=("€190",)),
        T("and for meals?", "What's the meals limit in Amsterdam?", ("€40",)),
        T("and in Chicago?", "What's the meals limit in Chicago?", ("US$65",)),
        T("and in London?", "What's the meals limit in London?", ("£45",)),
        T("and the hotel?", "What's the hotel limit in London?", ("£220",)),
        T("and in Munich?", "What's the hotel limit in Munich?", ("€180",)),
        T("and for meals?", "What's the meals limit in Munich?", ("€28",)),
    ],
    # the changed question is answered alone: the question it follows would bring Hamburg
    # back, and the travel item naming both cities ("Berlin–Hamburg or Bristol–London")
    # would outscore Bristol's row
    "city-named-with-the-replaced-one": [
        T("What is the meal allowance in Hamburg?", facts=("€28",)),
        T("and in Bristol?", "What is the meal allowance in Bristol?", ("£35",)),
    ],
    "on-call-allowance": [
        T("How much is the on-call allowance for a primary in the UK?", page=ROTATION),
        T(
            "and for a secondary?",
            "How much is the on-call allowance for a secondary in the UK?",
            ("£100",),
        ),
        T(
            "and in Germany?",
            "How much is the on-call allowance for a secondary in Germany?",
            ("€120",),
        ),
    ],
    "topic-switch": [
        T(
            "Who is the secondary on-call for the Payments team in week 2?",
            facts=("Sophie Brandt",),
        ),
        # it names another page (its title): nothing of the rotation is carried
        T("Who owns the Travel and Expense Policy?", facts=("Sabine Roth",), new_topic=True),
    ],
    # a question that names its own subject, which the rotation page never says, starts a
    # new topic though it shares no word with the page's title: the leave days, not the
    # on-call allowance in Germany
    "own-subject-de": [
        T(
            "Who is the secondary on-call for the Payments team in week 2?",
            facts=("Sophie Brandt",),
        ),
        T(
            "and in week 3?",
            "Who is the secondary on-call for the Payments team in week 3?",
            ("Chloe Whitfield",),
        ),
        T("Wie viele Urlaubstage gibt es in Deutschland?", facts=("28",), new_topic=True),
    ],
    # after a travel thread that says "per day", leave days (Urlaubstage) are a new subject
    "own-subject-de-after-travel": [
        T("What's the hotel limit in Amsterdam?", facts=("190",)),
        T("Wie viele Urlaubstage gibt es in Deutschland?", facts=("28",), new_topic=True),
        T("und in Großbritannien?", "Wie viele Urlaubstage gibt es in Großbritannien?", ("25",)),
        # German words of leave the wiki says in English ("carried over", "unused")
        T("Kann ich Resturlaub übertragen?", facts=("5", "31 March")),
    ],
    "own-subject-en": [
        T("Who is the primary on-call for Fleet Platform in week 1?", facts=("Jonas Becker",)),
        T("How many days of annual leave do we get in Germany?", facts=("28",), new_topic=True),
    ],
    # a question about the topic's page in words of its own stays on the topic
    "own-words-same-page": [
        T(
            "Who is the secondary on-call for the Payments team in week 2?",
            facts=("Sophie Brandt",),
        ),
        T(
            "Wie hoch ist die Bereitschaftspauschale für Secondary in Deutschland?",
            facts=("€120",),
            new_topic=False,
        ),
    ],
    "new-conversation": [
        T(
            "Who is the secondary on-call for the Payments team in week 2?",
            facts=("Sophie Brandt",),
        ),
        NEW,
        T("and in week 3?", clarify="Week 3 of what? Please ask the whole question."),
        T("who?", clarify="About what? Please ask the whole question."),
        T(
            "Who is the primary on-call for the Payments team in week 1?",
            facts=("Chloe Whitfield",),
        ),
        T(
            "and in week 4?",
            "Who is the primary on-call for the Payments team in week 4?",
            ("Chloe Whitfield",),
        ),
    ],
    "clarify-first": [
        T(
            "What does it stand for?",
            clarify="What does “it” refer to? Please ask the whole question.",
        ),
        T("What's the hotel limit in Amsterdam?", facts=("€190",)),
        T("and in Chicago?", "What's the hotel limit in Chicago?", ("US$250",)),
    ],
    "rotation-de": [
        T("Wer ist in Woche 2 Secondary für das Payments-Team?", facts=("Sophie Brandt",)),
        T(
            "und in Woche 3?",
            "Wer ist in Woche 3 Secondary für das Payments-Team?",
            ("Chloe Whitfield",),
        ),
        T(
            "und der Primary?",
            "Wer ist in Woche 3 der Primary für das Payments-Team?",
            ("Sophie Brandt",),
        ),
        T(
            "und für Fleet Platform?",
            "Wer ist in Woche 3 der Primary für das Fleet-Platform-Team?",
            ("Marco Rossi",),
        ),
    ],
    "firmware-de": [
        T("Wer ist in Woche 1 Primary für Robot Firmware?", page=ROTATION),
        T("und in Woche 4?", "Wer ist in Woche 4 Primary für Robot Firmware?", page=ROTATION),
        T(
            "und der Secondary?",
            "Wer ist in Woche 4 der Secondary für Robot Firmware?",
            page=ROTATION,
        ),
    ],
    "travel-de": [
        T("Wie hoch ist das Hotellimit in Amsterdam?", facts=("€190",)),
        T("und in Chicago?", "Wie hoch ist das Hotellimit in Chicago?", ("US$250",)),
        T("und in London?", "Wie hoch ist das Hotellimit in London?", ("£220",)),
        # a German word for a column, in place of a compound's front ("Hotel" in Hotellimit)
        T("und für Mahlzeiten?", "Wie hoch ist das Limit für Mahlzeiten in London?", ("£45",)),
        T("und in München?", "Wie hoch ist das Limit für Mahlzeiten in München?", ("€28",)),
    ],
    "clarify-de": [
        T("und in Woche 3?", clarify="Woche 3 – wovon? Bitte stellen Sie die ganze Frage."),
        T(
            "Wofür steht das?",
            clarify="Worauf bezieht sich „das“? Bitte stellen Sie die ganze Frage.",
        ),
    ],
    "annual-leave": [
        T("How many days of annual leave do we get in Germany?", facts=("28 days",)),
        T("and in the UK?", "How many days of annual leave do we get in the UK?"),
    ],
    "travel-columns": [
        T("What's the hotel limit in Amsterdam?", facts=("€190",)),
        # declined, and no context for the next turn
        T(
            "what's the weather there?",
            "what's the weather there? — following up on “What's the hotel limit in Amsterdam?”",
        ),
        T("and the meal allowance?", "What's the meal allowance in Amsterdam?", ("€40",)),
        T("and in Bristol?", "What's the meal allowance in Bristol?", ("£35",)),
        T("and the hotel limit there?", "What's the hotel limit in Bristol?", ("£130",)),
    ],
    "rate-limit-columns": [
        T("How many requests per minute does the Starter plan allow?", facts=("120",)),
        T("and Enterprise?", "How many requests per minute does the Enterprise plan allow?"),
        T("what about the burst?", "How many burst does the Enterprise plan allow?", ("500",)),
    ],
    "offices": [
        T("What is the address of the Berlin office?", facts=("Köpenicker Straße",)),
        T("and of Bristol?", "What is the address of the Bristol office?", ("Harbour Yard",)),
        T(
            "Who is the office lead there?",
            "What is the office lead of the Bristol office?",
            ("Hannah Lewis",),
        ),
        T("What are the opening hours of the Berlin office?", facts=("07:00–21:00",)),
        T("and in Bristol?", "What are the opening hours of the Bristol office?", ("08:00–19:00",)),
    ],
    "team-directory": [
        T("Who is the lead of the Payments team?", facts=("Chloe Whitfield",)),
        T(
            "and of Robot Firmware?",
            "Who is the lead of the Robot Firmware team?",
            ("Lena Hoffmann",),
        ),
        T(
            "Which Slack channel does that team use?",
            "Which Slack channel does the Robot Firmware team use?",
            ("#team-firmware",),
        ),
    ],
    "holidays": [
        T("Is Christmas Eve a company day off?", facts=("Yes",)),
        T("and New Year's Eve?", "Is New Year's Eve a company day off?", ("Yes",)),
        # a place the earlier question has none of is added to it
        T("What about Whit Monday in Bristol?", "Is Whit Monday a company day off in Bristol?"),
    ],
    "team-office": [
        T("Which office is the Payments team in?", facts=("Bristol",)),
        T("and Quality Assurance?", "Which office is the Quality Assurance team in?", ("Berlin",)),
        T("and Customer Success?", "Which office is the Customer Success team in?", ("Bristol",)),
    ],
    # a follow-up changes the latest question of its topic, which a resolved "and when is
    # its ...?" became without its "and"; in German, with the name added to it
    "postmortem-by-severity": [
        T("What is the Acknowledge time for a SEV2?", facts=("15 minutes",)),
        T(
            "and when is its postmortem draft due?",
            "When is SEV2's postmortem draft due?",
            ("10 business days",),
        ),
        T("and for SEV1?", "When is SEV1's postmortem draft due?", ("5 business days",)),
    ],
    "postmortem-by-severity-de": [
        T("Was ist die Acknowledge-Zeit für SEV2?", facts=("15 minutes",)),
        T("und wann ist der Postmortem-Entwurf fällig?", facts=("10 business days",)),
        T(
            "und für SEV1?",
            "Wann ist der Postmortem-Entwurf fällig für SEV1?",
            ("5 business days",),
        ),
    ],
    # a short question that names its own subject by a code the topic never says is asked
    # on its own, not shown following up on the topic ("Who is the CEO?")
    "thin-code-starts-a-topic": [
        T("What's the hotel limit in Amsterdam?", facts=("€190",)),
        T("Who is the CEO?", facts=("Maren Lindqvist",), new_topic=True),
        T("where does she work?", "where does Maren Lindqvist work?", ("Berlin",)),
    ],
    "thin-code-after-a-release-question": [
        T("When is code freeze?", page="Release Process"),
        T("Who is the CEO?", facts=("Maren Lindqvist",), new_topic=True),
    ],
    # after a declined turn, "and" before a whole question with its own subject is answered
    "after-a-declined-turn": [
        T("What is the parental leave policy?"),
        T("and how many days can I carry over?", facts=("5", "31 March")),
    ],
    # a final "one" is one of the things the question before counted
    "book-one": [
        T("How many desks does the Bristol office have?", facts=("26 desks",)),
        T("how do I book one?", "how do I book a desk?", ("Deskbird",)),
        NEW,
        T("how do I book one?", clarify="What does “one” refer to? Please ask the whole question."),
    ],
    # "das Team" is the team the question before asked about
    "definite-noun-de": [
        T("Wie viele Leute arbeiten im Team Payments?", page="Team Directory"),
        T("Welchen Slack-Kanal nutzt das Team?", facts=("#team-payments",)),
    ],
    # "Essen" (food) names the meals column in German
    "travel-de-essen": [
        T("Wie hoch ist das Hotellimit in Berlin?", facts=("€150",)),
        T("und für Essen?", "Wie hoch ist das Limit für Essen in Berlin?", ("€28",)),
    ],
    "offices-de": [
        T("Wie lautet die Adresse des Büros in Berlin?", facts=("Köpenicker Straße",)),
        T("und in Bristol?", "Wie lautet die Adresse des Büros in Bristol?", ("Harbour Yard",)),
    ],
}


@pytest.fixture
def assistant(sample_product) -> Assistant:
    """The Assistant of `confbot serve` over the sample wiki."""
    return sample_product


def test_the_battery_has_forty_follow_ups():
    follow_ups = [
        t
        for turns in CONVERSATIONS.values()
        for t in turns
        if t is not NEW and (t.completed != SAME or t.clarify or t.new_topic)
    ]
    assert len(follow_ups) >= 40
    assert any("Woche" in t.question for t in follow_ups)  # German ones too


@pytest.mark.parametrize("name", sorted(CONVERSATIONS))
def test_conversation(assistant, name):
    key = ConversationKey("test", "battery", "", name)
    for expected in CONVERSATIONS[name]:
        if expected is NEW:
            assert assistant.new_conversation(key) > 0
            continue
        turn = assistant.ask(key, expected.question, suggest=False)
        where = f"{name}: {expected.question!r}"
        if expected.clarify:
            assert turn.clarification and turn.answer == expected.clarify, where
            assert turn.evidences == [] and turn.citations == [] and not turn.out_of_scope
            stored = assistant.turn_record(turn.id)
            assert stored.answer == expected.clarify and stored.messages["clarification"]
            continue
        assert not turn.clarification, where
        completed = expected.question if expected.completed == SAME else expected.completed
        assert turn.completed_question == completed, where
        assert "context:" not in turn.completed_question  # never a keyword list
        for fact in expected.facts:
            assert fact in turn.answer, f"{where}: {fact!r} not in {turn.answer!r}"
        if expected.page:
            assert turn.citations and turn.citations[0].title == expected.page, where
        if expected.new_topic is not None:
            assert turn.completion_notes.get("topic_start") is expected.new_topic, where


def test_a_new_topic_carries_nothing(assistant):
    key = ConversationKey("test", "battery", "", "switch")
    assistant.ask(
        key, "Who is the secondary on-call for the Payments team in week 2?", suggest=False
    )
    turn = assistant.ask(key, "Who owns the Travel and Expense Policy?", suggest=False)
    assert turn.query == turn.completed_question == turn.question
    question = assistant.turn_record(turn.id).messages["answer"][-1]["content"]
    assert question.endswith("Question: Who owns the Travel and Expense Policy?")


def test_the_prompt_carries_the_topic_the_shown_question_does_not(assistant):
    key = ConversationKey("test", "battery", "", "prompt")
    assistant.ask(key, "What is the address of the Berlin office?", suggest=False)
    turn = assistant.ask(key, "How many desks does it have?", suggest=False)
    prompt = assistant.turn_record(turn.id).messages["answer"][-1]["content"]
    assert turn.completed_question == "How many desks does the Berlin office have?"
    assert is_followup(prompt) and not is_followup(turn.completed_question)
    # the page the topic's answer cited; not the words of the question it follows ("address"),
    # which the resolved question no longer needs and which would pull that answer back
    assert prompt.endswith(
        "Question: How many desks does the Berlin office have? (context: Offices, Public, Holidays)"
    )
