"""Which span of the right page heads the answer (`core.spans`, through the offline
answerer): a numbered section heading is read as the heading of the lines under it, a
quoted label is no person, a table under a heading that names the asked people answers a
who question, a value that restates the question in translation is nothing new, and a line
announcing a list its evidence does not hold is no answer."""

from __future__ import annotations

import pytest

from core.answer import build_messages
from core.extractive import ExtractiveLLM
from core.questions import profile_question
from core.spans import opens_list, section_heading, typed_values, units
from tests.fakes.page_store import page_evidence


def ask(question: str, *evidences, translate=None) -> str:
    (text,) = ExtractiveLLM({}, translate).complete(build_messages(question, list(evidences)))
    return text


SETUP = page_evidence(
    1,
    "4.1) Successful installation of the client tools.\n"
    "a) Start the VM and open the tools CD.\n"
    "b) Accept all licenses and if required, install .NET 4.0.\n"
    "4.2) Add a USB device and test it.\n"
    "a) Within the VM, connect a USB device other than a DVD writer.",
    title="VM Setup",
)


@pytest.mark.parametrize(
    ("line", "title"),
    [
        (
            "4.2) Successful installation of XenClient Tools.",
            "Successful installation of XenClient Tools",
        ),
        ("2.3.1 Scope", "Scope"),
        ("1. Open the page.", ""),  # a list item's number has one level
        ("4.2) Install it. Then reboot.", ""),  # two sentences: no heading
        ("Version 4.2 is out.", ""),
    ],
)
def test_a_numbered_section_heading_is_told_from_other_lines(line, title):
    assert section_heading(line) == title


def test_the_lines_under_a_section_heading_read_it_as_their_heading():
    heading, first, *_ = units(SETUP.text)
    assert first.antecedent >= {"client", "success"} and not heading.antecedent


def test_a_version_question_gets_the_version_under_the_heading_not_its_number():
    text = ask(
        "What .NET version is needed for a successful installation of the client tools?", SETUP
    )
    assert "4.0" in text and "4.1" not in text


def test_a_how_to_question_that_restates_a_heading_gets_the_step_under_it():
    text = ask("How do I add a USB device and test it?", SETUP)
    assert text.startswith("a) Within the VM, connect a USB device")


TEAM = page_evidence(
    1,
    "Row 1 in Table 1: Column 1 is Kevin Pearson, and Column 2 is Carl Weissler",
    title="Platform Validation",
    heading="The team",
)
HOME = page_evidence(
    2,
    '- Manage permissions - Click "Space Tools" and select "Permissions" in the sidebar to'
    " manage what team members see",
    page="p2",
    title="Platform Validation",
)


def test_a_quoted_label_is_no_person():
    profile = profile_question("Who manages the permissions?")
    assert "Space Tools" not in typed_values("who", HOME.text, profile)
    assert typed_values("who", "Ask our Space Tools.", profile) == ["Space Tools"]


def test_a_table_of_names_under_the_asked_heading_answers_who():
    text = ask("Who are the members of the Platform Validation team?", TEAM, HOME)
    assert text.startswith("Kevin Pearson; Carl Weissler [1]")


def test_a_person_that_restates_the_question_in_translation_is_nothing_new():
    def translate(_: str) -> dict[str, list[str]]:
        return {"mitglieder": ["members"]}

    question = "Wer sind die Mitglieder des Teams?"
    profile = profile_question(question, (("mitglieder", ("members",)),))
    assert "team members" not in typed_values("who", HOME.text, profile)
    assert ask(question, TEAM, HOME, translate=translate).startswith("Kevin Pearson")


@pytest.mark.parametrize(
    ("line", "opens"),
    [
        ("The project includes a bunch of tools, like", True),
        ("Supported boards include, for example", True),
        ("Exit criteria:", True),
        ("Unterstützt werden Geräte wie", True),
        ("The tools work like a charm.", False),
    ],
)
def test_a_line_that_announces_a_list(line, opens):
    assert opens_list(line) is opens


TOOLS_INTRO = page_evidence(1, "The DIGImend project includes a bunch of HID tools, like")
TOOLS = page_evidence(
    2,
    "- usbhid-dump That dumps USB HID descriptors\n"
    "- hidrd That converts raw HID descriptors to human-readable code",
)


def test_a_list_intro_without_its_list_is_no_answer():
    text = ask("What does the hidrd tool of the DIGImend project do?", TOOLS_INTRO, TOOLS)
    assert text.startswith("Hidrd That converts raw HID descriptors to human-readable code [2]")


def test_a_list_intro_with_its_list_is_answered_with_the_items():
    both = page_evidence(1, f"{TOOLS_INTRO.text}\n{TOOLS.text}")
    text = ask("Which HID tools does the DIGImend project include?", both)
    assert "usbhid-dump" in text and "hidrd" in text
