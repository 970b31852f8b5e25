"""The offline answerer on our own answer prompt: the span first and cited, one related line,
declining under the support threshold, determinism, sampling, and how it is chosen."""

from __future__ import annotations

import pytest

from core.answer import OUT_OF_SCOPE, build_messages, generate, split_answer
from core.assistant import make_llm
from core.combine import CheckedLLM
from core.extractive import ExtractiveLLM, asked_in_place, render
from core.llm import OpenAILLM
from core.pages import Evidence
from core.settings import Settings
from core.spans import Span
from tests.fakes.evidence import make_evidence


def ev(number: int, text: str = "text", title: str = "Page", heading: str = "") -> Evidence:
    return make_evidence(number, text, title, heading)


EVIDENCES = [
    ev(
        1,
        "Row 1 in Table 1: Machine is Dell Optiplex 7040, BIOS is 1.14.0, Build is 6662,"
        " and TPM is 2.0\n"
        "Row 2 in Table 1: Machine is Dell Optiplex 9010, BIOS is A25, Build is 6768,"
        " and TPM is 1.2",
        "OpenXT 9.0 Measurement Test",
        "Results",
    ),
    ev(2, "BATS is the Bash Automated Testing System. It is compliant with TAP.", "Bats"),
    ev(
        3,
        "Owned by Ross Philipson Last updated: Oct 02, 2016 by Ross Philipson\n"
        "The XT shield turns green after a successful upgrade.",
        "Measurement",
    ),
]


def ask(question: str, llm: ExtractiveLLM | None = None, evidences=EVIDENCES) -> str:
    (text,) = (llm or ExtractiveLLM()).complete(build_messages(question, evidences))
    return text


def test_a_cell_answer_says_what_it_is_and_needs_no_related_line():
    """The source excerpt shows the row, so a cell's answer carries its column and the
    cells that say which row it is, and no row dump follows it."""
    text = ask("Which TPM version had the Dell Optiplex 7040?")
    assert text == "The TPM for Dell Optiplex 7040 is 2.0 [1]."
    parts = split_answer(text)
    assert parts.answer == text and parts.related == []


def test_a_sentence_answer_is_related_to_the_next_best_span():
    text = ask("What color does the XT shield turn after a successful upgrade?")
    assert text.split("\n")[0] == "The XT shield turns green after a successful upgrade. [3]"


def test_a_byline_answers_a_question_about_the_page_and_never_another():
    assert ask("Who owns the measurement page?") == "Ross Philipson [3]"
    text = ask("What turns green after a successful upgrade, as per Ross Philipson?")
    assert "Owned by" not in text and "Last updated" not in text


def test_generate_parses_the_citations():
    (answer,) = generate(ExtractiveLLM(), "Wofür steht BATS?", EVIDENCES)
    assert "Bash Automated Testing System" in answer.text
    assert [c.number for c in answer.citations] == [2]
    assert answer.model == "extractive" and not answer.out_of_scope


def test_declines_under_the_support_threshold_of_the_question_language():
    question = (
        "How many builds of parental leave and sabbatical weeks does the Dell Optiplex team get?"
    )
    assert ask(question, ExtractiveLLM({"en": 0.0})) != OUT_OF_SCOPE
    assert ask(question, ExtractiveLLM({"en": 0.5})) == OUT_OF_SCOPE
    german = "Wie viele Builds Elternzeit und Sabbatical Wochen bekommt das Dell Optiplex Team?"
    assert ask(german, ExtractiveLLM({"en": 0.9, "de": 0.0})) != OUT_OF_SCOPE
    assert ask(german, ExtractiveLLM({"en": 0.0, "de": 0.9})) == OUT_OF_SCOPE


def test_out_of_scope_without_a_matching_source_or_a_prompt():
    llm = ExtractiveLLM()
    assert ask("Who won the 1954 football world cup?") == OUT_OF_SCOPE
    assert llm.complete(build_messages("TPM?", [])) == [OUT_OF_SCOPE]
    assert llm.complete([{"role": "user", "content": "not our prompt"}], n=2) == [OUT_OF_SCOPE] * 2


def test_translations_let_a_german_question_match_english_words():
    evidences = [ev(1, "The board votes to accept or reject a proposed change.", "Governance")]
    question = "Worüber stimmt der Vorstand ab?"
    assert ask(question, ExtractiveLLM({"de": 0.5}), evidences) == OUT_OF_SCOPE
    asked = []

    def translate(text: str) -> dict[str, list[str]]:
        asked.append(text)
        return {"vorstand": ["board"], "stimmt": ["votes", "agrees"]}

    text = ask(question, ExtractiveLLM({"de": 0.5}, translate), evidences)
    assert text.startswith("The board votes") and asked == [question]  # both words found
    assert ask("What does the board vote on?", ExtractiveLLM({}, translate), evidences)
    assert asked == [question]  # English questions are not translated
    # A word found only through its translation counts half towards the support.
    assert ask(question, ExtractiveLLM({"de": 0.6}, translate), evidences) == OUT_OF_SCOPE


def test_deterministic_at_zero_temperature_and_varied_above():
    messages = build_messages("Optiplex BIOS build TPM shield BATS", EVIDENCES)
    first = ExtractiveLLM().complete(messages, n=4)
    assert len(set(first)) == 1 and first == ExtractiveLLM().complete(messages, n=4)
    samples = ExtractiveLLM(seed=1).complete(messages, n=20, temperature=1.0)
    assert len(samples) == 20 and len(set(samples)) > 1
    assert all(s.split("\n")[0].rstrip(".").endswith("]") for s in samples)  # each cited


def test_make_llm_picks_by_base_url(tmp_path):
    offline = Settings.load(
        environ={"CONFBOT_DATA_DIR": str(tmp_path), "CONFBOT_ANSWER_MIN_SUPPORT_DE": "0.15"}
    )
    llm = make_llm(offline)
    assert isinstance(llm, ExtractiveLLM)
    assert llm.min_support == {"en": offline.answer_min_support, "de": 0.15}
    online = offline.replace(llm_base_url="http://127.0.0.1:9/v1", llm_model="m")
    llm = make_llm(online)
    assert isinstance(llm, CheckedLLM) and isinstance(llm.model, OpenAILLM)
    assert llm.name == "m" and isinstance(llm.offline, ExtractiveLLM)


def test_values_gathered_from_several_sources_are_each_cited():
    table = "Table 1: Machine, Notes\n"
    rows = [
        ev(1, "Row 1 in Table 1: Machine is Dell 9020, and Notes is PCI passthrough fails", "GPU"),
        ev(
            2,
            table + "Row 2 in Table 1: Machine is HP 8300, and Notes is PCI passthrough fails",
            "GPU",
        ),
        ev(
            3,
            table + "Row 3 in Table 1: Machine is HP 8200, and Notes is PCI passthrough fails",
            "GPU",
        ),
    ]
    first = ask("For which machines does PCI passthrough fail?", evidences=rows).split("\n")[0]
    assert first == "Dell 9020 [1]; HP 8300 [2]; HP 8200 [3]"


ROTATION = [
    ev(
        1,
        "Row 4 in Table 1: Week is Week 2, Team is Payments, On-call / Primary is Emre Yilmaz,"
        " and On-call / Secondary is Sophie Brandt\n"
        "Row 7 in Table 1: Week is Week 3, Team is Payments, On-call / Primary is Sophie Brandt,"
        " and On-call / Secondary is Chloe Whitfield",
        "On-Call Rotation",
        "October rotation",
    ),
    ev(
        2,
        "Row 1 in Table 2: Role is Primary, Germany (per week) is €250, and United Kingdom"
        " (per week) is £215",
        "On-Call Rotation",
        "Compensation",
    ),
    ev(3, "Shifts are one week long and hand over on Monday at 10:00.", "On-Call Rotation"),
    ev(
        4,
        "Zwischen dem 24. Dezember 2026 und dem 1. Januar 2027 ist das Büro geschlossen.",
        "Offices",
        "Berlin",
    ),
]


def test_a_who_question_is_answered_with_the_person_in_a_sentence():
    text = ask("Who is the secondary on-call for the Payments team in week 2?", evidences=ROTATION)
    assert text == "The secondary on-call for the Payments team in week 2 is Sophie Brandt [1]."


def test_a_how_much_question_is_answered_with_an_amount_not_a_name():
    """The rotation row holds "primary" and "on-call" too, but no amount: the compensation
    row answers, its United Kingdom cell found through the acronym UK."""
    text = ask(
        "How much is the weekly on-call allowance for a primary in the UK?", evidences=ROTATION
    )
    assert text == "The weekly on-call allowance for a primary in the UK is £215 [2]."


def test_a_yes_no_answer_gives_the_clause_that_decides_it_in_the_question_language():
    text = ask("Ist das Büro am 24. Dezember geöffnet?", evidences=ROTATION)
    assert text.startswith("Nein: Zwischen dem 24. Dezember 2026") and text.endswith("[4]")


def test_a_value_cut_from_a_sentence_is_shown_in_its_sentence():
    text = ask("When do shifts hand over?", evidences=ROTATION)
    assert text == "Shifts are one week long and hand over on Monday at 10:00. [3]"


def test_an_acronym_question_is_answered_with_the_name_it_spells():
    assert ask("What does BATS stand for?") == "Bash Automated Testing System [2]"
    assert ask("Wofür steht BATS?") == "Bash Automated Testing System [2]"


def test_a_question_about_what_the_wiki_never_mentions_is_declined():
    """ "parental" is in no page: the annual-leave sentence shares "leave" and "weeks" with
    the question but does not answer it. Without the wiki's vocabulary it would answer."""
    leave = [ev(1, "Employees have 28 days of annual leave per year, about five weeks.", "HR")]
    vocabulary = {"employees", "have", "days", "annual", "leave", "year", "about", "five", "weeks"}
    question = "How many weeks of parental leave do we get?"
    assert ask(question, ExtractiveLLM(vocabulary=lambda: vocabulary), leave) == OUT_OF_SCOPE
    assert ask(question, ExtractiveLLM(), leave) != OUT_OF_SCOPE
    known = "How many weeks of annual leave do we get?"
    assert ask(known, ExtractiveLLM(vocabulary=lambda: vocabulary), leave) != OUT_OF_SCOPE


def test_there_is_no_answers_no():
    guide = [ev(1, "There is no set guideline for getting modify access to the wiki.", "Wiki")]
    text = ask(
        "Are there any set guidelines for getting modify access to the wiki?", evidences=guide
    )
    assert text.startswith("No: There is no set guideline")


def test_a_footnote_mark_in_the_page_is_not_shown_as_a_citation():
    table = [
        ev(
            1,
            "Row 1 in Table 1: Platform is Dell OptiPlex 7060,"
            " and UEFI upgrade is Fail [1] OXT-1654",
            "Measurement",
        )
    ]
    text = ask("Did the Dell OptiPlex 7060 pass the UEFI upgrade?", evidences=table)
    assert text == "No: the UEFI upgrade for Dell OptiPlex 7060 is Fail OXT-1654 [1]."


def test_a_long_sentence_is_shown_whole_not_cut_before_its_fact():
    long = (
        "Action by the board will only be invoked in the situation where no resolution to a"
        " technical matter can be reached using the normal process, and it is initiated by"
        " creating a JIRA ticket to fully describe the technical issue."
    )
    text = ask("How are actions by the board initiated?", evidences=[ev(1, long, "Board")])
    assert text == f"{long} [1]"


def test_a_list_item_announcing_items_is_answered_with_them():
    steps = ev(
        1,
        "- Determine the best approach to test the PR. The basic approaches are:\n"
        "- A full build on the build server\n- A partial build on a developer machine",
        "Testing PRs",
    )
    text = ask("What are the basic approaches for testing a PR?", evidences=[steps])
    assert text.startswith("A full build on the build server; A partial build")


def test_a_followup_gets_its_statement_without_the_carried_topic():
    question = (
        "Who is the secondary on-call for the Payments team in week 3?"
        " (following up on: Who is the secondary on-call for the Payments team in week 2?)"
    )
    text = ask(question, evidences=ROTATION)
    assert text == "The secondary on-call for the Payments team in week 3 is Chloe Whitfield [1]."


def test_a_time_written_with_am_or_pm_answers_when():
    call = [ev(1, "The community call was held on July 23, 2015 at 1:00PM (EDT).", "Call")]
    text = ask("When did the community call on July 23, 2015 start?", evidences=call)
    assert "1:00PM" in text and text != OUT_OF_SCOPE


def test_german_noun_the_wiki_lacks_declines():
    """A German question naming a thing the wiki has no word for ("Parkplatzzuschuss") is
    declined on near-topic evidence; a compound ending in a word the wiki knows
    ("Urlaubsanspruch" → anspruch is not known, "Jahresurlaub" → urlaub via the glossary's
    leave) and a translated noun are answered."""
    leave = [ev(1, "Employees have 28 days of annual leave per year.", "HR")]
    vocabulary = {"employees", "have", "days", "annual", "leave", "year"}
    llm = ExtractiveLLM({"de": 0.0}, vocabulary=lambda: vocabulary, glossary=True)
    assert llm.unknown_words("Gibt es einen Parkplatzzuschuss für das Labor?") == [
        "parkplatzzuschuss",
        "labor",
    ]
    assert ask("Gibt es einen Parkplatzzuschuss für das Labor?", llm, leave) == OUT_OF_SCOPE
    assert llm.unknown_words("Wie viele Tage Jahresurlaub haben Mitarbeiter?") == []
    translated = ExtractiveLLM(
        {"de": 0.0},
        translate=lambda question: {"labor": ["lab"], "parkplatzzuschuss": ["parking"]},
        vocabulary=lambda: vocabulary,
    )
    # the compound names its head, a Zuschuss (allowance) the wiki never names, whatever
    # its front's translation lands on
    assert translated.unknown_words("Gibt es einen Parkplatzzuschuss für das Labor?") == [
        "parkplatzzuschuss"
    ]
    # The first word of a sentence and product names in camel case are not judged.
    assert llm.unknown_words("Kantine? Und der FirePro?") == []


def test_german_compound_counts_as_known_only_when_split_into_german_words():
    """A German noun ending in a word the wiki knows counts as known only when it is a
    real compound: a German word (with a linking s) before a German head ("Montags-
    problem"); not a word whose ending merely spells one ("Kantine", "Everest") nor a
    name ending in an English word ("Chromebook"). Each part of a hyphenated noun is
    judged ("Slack-Kanal")."""
    vocabulary = {"problem", "rest", "tine", "book", "chrome", "channel", "laptop", "get"}
    llm = ExtractiveLLM({"de": 0.0}, vocabulary=lambda: vocabulary, glossary=True)
    assert llm.unknown_words("Was tun bei einem Montagsproblem?") == []
    assert llm.unknown_words("Wann öffnet die Kantine?") == ["kantine"]
    assert llm.unknown_words("Wer bestieg den Everest?") == ["everest"]
    assert llm.unknown_words("Bekomme ich ein Chromebook?") == ["chromebook"]
    assert llm.unknown_words("Gibt es einen Slack-Kanal dafür?") == ["slack"]
    # Beside a known part, a German word is the kind of thing it names.
    assert llm.unknown_words("Was sind die Laptop-Kriterien?") == []
    # English questions are not split into compounds.
    assert llm.unknown_words("Is there a problem with the laptop?") == []


def test_a_german_name_is_unknown_whatever_its_nearest_wiki_word():
    """Word translation lands any word on its nearest wiki word ("Azure" on "apertus",
    "Offsite" on off + site): a noun that is no German word nor a compound of German words
    is a name or a foreign word the wiki lacks, as "Azure" is in the English twin; a
    German compound is judged by its head ("Parkplatzzuschuss": an allowance the wiki never
    names)."""
    vocabulary = {"openxt", "guest", "runs", "microsoft", "team", "organises"}
    translations = {"azure": ["apertus"], "offsite": ["off", "site"], "parkplatzzuschuss": ["p"]}
    llm = ExtractiveLLM(
        {"de": 0.0},
        translate=lambda question: translations,
        vocabulary=lambda: vocabulary,
        glossary=True,
    )
    assert llm.unknown_words("Läuft der OpenXT-Gast auch in Microsoft Azure?") == ["azure"]
    assert llm.unknown_words("Wer organisiert das Offsite?") == ["offsite"]
    assert llm.unknown_words("Gibt es einen Parkplatzzuschuss für das Labor?") == [
        "parkplatzzuschuss",
        "labor",
    ]
    english = ExtractiveLLM({"en": 0.0}, vocabulary=lambda: vocabulary)
    assert english.unknown_words("Does the OpenXT guest run in Microsoft Azure?") == ["azure"]
    assert english.unknown_words("Who organises the team offsite?") == ["offsite"]


def test_a_german_word_translated_to_no_english_word_is_unknown():
    """Word translation lands a common German word the wiki lacks on whatever wiki word is
    nearest, here an identifier ("Kantine" → cee, "Verhaltenskodex" → noxs): a German
    word has an English word for it, so one translated to none is unknown, as "cafeteria"
    is in the English twin. A translation in British spelling is English ("Verhalten" →
    behaviour), and a word written as a wiki word with k for c is known ("Kontext")."""
    vocabulary = {"openxt", "cee", "noxs", "behaviour", "context", "plan", "menu", "contributors"}
    translations = {
        "kantine": ["cee"],
        "verhaltenskodex": ["noxs"],
        "verhalten": ["behaviour"],
        "kontext": ["gettext"],
    }
    llm = ExtractiveLLM(
        {"de": 0.0},
        translate=lambda question: translations,
        vocabulary=lambda: vocabulary,
        glossary=True,
    )
    assert llm.unknown_words("Was gibt es heute in der Kantine?") == ["kantine"]
    assert llm.unknown_words("Wo finde ich den Verhaltenskodex für OpenXT?") == ["verhaltenskodex"]
    assert llm.unknown_words("Wie ist das Verhalten von OpenXT?") == []
    assert llm.unknown_words("Was heißt das im Kontext von OpenXT?") == []
    english = ExtractiveLLM({"en": 0.0}, vocabulary=lambda: vocabulary)
    assert english.unknown_words("What is on the cafeteria menu?") == ["cafeteria"]


@pytest.mark.parametrize(
    "question, translations",
    [
        # a German word the dictionary lacks, translated to its cognate
        ("Wie lange dauert das Parsen einer Konfiguration?", {"parsen": ["parsing"]}),
        # a typo of a German word, and a compound with a letter too many
        ("Welche Kolletion von Treibern gibt es?", {"kolletion": ["collection"]}),
        (
            "Wer hat Zugriffsberechtigunngen für das Archiv?",
            {"zugriffsberechtigunngen": ["access"], "archiv": ["archive"]},
        ),
    ],
)
def test_a_german_word_keeps_its_translation(question, translations):
    """A noun that is German in spite of the dictionary (a cognate of its translation, a
    typo, a compound typed with a letter too many) is known through its translation."""
    llm = ExtractiveLLM(
        {"de": 0.0},
        translate=lambda question: translations,
        vocabulary=lambda: {
            "parsing",
            "configuration",
            "collection",
            "drivers",
            "access",
            "archive",
        },
        glossary=True,
    )
    assert llm.unknown_words(question) == []


def test_a_german_compound_the_wiki_lacks_is_judged_by_its_head():
    """ "Ersatzausweis" asks for a badge, as "replacement badge" does in English: the
    wiki knowing "replacement" does not make it known, and a weak span declines."""
    staff = [ev(1, "Employees pick up a laptop at IT.", "IT")]
    vocabulary = {"employees", "get", "pick", "replacement", "laptop", "at"}
    llm = ExtractiveLLM({"de": 0.0, "en": 0.0}, vocabulary=lambda: vocabulary, glossary=True)
    assert llm.unknown_words("Wo bekommen Mitarbeiter einen Ersatzausweis?") == ["badge"]
    assert llm.unknown_words("Where do employees get a replacement badge?") == ["badge"]
    assert ask("Wo bekommen Mitarbeiter einen Ersatzausweis?", llm, staff) == OUT_OF_SCOPE
    assert ask("Where do employees get a replacement badge?", llm, staff) == OUT_OF_SCOPE
    # Words the wiki has, through the glossary, are known.
    assert llm.unknown_words("Bekommen Mitarbeiter einen Ersatzlaptop?") == []


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "How many measured launch JIRA issues were marked Done?",
            "The page shows these Jira issues only as a query (filter=12901); the issues"
            " themselves are not in the wiki's text. [1]",
        ),
        (
            "Wie viele Measured Launch JIRA Issues sind erledigt?",
            "Die Seite zeigt diese Jira-Vorgänge nur als Abfrage (filter=12901); die Vorgänge"
            " selbst stehen nicht im Wiki-Text. [1]",
        ),
    ],
)
def test_a_jira_issue_list_is_said_to_hold_only_its_query(question, expected):
    # the page stores the macro's query, not its issues: "Jira issues: filter=12901"
    issues = [ev(1, "Jira issues: filter=12901 (columns: key, status)", "Measured Launch")]
    assert ask(question, evidences=issues) == expected


def test_a_yes_no_on_a_table_row_says_the_row_and_the_deciding_cells():
    row = ev(
        1,
        "Row 1 in Table 1: Vendor is Dell, Model is E7450, GEN is BDW, FF is L, INST is Y,"
        " and ML is Y",
        "Release 6.0 hardware testing",
    )
    # cells with one mark are said together, not "INST is Y and ML is Y"
    assert ask("Did the system with Dell E7450 work?", evidences=[row]) == (
        "Yes: for Dell E7450, INST and ML are both Y [1]."
    )


def test_a_row_answers_in_a_statement_though_its_column_is_capitalized_in_the_question():
    # "Acknowledge" is capitalized as a name would be, and the row holds no other word of
    # the question ("time"): a row's column says what its cell is, so the row is not a
    # line that only restates the question's names, and the answer is a statement.
    severity = ev(
        1,
        "Row 1 in Table 1: Severity is SEV1, Acknowledge within is 5 minutes\n"
        "Row 2 in Table 1: Severity is SEV2, Acknowledge within is 15 minutes",
        "Incident response",
    )
    text = ask("What is the Acknowledge time for a SEV2?", evidences=[severity])
    assert text == "The Acknowledge time for a SEV2 is 15 minutes [1]."


def test_a_german_word_is_known_when_the_wiki_has_another_form_of_its_english_word():
    # The glossary reads "Anpassung" as customized / customization: the wiki's
    # "customization" is the same word, so the question names nothing the wiki lacks;
    # "Elternzeit" (parental leave) stays unknown though the wiki has "leave".
    vocabulary = {"single", "customization", "layer", "approach", "annual", "leave"}
    llm = ExtractiveLLM(vocabulary=lambda: vocabulary, glossary=True)
    assert "customized" not in llm.unknown_words("Was ist der Vorteil der Anpassung?")
    assert llm.unknown_words("Wie lange ist die Elternzeit?") == ["parental"]


def test_a_count_question_that_also_asks_who_is_answered_with_the_people():
    """ "How many ...? Who?" asks for a count and the people: the people a sentence names
    are counted and named, and a sentence naming none is declined (EN and DE)."""
    sentence = (
        "Daniel Smith proposed the idea, which has been supported in discussions by"
        " Christopher Clark and Rich Persaud."
    )
    supported = [ev(1, sentence, "VirtIO & Argo")]
    for question in (
        "How many people supported Daniel? Who?",
        "Wie viele Personen haben Daniel unterstützt? Wer?",
    ):
        assert "Christopher Clark" in ask(question, evidences=supported)
    nothing = [ev(1, "Daniel's idea has been supported in discussions.", "VirtIO & Argo")]
    assert ask("How many people supported Daniel? Who?", evidences=nothing) == OUT_OF_SCOPE
    # the people the sentence names as supporters are counted (`core.sentence_names`)
    counted = ask("How many people supported Daniel?", evidences=supported)
    assert counted.startswith("2 people: Christopher Clark and Rich Persaud [1]")


ON_CALL = [
    ev(
        1,
        "Row 1 in Table 1: Week is Week 2, Team is Payments, On-call / Primary is Emre Yilmaz,"
        " and On-call / Secondary is Sophie Brandt\n"
        "Row 2 in Table 1: Week is Week 3, Team is Payments, On-call / Primary is Chloe"
        " Whitfield, and On-call / Secondary is Emre Yilmaz",
        "On-call rotation",
        "October",
    )
]
QEMU = [
    ev(
        1,
        "Row 1 in Table 1: OS is Debian jessie x64 from PXE, Stubdom is w/, and Tools is"
        " installation OK\n"
        "Row 2 in Table 1: OS is Ubuntu 16.10 x64 from iso, Stubdom is w/, and Tools is"
        " installation KO OXT-791",
        "QEMU 2.6.2 Uprev testing",
    )
]


@pytest.mark.parametrize(
    ("question", "evidences", "expected"),
    [
        # a cell: its column said of the row the question named, not "2.0 (TPM for ...)"
        (
            "Which TPM version had the Dell Optiplex 7040?",
            EVIDENCES,
            "The TPM for Dell Optiplex 7040 is 2.0 [1].",
        ),
        (
            "Welche TPM Version hatte der Dell Optiplex 7040?",
            EVIDENCES,
            "TPM für Dell Optiplex 7040 ist 2.0 [1].",
        ),
        # a header path read as words, not "On-call / Secondary: Sophie Brandt"
        (
            "Who was the secondary on-call for Payments in week 2?",
            ON_CALL,
            "The On-call Secondary for Week 2, Payments is Sophie Brandt [1].",
        ),
        (
            "Wer hatte in Week 2 den Secondary On-call für Payments?",
            ON_CALL,
            "On-call Secondary für Week 2, Payments ist Sophie Brandt [1].",
        ),
        # several cells of a row, said of the row's name, not "OS: ...; Stubdom: ...; ..."
        (
            "What were the Stubdom and Tools results for Debian jessie x64?",
            QEMU,
            "For Debian jessie x64 from PXE, Stubdom is w/ and Tools is installation OK [1].",
        ),
        (
            "Welche Stubdom und Tools Ergebnisse hatte Debian jessie x64?",
            QEMU,
            "Für Debian jessie x64 from PXE gilt: Stubdom ist w/ und Tools ist installation OK"
            " [1].",
        ),
        # a yes/no decided by a cell: Yes or No, then the cell as a sentence
        (
            "Did the Dell Optiplex 7040 have TPM 2.0?",
            EVIDENCES,
            "Yes: the TPM for Dell Optiplex 7040 is 2.0 [1].",
        ),
        (
            "Hatte der Dell Optiplex 7040 TPM 2.0?",
            EVIDENCES,
            "Ja: TPM für Dell Optiplex 7040 ist 2.0 [1].",
        ),
        # cells of several rows whose name is not among them: a sentence per row, no
        # subject made up from a cell that does not name the row
        (
            "What BIOS and Build did the Dell Optiplex machines use?",
            EVIDENCES,
            "BIOS is 1.14.0 and Build is 6662 [1]. BIOS is A25 and Build is 6768 [1].",
        ),
    ],
)
def test_a_table_answer_is_a_sentence_naming_its_row_and_column(question, evidences, expected):
    assert ask(question, evidences=evidences) == expected


def test_a_when_question_with_a_modal_asks_for_a_condition_not_a_date():
    evidences = [
        ev(
            1,
            "Pull requests can get rejected right up front when they have obvious issues.",
            "Governance",
        )
    ]
    for question in (
        "When can a pull request get rejected up front?",
        "Wann kann ein Pull Request sofort abgelehnt werden?",
    ):
        assert ask(question, ExtractiveLLM(), evidences) != OUT_OF_SCOPE, question
    # a when question without a modal still asks for a date, which this evidence lacks
    assert ask("When was the pull request rejected?", ExtractiveLLM(), evidences) == OUT_OF_SCOPE
    assert ask("Wann wurde der Pull Request abgelehnt?", ExtractiveLLM(), evidences) == (
        OUT_OF_SCOPE
    )


GPU_TESTS = [
    ev(
        1,
        "Table 1: Test Description, Result, Notes\n"
        "Row 1 in Table 1: Test Description is GPU pass through testing: Performance testing"
        " running a GPU benchmark for an hour, Result is Pass, and Notes is Did not run"
        " performance tests",
        "GPU tests",
    ),
]


@pytest.mark.parametrize(
    "question, verdict",
    [
        ("Was a performance test run for the GPU pass through?", "No"),
        # "Leistungstestslauf": performance + test + run, through the glossary's compounds
        ("Wurde ein Leistungstestslauf für das GPU pass through durchgeführt?", "Nein"),
    ],
)
def test_a_note_that_denies_the_asked_run_answers_no(question, verdict):
    first = ask(question, ExtractiveLLM(glossary=True), GPU_TESTS).split("\n")[0]
    assert first.startswith(f"{verdict}:")
    assert "Did not run performance tests" in first


NOTES = ev(
    1,
    "Row 1 in Table 1: Test is Install guest VM with Tools, Platform is Dell Latitude 7490,"
    " Result is PWE, and Notes is Duplicate disks after installing tools OXT-11 Guest hangs on"
    " shutdown OXT-12 Issues with switcher keys OXT-13\n"
    "Row 2 in Table 1: Test is Forward seal works, Platform is Dell Latitude 7490, Result is"
    " Pass, and Notes is -",
    "Stable rc0 Test Matrix",
    "Test Matrix",
)


def test_the_asked_item_of_a_cell_listing_several_is_quoted_with_its_column():
    # not "The Notes for Dell Latitude 7490 is Duplicate disks ... OXT-11 Guest hangs ..."
    text = ask(
        "What was the issue number for switcher keys on the Dell Latitude 7490?", None, [NOTES]
    )
    assert text == (
        "“Issues with switcher keys OXT-13” is listed under Notes for Dell Latitude 7490 [1]."
    )


MATRIX = ev(
    1,
    "Row 1 in Table 1: Vendor is Acme, Model is Z9, INST is Y, AUD is N, and UPG is Y\n"
    "Row 2 in Table 1: Vendor is Acme, Model is Z7, INST is Y, AUD is Y, and UPG is N",
    "Hardware testing",
    "Results",
)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # the column the question spells out decides, not the row's other Y cells
        ("Was audio playback tested on the Acme Z9?", "No: the AUD for Acme Z9 is N [1]."),
        ("Wurde die Audiowiedergabe auf dem Acme Z9 getestet?", "Nein: AUD für Acme Z9 ist N [1]."),
        ("Was audio playback tested on the Acme Z7?", "Yes: the AUD for Acme Z7 is Y [1]."),
    ],
)
def test_a_yes_no_on_a_matrix_row_is_decided_by_the_abbreviated_column_it_spells_out(
    question, expected
):
    assert ask(question, evidences=[MATRIX]) == expected


def test_a_page_answer_cut_after_its_label_opens_as_a_sentence():
    faq = ev(
        1,
        "How would a guest get more displays than the host? ANSWER: the user unplugs a"
        " monitor while the guest is running.",
        "Display driver",
    )
    text = ask("How would a guest get more displays than the host?", evidences=[faq])
    assert text.startswith("The user unplugs a monitor")


QEMU_TESTS = [
    ev(1, "Debian jessie x64 from PXE", "QEMU 2.6.2 uprev testing", "Installation"),
    ev(
        2,
        "Row 1 in Table 1: OS is Debian jessie x64 from PXE, Stubdom is w/, and Tools is"
        " installation OK\n"
        "Row 2 in Table 1: OS is Ubuntu 16.10 x64, Stubdom is w/, and Tools is installation KO",
        "QEMU guests",
        "Results",
    ),
]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "In QEMU 2.6.2 uprev testing, was the installation of Debian jessie x64 successful?",
            "Yes: for Debian jessie x64 from PXE, Tools is installation OK [2].",
        ),
        (
            "Im QEMU 2.6.2 uprev testing, war die installation von Debian jessie x64 OK?",
            "Ja: für Debian jessie x64 from PXE gilt: Tools ist installation OK [2].",
        ),
    ],
)
def test_a_yes_comes_with_what_decides_it_not_a_line_restating_the_question(question, expected):
    # the heading that only repeats the names ranks first ("Yes: Debian jessie x64 from
    # PXE [1]"); the row that decides is shown instead, with the same verdict
    assert ask(question, evidences=QEMU_TESTS) == expected


TRAVEL = [
    ev(
        1,
        "- Flights are economy. Premium economy is allowed for flights over 6 hours (for"
        " example Berlin–New York). Business class is never reimbursed.\n"
        "- Taxis are fine late at night.",
        "Travel Policy",
        "Getting there",
    )
]


def test_a_yes_no_verdict_is_read_from_the_clause_it_quotes():
    """A negation in another sentence of the item ("never reimbursed") does not turn the
    deciding clause's "allowed" into No; a question about that other sentence gets its No."""
    text = ask("Is premium economy allowed on a flight to New York?", evidences=TRAVEL)
    assert text.startswith("Yes: Premium economy is allowed for flights over 6 hours"), text
    text = ask("Ist Premium Economy auf einem Flug nach New York erlaubt?", evidences=TRAVEL)
    assert text.startswith("Ja: Premium economy is allowed"), text
    assert ask("Is business class allowed?", evidences=TRAVEL).startswith(
        "No: Business class is never reimbursed."
    )


def test_a_yes_no_under_a_condition_the_question_leaves_open_says_the_clause_alone():
    """ "Allowed for flights over 6 hours" decides nothing for a question that names no
    flight: the reply is what the page says, without Yes or No (English and German)."""
    for question in ("Is premium economy allowed?", "Ist Premium Economy erlaubt?"):
        text = ask(question, evidences=TRAVEL)
        assert text == (
            "Premium economy is allowed for flights over 6 hours (for example Berlin–New York). [1]"
        ), text


EQUIPMENT = [
    ev(
        1,
        "- Pick up your laptop from IT. Standard engineering laptop: ThinkPad T14 with 32 GB"
        " RAM. Designers can ask for a MacBook instead.",
        "Laptop Setup",
        "Day 1",
    ),
    ev(2, "Engineers also get a second monitor in the office.", "Onboarding", "Budget"),
]


def test_a_question_for_a_kind_of_thing_is_answered_by_a_span_that_names_that_kind():
    """ "What laptop ...": a sentence sharing only the subject ("Engineers also get a second
    monitor") answers another question; the labelled sentence naming the laptop answers,
    alone, not with the rest of its item."""
    text = ask("What laptop do engineers get?", evidences=EQUIPMENT)
    assert text == "Standard engineering laptop: ThinkPad T14 with 32 GB RAM. [1]", text
    text = ask("Which laptop do engineers get?", evidences=EQUIPMENT)
    assert text.startswith("Standard engineering laptop: ThinkPad T14"), text


CONTACTS = [
    ev(
        1,
        "- Your manager approves in the expense tool; Finance pays out with the next monthly"
        " payroll.",
        "Expense Policy",
        "Submitting expenses",
    ),
    ev(2, "Payroll questions: payroll@example.org", "Onboarding", "Contacts"),
]


def test_a_question_whom_to_ask_is_answered_by_the_contact_line():
    """An e-mail address on a line about questions answers "Who do I ask about payroll?"
    (English and German); a sentence that only mentions payroll beside a person does not."""
    text = ask("Who do I ask about payroll?", evidences=CONTACTS)
    assert text.startswith("Payroll questions: payroll@example.org"), text
    text = ask("Wen frage ich zu Payroll?", evidences=CONTACTS)
    assert "payroll@example.org" in text, text
    assert "manager" in ask("Who approves expenses?", evidences=CONTACTS)


@pytest.mark.parametrize(
    "question, answered",
    [
        (
            "Were any of them resolved? (context: UEFI upgrade issues)",
            "The UEFI upgrade issue was resolved in March.",
        ),
        (
            "Wurde eines davon gelöst? (context: UEFI Upgrade Probleme)",
            "Das UEFI Upgrade Problem wurde im März gelöst.",
        ),
    ],
)
def test_a_yes_no_over_a_clause_saying_nothing_asked_is_declined(question, answered):
    """The sentence shares only the follow-up's carried topic: a Yes or No over it would
    be a guess, so the question is declined rather than answered over an unrelated clause."""
    launch = [ev(1, "The UEFI upgrade is known to fail on reboot.", "Measured launch")]
    assert ask(question, evidences=launch) == OUT_OF_SCOPE
    resolved = [ev(1, answered, "Measured launch")]
    assert ask(question, evidences=resolved).startswith(("Yes: ", "Ja: "))


VPN = [
    ev(1, "Berlin: vpn-ber.example, UDP port 51820. Bristol: vpn-bri.example.", "VPN Setup"),
    ev(2, "The Berlin office has 42 employees and 30 desks.", "Offices"),
]


def test_a_how_many_question_is_not_answered_by_a_number_of_another_thing():
    """Only the VPN page is retrieved: its port number counts no people, so it is declined."""
    assert ask("How many people work in Berlin?", evidences=VPN[:1]) == OUT_OF_SCOPE
    assert ask("Wie viele Schreibtische gibt es in Berlin?", evidences=VPN[:1]) == OUT_OF_SCOPE


def test_a_how_many_question_is_answered_by_a_number_of_the_counted_thing_or_its_synonym():
    """People are counted by employees; German Schreibtische and Urlaubstage through the
    glossary."""
    assert "42" in ask("How many people work in the Berlin office?", evidences=VPN)
    glossary = ExtractiveLLM(glossary=True)
    assert "30" in ask("Wie viele Schreibtische hat das Berlin Office?", glossary, VPN)
    leave = [ev(1, "Employees have 28 days of annual leave per year.", "HR")]
    assert "28" in ask("How many days of annual leave do we get?", evidences=leave)
    assert "28" in ask("Wie viele Urlaubstage haben wir?", glossary, leave)


# A table whose column names the person asked for, with first names only, beside a sentence
# that covers the question as well.
REPORTING = [
    ev(1, "Report issues seen here.", "QEMU Uprev Testing", "Reporting"),
    ev(
        2,
        "Row 1 in Table 2: Reporter is Ross, Description is Battery status is broken,"
        " and JIRA is OXT-790",
        "QEMU Uprev Testing",
        "Reporting:",
    ),
]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Who was the assigned reporter?", "The Reporter for Reporting is Ross [2]."),
        ("Wer war der zugewiesene Reporter?", "Reporter für Reporting ist Ross [2]."),
    ],
)
def test_a_who_question_naming_a_column_is_answered_by_its_cell(question, expected):
    """ "Ross" matches no name pattern, but the question names its column: the cell is the
    person asked for (it was declined as a span of the wrong kind); the table's heading
    names it without the colon that introduced the table."""
    assert ask(question, evidences=REPORTING) == expected


def test_a_who_question_naming_a_column_of_numbers_is_still_declined():
    evidences = [ev(1, "Row 1 in Table 1: Reporter is 42, and JIRA is OXT-790", "Tests", "Log")]
    assert ask("Who was the reporter?", evidences=evidences) == OUT_OF_SCOPE


@pytest.mark.parametrize(
    ("question", "unknown"),
    [
        ("Why are RCs archived?", []),
        ("Warum werden RCs archiviert?", []),
        # an unknown acronym plural of 3+ letters is judged, and abbreviations are words
        ("Why are QPUs archived?", ["qpus"]),
        ("What were the firmware version nos.?", ["nos"]),
    ],
)
def test_short_acronym_plurals_are_not_judged_unknown(question, unknown):
    """The vocabulary holds whole words of 3+ letters: the "RC" of "RCs" cannot be in it, so
    it names nothing the wiki lacks (it declined an answerable follow-up)."""
    vocabulary = {
        "firmware", "version", "versions", "laptops", "dell", "archived", "leave", "weeks",
        "want", "some", "travel", "hotel", "limit",
    }  # fmt: skip
    llm = ExtractiveLLM(vocabulary=lambda: vocabulary, glossary=True)
    assert llm.unknown_words(question) == unknown


@pytest.mark.parametrize(
    ("question", "unknown"),
    [
        ("How many can I carry over?", []),  # the wiki says "carried over"
        ("Who applies the patch?", []),  # "applied"
        ("Which carrying case?", []),
        ("How many bodies?", ["bodies"]),  # "body" is in no form on the wiki
    ],
)
def test_a_word_is_known_from_its_y_and_ing_forms(question, unknown):
    """A new user asked "and how many can I carry over?" on a wiki that says "Up to 5 unused
    days can be carried over": "carry" was judged a word the wiki lacks and declined."""
    vocabulary = {"carried", "applied", "patch", "carry", "case", "over"}
    llm = ExtractiveLLM(vocabulary=lambda: vocabulary, glossary=True)
    assert llm.unknown_words(question) == unknown


@pytest.mark.parametrize(
    "question",
    [
        "How much host RAM did the Dell XE2 with the FirePro V5900 have?",
        "Wie viel Host RAM hatte der Dell XE2 mit der FirePro V5900?",
    ],
)
def test_an_amount_with_its_unit_written_against_it_answers_how_much(question):
    """ "4GB" is an amount as "4 GB" is (it was declined as a span of the wrong kind)."""
    rows = [
        ev(
            1,
            "Row 10 in Table 1: Machine is Dell XE2, Graphics Card is AMD FirePro V5900,"
            " Host RAM is 4GB, and Result is Pass",
            "GPU Passthrough Test Results",
        )
    ]
    text = ask(question, evidences=rows)
    assert "4GB" in text and text.endswith("[1].")


SPELT_APART = [
    ev(1, "Some PRs can get rejected right up front, with obvious issues.", "Process", "PRs"),
    ev(2, "Dial-in number: 857-216-2410", "Community Call", "Dial-In Information"),
]
SPELT_VOCABULARY = {
    "some", "prs", "can", "get", "rejected", "right", "front", "with", "obvious", "issues",
    "dial", "number", "community", "call", "information", "process",
}  # fmt: skip


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("When can a PR get rejected upfront?", "Some PRs can get rejected right up front"),
        ("What was the dialin number?", "Dial-in number: 857-216-2410 [2]"),
        ("Wie lautete die Dialin-Nummer?", "Dial-in number: 857-216-2410 [2]"),
    ],
)
def test_a_word_the_sources_write_as_two_is_not_one_the_wiki_lacks(question, expected):
    """ "upfront" is in no page as one word, but the evidence writes "up front"."""
    llm = ExtractiveLLM(vocabulary=lambda: SPELT_VOCABULARY, glossary=True)
    assert ask(question, llm, SPELT_APART).startswith(expected)


def test_a_word_the_wiki_lacks_in_any_spelling_still_declines():
    llm = ExtractiveLLM(vocabulary=lambda: SPELT_VOCABULARY, glossary=True)
    assert ask("When can a PR get rejected offhand?", llm, SPELT_APART) == OUT_OF_SCOPE


def test_a_german_compound_is_known_by_its_head():
    """A compound names its head: unknown when the head is a German word the wiki lacks,
    whatever the front and the compound's translation ("Weihnachtsfeier": the wiki's
    "holiday" is the nearest word to "Feier", no cognate); the head is known through the
    glossary ("Pflichtfelder" → field) or through its own translation when that is its
    cognate ("Freigabekandidaten" → candidates); a German word of its own is no compound
    ("Diskussionen")."""
    vocabulary = {"release", "candidates", "field", "fields", "holiday", "discussions", "rfc"}
    translations = {
        "kandidaten": ["candidates"],
        "freigabekandidaten": ["release", "candidates"],
        "weihnachtsfeier": ["holiday"],
        "feier": ["holiday"],
        "diskussionen": ["discussions"],
        "pflichtfelder": ["fields"],
    }
    llm = ExtractiveLLM(
        {"de": 0.0},
        translate=lambda question: {w: translations.get(w, []) for w in question.lower().split()},
        vocabulary=lambda: vocabulary,
        glossary=True,
    )
    assert llm.unknown_words("Welche Freigabekandidaten gibt es?") == []
    assert llm.unknown_words("Wie viele Pflichtfelder hat ein RFC?") == []
    assert llm.unknown_words("Wo findet die Weihnachtsfeier statt?") == ["weihnachtsfeier"]
    assert llm.unknown_words("Gab es Diskussionen zum RFC?") == []


def test_a_compound_head_is_known_by_the_glossarys_first_word_for_it():
    """A compound names its head by what the head means, the glossary's first English word
    ("Vertrag" → contract): the wiki's "agreement", a neighbour the glossary also lists,
    says nothing about a support contract ("Supportvertrag": the index's translation lands
    on its front, support); another form of the first word counts ("contracts")."""
    vocabulary = {"support", "agreement", "license", "cost", "year", "openxt"}
    llm = ExtractiveLLM(
        {"de": 0.0},
        translate=lambda question: {"supportvertrag": ["support"]},
        vocabulary=lambda: vocabulary,
        glossary=True,
    )
    question = "Was kostet ein Supportvertrag pro Jahr?"
    assert llm.unknown_words(question) == ["supportvertrag"]
    support = [ev(1, "OpenXT support is given by the community each year.", "Support")]
    assert ask(question, llm, support) == OUT_OF_SCOPE
    with_contracts = ExtractiveLLM(
        {"de": 0.0},
        translate=lambda question: {"supportvertrag": ["support"]},
        vocabulary=lambda: vocabulary | {"contracts"},
        glossary=True,
    )
    assert with_contracts.unknown_words(question) == []


def test_an_unknown_german_word_lends_no_support_through_its_translation():
    """A German word the wiki has no word for ("Supportverträge": its translation lands on
    its front, "support") does not count as found where that translation is: the sentence
    about commercial support holds OpenXT and "kommerzielle" of the question, under
    `UNKNOWN_SUPPORT`, and is declined as the English twin ("support contracts") is. The
    wiki that has contracts answers the same question from the same sentence."""
    translations = {"supportverträge": ["support"], "kommerzielle": ["commercial"]}
    vocabulary = {"openxt", "support", "commercial", "derivatives", "operational", "sells"}
    question = "Wer verkauft kommerzielle Supportverträge für OpenXT?"
    said = "Rich Persaud gives operational support on commercial derivatives of OpenXT."
    support = [ev(1, said, "OpenXT")]

    def llm(words):
        return ExtractiveLLM(
            {"de": 0.0},
            translate=lambda question: translations,
            vocabulary=lambda: words,
            glossary=True,
        )

    assert llm(vocabulary).unknown_words(question) == ["supportverträge"]
    assert ask(question, llm(vocabulary), support) == OUT_OF_SCOPE
    assert ask(question, llm(vocabulary | {"contracts"}), support) != OUT_OF_SCOPE
    # a glossary word under 3 letters is in no vocabulary: "Großbritannien" (uk) is no
    # unknown word whose translation to drop
    britain = "Wie viele Urlaubstage habe ich in Großbritannien?"
    assert llm({"leave", "days", "united", "kingdom"}).unknown_words(britain) == []


def test_a_pruefung_is_an_exam():
    """ "Prüfung" names an exam (or test), "Überprüfung" a check: a wiki with checks but no
    exams lacks the certification exam ("Zertifizierungsprüfung"), and still has the
    check of an installation."""
    vocabulary = {"certification", "check", "checks", "installation", "company", "pay"}
    llm = ExtractiveLLM({"de": 0.0}, vocabulary=lambda: vocabulary, glossary=True)
    exam = "Bezahlt die Firma eine Zertifizierungsprüfung?"
    assert llm.unknown_words(exam) == ["zertifizierungsprüfung"]
    assert llm.unknown_words("Welche Überprüfung braucht die Installation?") == []
    with_exams = ExtractiveLLM(vocabulary=lambda: vocabulary | {"exam"}, glossary=True)
    assert with_exams.unknown_words(exam) == []


def test_overtime_is_a_word_of_its_own_not_hours():
    """ "Überstunden" is overtime, not the hours its parts spell: a wiki with hours but no
    overtime lacks it; so is "Freizeit" (time off) not a time."""
    vocabulary = {"hours", "time", "test", "testers", "paid", "pay"}
    llm = ExtractiveLLM({"de": 0.0}, vocabulary=lambda: vocabulary, glossary=True)
    question = "Werden Überstunden der Tester ausbezahlt oder mit Freizeit ausgeglichen?"
    assert {"overtime", "leisure"} <= set(llm.unknown_words(question))
    assert llm.unknown_words("Wie viele Stunden arbeiten die Tester?") == []


XENMOU = [
    ev(
        1,
        "Row 4 in Table 2: Code is 0x3, Name is DEV_RESET, and Description is This indicates"
        " that device <value> is no longer valid. If <value> is -1 then all devices are"
        " invalid; such an event is used on start up.",
        "XENMOU2 Specification",
        "DEV: Device",
    ),
    ev(
        2,
        "These events describe actions relating to the device. DEV events are not subject"
        " to Synchronization events.",
        "XENMOU2 Specification",
        "DEV: Device",
    ),
]


def test_a_clause_that_decides_a_yes_no_outranks_a_row_found_for_its_words():
    """A row with no pass/fail cell says Yes only because it was found; a later sentence
    that holds what is asked decides, with its own verdict."""
    question = "Are events like DEV_RESET subject to synchronization events?"
    assert ask(question, evidences=XENMOU) == (
        "No: DEV events are not subject to Synchronization events. [2]"
    )


REPRO = [
    ev(
        1,
        "Row 2 in Table 1: Machine is HP 8300, Graphics Card(s) is AMD Firepro W600,"
        " and OXT-243 Repro?** is Yes",
        "GPU Passthrough",
    )
]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "Did the HP 8300 with AMD Firepro W600 pass the OXT-243 Repro test?",
            "No: the OXT-243 Repro for HP 8300, AMD Firepro W600 is Yes, so the problem"
            " occurred [1].",
        ),
        (
            "Hat der HP 8300 mit AMD Firepro W600 den OXT-243 Repro Test bestanden?",
            "Nein: OXT-243 Repro für HP 8300, AMD Firepro W600 ist Yes, das Problem trat also"
            " auf [1].",
        ),
    ],
)
def test_a_yes_in_a_column_that_records_a_problem_fails_a_pass_question(question, expected):
    # "Repro?: Yes" says the bug showed: the configuration did not pass; the header's
    # footnote marks ("?**") are no words of the reply
    assert ask(question, evidences=REPRO) == expected


DRAFT = [
    ev(1, "Revision History of this Document", "Tech1: OpenXT Platform Architecture"),
    ev(2, "<< Document needs significant work. >>", "Tech1: OpenXT Platform Architecture"),
    ev(3, "Additional detail is available in the Platform Properties document.", "Tech1"),
]


def test_an_undecided_yes_no_quotes_the_editors_note_not_a_heading():
    # a note in brackets is a sentence of the page, the closest one to "finalized"
    assert ask("Is the Tech1 architecture document finalized?", evidences=DRAFT) == (
        "The wiki does not say yes or no to this; it says: << Document needs significant"
        " work. >> [2]"
    )


GOVERNANCE = [
    ev(1, "Discuss the OpenXT RFC on the monthly OpenXT call.", "Governance", "Process"),
    ev(2, "Structure of the Board: 7 positions on the board.", "Governance"),
]


def test_an_undecided_yes_no_quotes_the_sentence_closest_to_what_is_asked():
    # neither decides; the first ranks for the name it shares ("OpenXT"), the second holds
    # more of what is asked (the board's structure): it is what the wiki says of it
    question = "Were changes to the board structure discussed in the OpenXT draft?"
    assert ask(question, evidences=GOVERNANCE) == (
        "The wiki does not say yes or no to this; it says: Structure of the Board: 7"
        " positions on the board. [2]"
    )


def test_an_undecided_yes_no_never_quotes_a_page_answer_line_as_its_own_verdict():
    # the page's own "Yes: ..." (its answer to another question) holds more of the question
    # than the first span, which decides nothing; quoted, it would read as this reply's Yes
    first = Span("No", "A user unplugs a monitor; the driver can't respond.", 2.0, 0.7, "sentence")
    line = "Yes: the driver will map each guest display to the host's video memory."
    spans = [(1, first), (2, Span(line, line, 1.0, 0.6, "sentence"))]
    question = "Can a guest have more displays than the host after hot switching unplugs a monitor?"
    assert render(question, spans, 0) == (
        "The wiki does not say yes or no to this; it says: A user unplugs a monitor; the"
        " driver can't respond. [1]"
    )


@pytest.mark.parametrize(
    ("question", "column", "expected"),
    [
        ("Is Whit Monday a holiday in Bristol?", "Bristol", True),
        ("Ist Pfingstmontag im Büro Berlin frei?", "Büro Berlin", True),
        ("Is the Bristol office open on Whit Monday?", "Bristol", False),
        ("How many desks are there in total?", "Desks", False),
        ("Which column is in bristol?", "bristol", False),  # a header in lower case names no place
    ],
)
def test_a_column_the_question_asks_in_is_a_place(question, column, expected):
    assert asked_in_place(question, column) is expected


def test_how_many_with_a_modal_asks_an_allowance_not_a_count_of_the_list():
    """ "and how many can I carry over?" after an annual-leave question was answered with the
    whole leave list as a count and declined; the item that says the allowance answers."""
    leave = ev(
        1,
        "- Germany: 28 days of annual leave per year, plus public holidays in Berlin.\n"
        "- United Kingdom: 25 days of annual leave per year, plus bank holidays.\n"
        "- Up to 5 unused days can be carried over into the next year.\n"
        "- Book leave in Personio at least two weeks ahead.",
        "Offices and Public Holidays",
        "Annual leave",
    )
    question = "and how many can I carry over? (context: days, annual, leave, Germany)"
    (answer,) = generate(ExtractiveLLM(), question, [leave])
    assert answer.text.startswith("Up to 5 unused days can be carried over")
    (count,) = generate(ExtractiveLLM(), "How many countries are listed?", [leave])
    assert "5 unused" not in count.text


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Is the office open on Whit Monday in Berlin?", "No"),
        ("Is the office open on Whit Monday in Bristol?", "Yes"),
        ("Ist das Büro am Pfingstmontag in Berlin geöffnet?", "Nein"),
    ],
)
def test_open_asked_of_a_holiday_cell_is_no(question, expected):
    holidays = ev(
        1,
        "Row 1 in Table 1: Date is Mon 24 May 2027, Holiday is Whit Monday (Pfingstmontag),"
        " Berlin is Public holiday, and Bristol is Normal day",
        "Offices and Public Holidays",
        "Public holidays",
    )
    (answer,) = generate(ExtractiveLLM(glossary=True), question, [holidays])
    assert answer.text.startswith(expected), answer.text
