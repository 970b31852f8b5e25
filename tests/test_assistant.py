"""The Assistant end to end on a tiny wiki: threads, follow-ups, the stored trace, feedback,
`/new`, and turn serialization per conversation."""

from __future__ import annotations

import threading

import pytest

from core.answer import build_messages
from core.assistant import Assistant, ConversationKey
from core.llm import OpenAILLM
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.tiny_wiki import Wiki, build_wiki, make_assistant


@pytest.fixture(scope="module")
def wiki(tmp_path_factory) -> Wiki:
    """The tiny wiki, indexed once for the module."""
    return build_wiki(tmp_path_factory.mktemp("wiki"))


@pytest.fixture
def assistant(wiki, tmp_path) -> Assistant:
    return make_assistant(wiki, tmp_path)


A = ConversationKey("slack", "T1", "C1", "1000.1")
B = ConversationKey("slack", "T1", "C1", "1000.2")


def top_page(turn) -> str:
    return turn.evidences[0].evidence.page_id


def test_follow_up_is_completed_from_its_own_thread(assistant):
    a1 = assistant.ask(A, "What does BATS stand for?")
    b1 = assistant.ask(B, "Which TPM version did the Dell Optiplex 7040 have?")
    a2 = assistant.ask(A, "Is it compliant with the Test Anything Protocol?")
    b2 = assistant.ask(B, "And the BIOS?")

    assert a1.completed_question == "What does BATS stand for?"
    assert "BATS" in a2.completed_question and "Optiplex" not in a2.completed_question
    assert "What does BATS stand for?" in a2.query and "Optiplex" not in a2.query
    assert "Optiplex" in b2.completed_question and "BATS" not in b2.completed_question
    assert [top_page(t) for t in (a1, b1, a2, b2)] == ["101", "102", "101", "102"]
    assert "1.14.0" in b2.answer.split("\n")[0]
    assert b2.citations and b2.citations[0].page_id == "102"


def test_turn_trace_is_stored(assistant):
    turn = assistant.ask(A, "Which Xen versions were used with Ubuntu?")
    record = assistant.turn_record(turn.id)
    assert record.question == turn.question and record.answer == turn.answer
    assert record.completed_question == turn.completed_question
    assert [e["id"] for e in record.evidences] == [r.evidence.id for r in turn.evidences]
    first = record.evidences[0]
    assert first["rank"] == 1 and set(first["ranks"]) == {"lexical", "dense"}
    assert first["page_id"] == "103" and first["url"].endswith("/pages/103/Xen")
    evidences = [r.evidence for r in turn.evidences]
    assert record.messages["answer"] == build_messages(turn.completed_question, evidences)
    assert record.messages["completion"] is None and record.messages["query"] == turn.query
    assert record.citations[0]["number"] == turn.citations[0].number
    assert record.model == "extractive" and record.out_of_scope is False
    for step in ("history_ms", "complete_ms", "retrieve_ms", "answer_ms", "total_ms"):
        assert record.timings[step] >= 0 and turn.timings[step] >= 0
    assert "retrieve.lexical_ms" in turn.timings and "store_ms" in turn.timings


def test_spaces_restrict_retrieval(assistant):
    turn = assistant.ask(A, "Which Xen versions were used with Ubuntu?", spaces={"TEST"})
    assert {r.evidence.space for r in turn.evidences} == {"TEST"}


def test_out_of_scope_question(assistant):
    turn = assistant.ask(A, "Who won the football world cup in 1954?")
    assert turn.out_of_scope and turn.citations == []


def test_feedback(assistant):
    turn = assistant.ask(A, "What does BATS stand for?")
    assistant.feedback(turn.id, "up", user="U1")
    assert [(f.value, f.user) for f in assistant.store.feedback(turn.id)] == [("up", "U1")]
    with pytest.raises(KeyError):
        assistant.feedback(10**6, "down")


def test_new_conversation_forgets_history(assistant):
    assistant.ask(A, "What does BATS stand for?")
    assert assistant.new_conversation(A) == 1
    turn = assistant.ask(A, "And the BIOS?")
    # nothing to follow: asked back, nothing searched, not guessed
    assert turn.clarification and turn.completed_question == "And the BIOS?"
    assert turn.answer == "BIOS of what? Please ask the whole question."
    assert turn.query == "" and turn.evidences == [] and turn.citations == []
    assert assistant.history(A) == []  # a clarification is no history for the next turn


def test_empty_question_is_refused(assistant):
    with pytest.raises(ValueError):
        assistant.ask(A, "   ")


def test_turns_of_one_conversation_never_interleave(wiki, tmp_path):
    """Two threads asking in one conversation are served one turn at a time (the slow LLM
    server never sees two of its requests at once); two conversations run side by side."""
    with FakeOpenAI(delay_s=0.25) as server:
        server.responder = lambda request: "Bash Automated Testing System [1]"
        llm = OpenAILLM(server.base_url, "fake-model", "k", max_retries=0)
        assistant = make_assistant(wiki, tmp_path, llm)

        def ask(key, question):
            assistant.ask(key, question)

        same = [
            # "take one", not "take 1": a numbered thing would be changed, not carried
            threading.Thread(target=ask, args=(A, f"What is BATS, take {n}?"))
            for n in ("one", "two", "three")
        ]
        for thread in same:
            thread.start()
        for thread in same:
            thread.join()
        assert server.max_in_flight == 1
        turns = assistant.store.turns(A)
        assert [t.position for t in turns] == [1, 2, 3]
        # each turn saw every turn before it as history
        assert [t.messages["query"].count("What is BATS") for t in turns] == [1, 2, 3]

        server.max_in_flight = 0
        other = [threading.Thread(target=ask, args=(key, "What is BATS?")) for key in (A, B)]
        for thread in other:
            thread.start()
        for thread in other:
            thread.join()
        assert server.max_in_flight == 2


BATS_ANSWER = "Bash Automated Testing System [1]"


def test_model_follow_ups_are_shown_when_in_scope(wiki, tmp_path):
    """With a model, the follow-ups it proposes in the answer call are cut off the answer,
    and shown only when retrieval can answer them."""
    reply = (
        f"{BATS_ANSWER}\n\nFollow-ups:\n- Is BATS compliant with the Test Anything Protocol?"
        "\n- Who won the football world cup in 1954?"
    )
    with FakeOpenAI(lambda request: reply) as server:
        llm = OpenAILLM(server.base_url, "fake-model", "k", max_retries=0)
        turn = make_assistant(wiki, tmp_path, llm).ask(A, "What does BATS stand for?")
        assert len(server.chat_requests) == 1  # the same call as the answer
    assert turn.answer == BATS_ANSWER and [c.number for c in turn.citations] == [1]
    assert turn.suggestions == ["Is BATS compliant with the Test Anything Protocol?"]
    record = make_assistant(wiki, tmp_path).turn_record(turn.id)
    assert record.answer == BATS_ANSWER and "Follow-ups" not in record.answer
    assert record.messages["suggestions"] == turn.suggestions
    assert record.messages["proposed_suggestions"] == [
        "Is BATS compliant with the Test Anything Protocol?",
        "Who won the football world cup in 1954?",
    ]


def test_out_of_scope_model_follow_ups_fall_back_to_the_page(wiki, tmp_path):
    """When every proposal fails the in-scope check (or none is proposed), the follow-ups
    come from the cited page's structure, as offline."""
    offline = make_assistant(wiki, tmp_path).ask(A, "What does BATS stand for?")
    assert offline.suggestions
    reply = f"{BATS_ANSWER}\nFollow-ups:\n- Who won the football world cup in 1954?"
    for thread, content in enumerate((reply, BATS_ANSWER)):
        key = ConversationKey("slack", "T1", "C1", f"2000.{thread}")
        with FakeOpenAI(lambda request, content=content: content) as server:
            llm = OpenAILLM(server.base_url, "fake-model", "k", max_retries=0)
            turn = make_assistant(wiki, tmp_path, llm).ask(key, "What does BATS stand for?")
        assert turn.answer == BATS_ANSWER
        assert turn.suggestions == offline.suggestions


def test_suggestions_left_out_of_the_answer_are_computed_once_later(assistant, wiki, tmp_path):
    """`ask(..., suggest=False)` answers without the follow-up searches; `suggest` then
    gives what `ask` would have given (with the model's proposals and the turn's spaces), and
    stores it, so a second call (or another replica) reads the same ones."""
    eager = assistant.ask(A, "What does BATS stand for?", spaces={"TEST"})
    searches = []
    search = assistant.retriever.search

    def counted(*args, **kwargs):
        searches.append(list(kwargs.get("spaces") or []))
        return search(*args, **kwargs)

    assistant.retriever.search = counted
    turn = assistant.ask(B, "What does BATS stand for?", spaces={"TEST"}, suggest=False)
    assert turn.suggestions == [] and turn.suggestions_pending
    assert len(searches) == 1 and "suggest_ms" not in turn.timings  # the answer's own search
    assert assistant.turn_record(turn.id).messages["suggestions"] is None

    assert assistant.suggest(turn.id) == eager.suggestions != []
    assert len(searches) > 1 and all(spaces == ["TEST"] for spaces in searches)
    assert assistant.turn_record(turn.id).messages["suggestions"] == eager.suggestions
    searched = len(searches)
    other = make_assistant(wiki, tmp_path)  # another replica on the same database
    assert other.suggest(turn.id) == eager.suggestions
    assert assistant.suggest(turn.id) == eager.suggestions and len(searches) == searched


def test_a_declined_answer_has_no_suggestions_to_compute(assistant):
    turn = assistant.ask(A, "Who won the football world cup in 1954?", suggest=False)
    assert turn.out_of_scope and not turn.suggestions_pending
    assert assistant.suggest(turn.id) == []
    with pytest.raises(KeyError):
        assistant.suggest(10**6)


def test_chit_chat_gets_the_help_text_and_is_no_context(assistant):
    hello = assistant.ask(A, "Hello!")
    assert hello.small_talk == "greeting" and hello.answer.startswith("Hi!")
    assert hello.evidences == [] and hello.citations == [] and not hello.out_of_scope
    assert "questions about the pages of the wiki" in hello.answer
    record = assistant.turn_record(hello.id)
    assert record.messages["small_talk"] == "greeting" and record.answer == hello.answer
    question = assistant.ask(A, "What does BATS stand for?")
    thanks = assistant.ask(A, "danke!")
    assert thanks.small_talk == "thanks" and thanks.answer.startswith("Gern geschehen!")
    follow_up = assistant.ask(A, "Is it compliant with the Test Anything Protocol?")
    assert question.query == question.completed_question == "What does BATS stand for?"
    assert "BATS" in follow_up.completed_question and "danke" not in follow_up.query
    assert "Hello" not in follow_up.query and top_page(follow_up) == "101"
    assistant.examples = ["Which TPM version did the Dell Optiplex 7040 have?"]
    assert "“Which TPM version did the Dell Optiplex 7040 have?”" in assistant.ask(B, "hi").answer


def test_a_question_that_starts_with_a_greeting_is_answered(assistant):
    turn = assistant.ask(A, "Hi, which BIOS did the Dell Optiplex 7040 have?")
    assert turn.small_talk is None and not turn.out_of_scope
    assert "1.14.0" in turn.answer and top_page(turn) == "102"


def test_misspelt_words_are_corrected_before_searching(assistant):
    turn = assistant.ask(A, "Which BIOS did the Dell Optiplx 7040 have?")
    assert turn.corrections == {"Optiplx": "Optiplex"}
    assert turn.question == "Which BIOS did the Dell Optiplx 7040 have?"
    assert turn.completed_question == "Which BIOS did the Dell Optiplex 7040 have?"
    assert "1.14.0" in turn.answer and top_page(turn) == "102"
    record = assistant.turn_record(turn.id)
    assert record.messages["spelling"] == {"Optiplx": "Optiplex"}
    follow_up = assistant.ask(A, "And the TPM?")
    assert "Optiplex" in follow_up.completed_question and "Optiplx" not in follow_up.query


def test_spelling_correction_can_be_turned_off(wiki, tmp_path):
    settings, index, retriever = wiki
    assistant = make_assistant(
        (settings.replace(correct_spelling=False), index, retriever), tmp_path
    )
    turn = assistant.ask(A, "Which BIOS did the Dell Optiplx 7040 have?")
    assert turn.corrections == {} and "Optiplx" in turn.completed_question


def test_confidence_is_stored_with_an_answer(assistant):
    answered = assistant.ask(A, "Which BIOS did the Dell Optiplex 7040 have?")
    confidence = assistant.turn_record(answered.id).messages["confidence"]
    assert 0 < confidence["support"] <= 1 and confidence["threshold"] >= 0
    declined = assistant.ask(B, "Who won the football world cup in 1954?")
    assert declined.out_of_scope
    assert assistant.turn_record(declined.id).messages["confidence"] is None
