"""What a question asks about that the wiki lacks: names it never mentions and numbered things
the evidence numbers only otherwise, in English and German questions, and the answerer's
declines on small evidences."""

from __future__ import annotations

import pytest

from core.answer import OUT_OF_SCOPE, generate
from core.extractive import ExtractiveLLM
from core.missing_subject import (
    absent_acronyms,
    absent_years,
    english_compound,
    numbered,
    other_numbers,
    unknown_names,
)
from tests.fakes.evidence import make_evidence

WIKI = {
    "openxt",
    "install",
    "installing",
    "installation",
    "windows",
    "guest",
    "guests",
    "driver",
    "certificate",
    "hosts",
    "managed",
    "measurement",
    "version",
    "virtual",
    "box",
    "berlin",
    "office",
    "archive",
}


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("How do I install OpenXT on a Chromebook?", ["chromebook"]),
        ("Can OpenXT hosts be managed from VMware vSphere?", ["vmware", "vsphere"]),
        ("Which VirtualBox version can run OpenXT?", ["virtualbox"]),
        ("What time is it in Tokyo right now?", ["tokyo"]),
        ("What's Apple's share price?", ["apple"]),
        # German capitalizes every noun: only names written as names count there, and
        # words glued from English words (`test_a_german_question_names_a_product_...`)
        ("Lassen sich OpenXT-Hosts über VMware vSphere verwalten?", ["vmware", "vsphere"]),
        ("Welche VirtualBox-Version kann OpenXT ausführen?", ["virtualbox"]),
        ("Wie installiere ich OpenXT auf dem Tablet?", []),
    ],
)
def test_names_the_wiki_never_mentions(question, names):
    assert unknown_names(question, WIKI) == names


@pytest.mark.parametrize(
    "question",
    [
        "How do I install OpenXT in the Berlin office?",  # names the wiki has
        "Chromebook support: is there any?",  # the first word opens the sentence
        "Did the OpenXT 9.0 Measuremnt test pass?",  # a typo of a wiki word
        "Which guests run on OpenXT? (context: Chromebook)",  # carried context is not asked
        "And Windows? — following up on “Does OpenXT run on a Chromebook?”",
        "Why archive the RCs?",  # the plural of a wiki word ("rc")
        "Does OpenXT support AWS?",  # an acronym may be spelt out on the page
    ],
)
def test_no_unknown_name(question):
    assert unknown_names(question, WIKI) == []


def test_numbered_things_of_a_text():
    assert numbered("OpenXT 9.0.2 on Windows 10", versions=False) == {"windows": {"10"}}
    assert numbered("OpenXT 9.0.2 on Windows 10, week-3 and rc2; July 23, 2015") == {
        "openxt": {"9"},
        "windows": {"10"},
        "week": {"3"},
        "rc": {"2"},
    }


def test_a_numbered_thing_the_evidence_numbers_only_otherwise():
    pages = ["Windows 7 and Windows 10 guests are supported.", "OpenXT 9.0 release notes"]
    assert other_numbers("Does OpenXT support Windows 11 guests?", pages) == ["windows 11"]
    assert other_numbers("Unterstützt OpenXT Windows-11-Gäste?", pages) == ["windows 11"]
    assert other_numbers("Wann erscheint OpenXT 12?", pages) == ["openxt 12"]
    # the asked member is there, or the series is not numbered in the evidence at all
    assert other_numbers("Does OpenXT support Windows 10 guests?", pages) == []
    assert other_numbers("Who is on call in Woche 3?", ["Week 1: Ana; Week 2: Ben"]) == []
    assert other_numbers("When is the 9.0.2 release?", pages) == []
    # an asked version is judged by its leading number ("Ubuntu 24.04" among 18.04 and
    # 16.10), but not in a completed follow-up, which may carry another item's version
    ubuntu = ["Ubuntu 18.04 and Ubuntu 16.10 guests were tested."]
    assert other_numbers("Does OpenXT support Ubuntu 24.04 desktops?", ubuntu) == ["ubuntu 24"]
    assert other_numbers("Unterstützt OpenXT Ubuntu-24.04-Desktops?", ubuntu) == ["ubuntu 24"]
    assert other_numbers("Does OpenXT support Ubuntu 16.04 desktops?", ubuntu) == []
    assert other_numbers("Fedora 16.10? (context: first steps, guest, Ubuntu 16.10)", pages) == []


def ask(question: str, llm: ExtractiveLLM, evidences) -> str:
    (answer,) = generate(llm, question, evidences)
    return answer.text


INSTALL = [
    make_evidence(
        1,
        "Follow the instruction for installing the Windows driver certificate before running"
        " the installation of OpenXT on Windows.",
        "Installing OpenXT",
    )
]
GUESTS = [
    make_evidence(
        1, "OpenXT supports Windows 7 and Windows 10 guests with the PV drivers.", "Guests"
    )
]


def test_a_question_about_a_name_the_wiki_lacks_is_declined_at_any_support():
    """The installation sentence holds "install" and "OpenXT", most of the question, but
    says nothing about Chromebooks; the same question about Windows is answered."""
    vocabulary = set(WIKI) | {"follow", "instruction", "before", "running"}
    llm = ExtractiveLLM(vocabulary=lambda: vocabulary)
    assert ask("How do I install OpenXT on a Chromebook?", llm, INSTALL) == OUT_OF_SCOPE
    assert ask("How do I install OpenXT on Windows?", llm, INSTALL) != OUT_OF_SCOPE
    german = ExtractiveLLM({"de": 0.0}, vocabulary=lambda: vocabulary, glossary=True)
    assert ask("Wie installiere ich OpenXT unter VMware vSphere?", german, INSTALL) == (
        OUT_OF_SCOPE
    )


@pytest.mark.parametrize(
    ("question", "declined"),
    [
        ("Does OpenXT support Windows 11 guests?", True),
        ("Unterstützt OpenXT Windows-11-Gäste?", True),
        ("Does OpenXT support Windows 10 guests?", False),
        ("Unterstützt OpenXT Windows-10-Gäste?", False),
    ],
)
def test_a_numbered_thing_the_evidence_lacks_is_declined(question, declined):
    """The guests page numbers Windows 7 and 10: a question about Windows 11 would get
    "Yes" from it."""
    llm = ExtractiveLLM({"de": 0.0})
    assert (ask(question, llm, GUESTS) == OUT_OF_SCOPE) is declined


def test_a_thing_named_by_a_year_the_evidence_never_mentions():
    pages = ["Slides of the OpenXT Summit 2016 are online.", "The 2019 release notes."]
    assert absent_years("Where will the OpenXT Summit 2025 take place?", pages) == ["summit 2025"]
    assert absent_years("Wo findet der OpenXT Summit 2025 statt?", pages) == ["summit 2025"]
    assert absent_years("Where did the OpenXT Summit 2016 take place?", pages) == []
    # a date or a period is no name: left to retrieval's date matching
    for question in (
        "Which issues were reported in March 2023?",
        "What was used before 2012?",
        "Was wurde vor 2012 verwendet?",
        "Was ist seit 2012 anders?",
        "Was passierte im Jahr 2031?",
        "Which issues did we see in the summer 2024?",
    ):
        assert absent_years(question, pages) == [], question
    # a follow-up's carried topic is not asked
    assert absent_years("And the slides? (context: summit 2025)", pages) == []


def test_a_summit_of_another_year_is_declined():
    evidences = [make_evidence(1, "Slides of the OpenXT Summit 2016 are online.", "OpenXT Summit")]
    llm = ExtractiveLLM()
    assert ask("Where will the OpenXT Summit 2025 take place?", llm, evidences) == OUT_OF_SCOPE
    assert ask("Wo findet der OpenXT Summit 2025 statt?", llm, evidences) == OUT_OF_SCOPE
    assert ask("Where were the slides of the OpenXT Summit 2016?", llm, evidences) != OUT_OF_SCOPE


SUPPORT_PAGES = [
    "Premium customers get a reply within one hour.",
    "OpenXT support: the Service Level Agreement for premium customers.",
]


def test_an_acronym_the_wiki_neither_uses_nor_spells_out():
    known = WIKI | {"premium", "customers", "support", "qemu"}
    pages = SUPPORT_PAGES[:1]
    assert absent_acronyms("What does the premium support SLA promise?", known, pages) == ["sla"]
    assert absent_acronyms("Was garantiert das Premium-Support-SLA?", known, pages) == ["sla"]
    assert absent_acronyms("Wo steht die DSGVO-Löschfrist?", known, pages) == ["dsgvo"]
    assert absent_acronyms("Where are the SLAs?", known, pages) == ["sla"]
    # the evidence spells it out, the wiki uses it, or it is no acronym
    assert absent_acronyms("What does the SLA promise?", known, SUPPORT_PAGES) == []
    assert absent_acronyms("Which QEMU version runs?", known, pages) == []
    assert absent_acronyms("Which VM OS runs on HP machines?", known, pages) == []
    assert absent_acronyms("WHAT is NOT supported?", known, pages) == []
    assert absent_acronyms("Welche NUTZBARE Auflösung?", known, pages) == []
    assert absent_acronyms("And the reply time? (context: SLA)", known, pages) == []


@pytest.mark.parametrize(
    "question",
    ["How fast does the premium support SLA reply?", "Wie schnell antwortet das Premium-SLA?"],
)
def test_a_question_about_an_acronym_the_wiki_lacks_is_declined(question):
    """The reply-time sentence holds "premium", "support" and "reply", but the wiki has no
    SLA; a wiki with an SLA page answers the same question."""
    words = {"premium", "support", "customers", "get", "reply", "within", "one", "hour", "fast"}
    llm = ExtractiveLLM({"de": 0.0}, vocabulary=lambda: WIKI | words, glossary=True)
    replies = make_evidence(1, "Premium support customers get a reply within one hour.", "Support")
    assert ask(question, llm, [replies]) == OUT_OF_SCOPE
    with_sla = ExtractiveLLM({"de": 0.0}, vocabulary=lambda: WIKI | words | {"sla"}, glossary=True)
    sla = make_evidence(1, "Premium support SLA: customers get a fast reply within an hour.", "SLA")
    assert ask(question, with_sla, [sla]) != OUT_OF_SCOPE


def test_a_place_german_names_otherwise_is_the_wikis_name():
    known = {"hotel", "limit", "munich", "cologne", "berlin"}
    assert unknown_names("Wie hoch ist das Hotellimit in München?", known) == []
    assert unknown_names("Wie hoch ist das Hotellimit in Köln?", known) == []
    # an English question names places in English
    assert unknown_names("What is the hotel limit in Vienna?", known) == ["vienna"]


def test_a_german_question_names_a_product_glued_from_english_words():
    """German capitalizes every noun, so a capital does not tell a name there; a word glued
    from two English words that is a word of neither language is one ("Chromebook"), as
    the capitalized word of the English question is, and the wiki lacks it."""
    question = "Wie installiere ich OpenXT auf einem Chromebook?"
    assert unknown_names(question, WIKI) == ["chromebook"]
    assert unknown_names("How do I install OpenXT on a Chromebook?", WIKI) == ["chromebook"]
    assert unknown_names(question, WIKI | {"chromebook"}) == []
    # German words and compounds of them are no names, nor is an English compound that
    # opens the question
    assert unknown_names("Wie richte ich das Netzwerk auf der Homepage ein?", WIKI) == []
    assert unknown_names("Chromebook: wie installiere ich OpenXT?", WIKI) == []
    evidence = make_evidence(1, "Installing OpenXT on a laptop: boot the installer.", "Install")
    llm = ExtractiveLLM({"de": 0.0}, vocabulary=lambda: WIKI | {"laptop", "boot"}, glossary=True)
    assert ask(question, llm, [evidence]) == OUT_OF_SCOPE
    # the wiki that names it answers
    named = ExtractiveLLM({"de": 0.0}, vocabulary=lambda: WIKI | {"chromebook"}, glossary=True)
    installing = "Installing OpenXT on a Chromebook: boot the installer."
    chromebook = make_evidence(1, installing, "Install")
    assert ask(question, named, [chromebook]) != OUT_OF_SCOPE


def test_a_german_question_names_an_english_name_by_its_words():
    """Capitalized words in a row with an English word among them are an English name taken
    over into the German question ("Mount Everest"): its words are read as the English
    question's, and the one the wiki lacks declines it; German nouns beside such a name and
    an acronym ("HID Deskriptoren") make no name."""
    wiki = WIKI | {"mount", "mounted", "community", "call", "business", "class", "descriptors"}
    wiki |= {"december", "attended"}
    question = "Wie hoch ist der Mount Everest?"
    assert unknown_names(question, wiki) == ["everest"]
    assert unknown_names("How high is Mount Everest?", wiki) == ["everest"]
    assert unknown_names(question, wiki | {"everest"}) == []
    assert unknown_names("Wer hat am Community Call im Dezember teilgenommen?", wiki) == []
    assert unknown_names("Darf ich über sechs Stunden Business Class buchen?", wiki) == []
    assert unknown_names("Wie werden HID Deskriptoren geparst?", wiki) == []
    llm = ExtractiveLLM({"de": 0.0}, vocabulary=lambda: wiki, glossary=True)
    mounted = make_evidence(1, "The disk is mounted in two different places.", "Disks")
    assert ask(question, llm, [mounted]) == OUT_OF_SCOPE
    # the German question about a name the wiki has is answered
    calls = make_evidence(1, "Rich Persaud attended the Community Call in December.", "Calls")
    asked = "Wer hat am Community Call im Dezember teilgenommen?"
    assert ask(asked, llm, [calls]) != OUT_OF_SCOPE


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("Chromebook", True),
        ("Salesforce", True),
        ("Netzwerk", False),  # a German word
        ("Homepage", False),  # a word of the English dictionary
        ("Kubernetes", False),  # no two English words
        ("BigQuery", False),  # no letters-only word in one case
        ("Zugriffsliste", False),
    ],
)
def test_english_compound(word, expected):
    assert english_compound(word) is expected
