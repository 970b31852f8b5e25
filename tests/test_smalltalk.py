"""Chit-chat told apart from questions (EN/DE), and the help text it gets."""

from __future__ import annotations

import pytest

from core.smalltalk import GENERIC_EXAMPLES, SmallTalk, help_text, small_talk


@pytest.mark.parametrize(
    ("text", "kind", "language"),
    [
        ("hi", "greeting", "en"),
        ("Hello!", "greeting", "en"),
        ("hey confbot :wave:", "greeting", "en"),
        ("<@U024BE7LH> hello", "greeting", "en"),
        ("Good morning", "greeting", "en"),
        ("thanks!", "thanks", "en"),
        ("Thank you so much 🙏", "thanks", "en"),
        ("ok thanks", "thanks", "en"),
        ("Thanks, that helps!", "thanks", "en"),
        ("Who are you?", "who", "en"),
        ("What's your name?", "who", "en"),
        ("What can you do?", "help", "en"),
        ("help", "help", "en"),
        ("Hi, what can you do?", "help", "en"),
        ("Tell me a joke", "joke", "en"),
        ("How are you?", "wellbeing", "en"),
        ("hello, how are you doing?", "wellbeing", "en"),
        ("bye!", "bye", "en"),
        ("Hallo", "greeting", "de"),
        ("Hallo zusammen", "greeting", "de"),
        ("Guten Morgen!", "greeting", "de"),
        ("danke", "thanks", "de"),
        ("Vielen Dank!", "thanks", "de"),
        ("Danke, das hat geholfen.", "thanks", "de"),
        ("Wer bist du?", "who", "de"),
        ("Was kannst du?", "help", "de"),
        ("Kannst du mir helfen?", "help", "de"),
        ("Erzähl mir einen Witz", "joke", "de"),
        ("Wie geht es dir?", "wellbeing", "de"),
        ("Guten Morgen, wie geht's?", "wellbeing", "de"),
        ("Tschüss", "bye", "de"),
    ],
)
def test_chit_chat(text, kind, language):
    assert small_talk(text) == SmallTalk(kind, language)


@pytest.mark.parametrize(
    "text",
    [
        "Hi, who leads the Payments team?",
        "Hello, what is the hotel limit in London?",
        "Thanks, and in Berlin?",
        "thanks - what about the UK?",
        "Help with the VPN on Linux?",
        "What can you tell me about the release freeze?",
        "Who are the members of the SRE team?",
        "How are releases approved?",
        "Tell me about the on-call allowance",
        "How does it work?",  # a follow-up about the topic before
        "How do I use this?",
        "Tell me a joke about Kubernetes",
        "What is the weather in Berlin tomorrow?",
        "test matrix for OpenXT 9.0?",
        "Hallo, wie viele Urlaubstage habe ich?",
        "Danke! Und in Bristol?",
        "Wer ist der Ansprechpartner für das VPN?",
        "Was kann ich tun, wenn UDP blockiert ist?",
        "hi " * 13,
        "",
        "?!",
    ],
)
def test_questions_are_not_chit_chat(text):
    assert small_talk(text) is None


def test_help_text_quotes_an_example_in_the_language_asked():
    examples = ["Who covers on-call in week 3?", "Wie viele Urlaubstage gibt es in Deutschland?"]
    english = help_text(SmallTalk("greeting", "en"), examples)
    assert english.startswith("Hi!") and "questions about the pages of the wiki" in english
    assert "“Who covers on-call in week 3?”" in english
    german = help_text(SmallTalk("thanks", "de"), examples)
    assert german.startswith("Gern geschehen!") and "Fragen zu den Seiten des Wikis" in german
    assert "„Wie viele Urlaubstage gibt es in Deutschland?“" in german


@pytest.mark.parametrize("language", ["en", "de"])
def test_help_text_falls_back_to_a_generic_example(language):
    text = help_text(SmallTalk("help", language))
    assert GENERIC_EXAMPLES[language] in text
    assert text.startswith(("I answer", "Ich beantworte"))
