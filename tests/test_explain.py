"""`Assistant.explain`: computed from the stored prompt, stored, reused, and optionally
computed in the background right after answering."""

from __future__ import annotations

import threading
import time

import pytest

from core.answer import build_messages
from core.assistant import Assistant, ConversationKey
from core.attribution import prompt_evidences
from core.conversation import ConversationStore
from core.db import upgrade
from core.extractive import ExtractiveLLM
from core.rephrase import OfflineCompleter
from tests.fakes.tiny_wiki import Wiki, build_wiki

KEY = ConversationKey("slack", "T1", "C1", "2000.1")
QUESTION = "Which BIOS did the Dell Optiplex 7040 have?"


class CountingLLM:
    """The extractive answerer, counting calls and optionally slowed down."""

    def __init__(self, delay_s: float = 0.0):
        self.inner = ExtractiveLLM()
        self.name = self.inner.name
        self.delay_s = delay_s
        self.calls = 0
        self._lock = threading.Lock()

    def complete(self, messages, **kwargs):
        with self._lock:
            self.calls += 1
        time.sleep(self.delay_s)
        return self.inner.complete(messages, **kwargs)


@pytest.fixture(scope="module")
def wiki(tmp_path_factory) -> Wiki:
    return build_wiki(tmp_path_factory.mktemp("wiki"))


def assistant_with(wiki: Wiki, folder, llm, **settings) -> Assistant:
    base, index, retriever = wiki
    url = f"sqlite:///{folder / 'state.sqlite'}"
    upgrade(url)
    return Assistant(
        base.replace(**settings),
        index,
        retriever,
        llm,
        OfflineCompleter(),
        ConversationStore(url),
    )


def test_explain_attributes_the_answer_to_its_source_and_stores_it(wiki, tmp_path):
    llm = CountingLLM()
    assistant = assistant_with(wiki, tmp_path, llm)
    turn = assistant.ask(KEY, QUESTION)
    assert "1.14.0" in turn.answer and llm.calls == 1
    explanation = assistant.explain(turn.id)
    top = explanation.top_evidence()
    assert top is not None and top in {c.number for c in turn.citations}
    assert turn.evidences[top - 1].evidence.page_id == "102"
    assert explanation.method == "counterfactual" and explanation.answer == turn.answer
    assert explanation.question == turn.completed_question
    calls = llm.calls
    assert calls == 1 + len(explanation.clusters)
    assert assistant.store.explanation(turn.id) == explanation.to_dict()
    again = assistant.explain(turn.id)
    assert again == explanation and llm.calls == calls  # stored, not recomputed


def test_the_stored_prompt_gives_back_the_evidences_exactly(wiki, tmp_path):
    assistant = assistant_with(wiki, tmp_path, ExtractiveLLM())
    turn = assistant.ask(KEY, QUESTION)
    record = assistant.turn_record(turn.id)
    question, evidences, numbers = prompt_evidences(record.messages["answer"], record.evidences)
    assert build_messages(question, evidences, numbers) == record.messages["answer"]
    assert [e.id for e in evidences] == [r.evidence.id for r in turn.evidences]
    assert [e.page_id for e in evidences] == [r.evidence.page_id for r in turn.evidences]
    with pytest.raises(ValueError, match="not an answer prompt"):
        prompt_evidences([{"role": "user", "content": "hello"}])


def test_the_method_comes_from_the_settings(wiki, tmp_path):
    llm = CountingLLM()
    assistant = assistant_with(wiki, tmp_path, llm, attribution_method="citation")
    turn = assistant.ask(KEY, QUESTION)
    explanation = assistant.explain(turn.id)
    assert explanation.method == "citation" and llm.calls == 1
    assert explanation.top_evidence() == turn.citations[0].number


def test_explaining_an_unknown_turn_fails(wiki, tmp_path):
    assistant = assistant_with(wiki, tmp_path, ExtractiveLLM())
    with pytest.raises(KeyError):
        assistant.explain(999)


def test_background_explanation_is_ready_when_asked(wiki, tmp_path):
    llm = CountingLLM()
    assistant = assistant_with(wiki, tmp_path, llm, explain_in_background=True)
    turn = assistant.ask(KEY, QUESTION)
    assistant.close()  # waits for the background work
    stored = assistant.store.explanation(turn.id)
    assert stored is not None and stored["method"] == "counterfactual"
    calls = llm.calls
    assert calls > 1
    explanation = assistant.explain(turn.id)
    assert llm.calls == calls and explanation.to_dict() == stored


def test_background_is_off_by_default(wiki, tmp_path):
    llm = CountingLLM()
    assistant = assistant_with(wiki, tmp_path, llm)
    assert assistant.settings.explain_in_background is False
    turn = assistant.ask(KEY, QUESTION)
    assistant.close()
    assert assistant.store.explanation(turn.id) is None and llm.calls == 1


def test_a_click_during_the_computation_waits_for_it(wiki, tmp_path):
    llm = CountingLLM(delay_s=0.05)
    assistant = assistant_with(wiki, tmp_path, llm)
    turn = assistant.ask(KEY, QUESTION)
    results = []
    threads = [
        threading.Thread(target=lambda: results.append(assistant.explain(turn.id)))
        for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 4 and all(r == results[0] for r in results)
    assert llm.calls == 1 + len(results[0].clusters)  # computed once
