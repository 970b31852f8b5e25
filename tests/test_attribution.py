"""Counterfactual attribution and its baselines on hand-built cases whose cause is known."""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest

from core.answer import OUT_OF_SCOPE, build_messages, cited_numbers, parse_prompt
from core.attribution import (
    ClusterShare,
    Explanation,
    attribute,
    citation_attribution,
    cluster_evidences,
    counterfactual_attribution,
    masked_softmax,
    naive_attribution,
)
from core.extractive import ExtractiveLLM
from core.llm import OpenAILLM
from core.pages import Evidence
from core.settings import Settings
from tests.fakes.evidence import make_evidence
from tests.fakes.hash_embedder import HashEmbedder
from tests.fakes.openai_server import FakeOpenAI

QUESTION = "What is the capital of France?"
CAUSE = "Paris is the capital of France."


def ev(number: int, text: str = "text", title: str = "Geography", heading: str = "") -> Evidence:
    return make_evidence(number, text, title, heading)


FILLER = [
    "Berlin has many museums and a large zoo.",
    "The Loire valley is known for its castles.",
    "Croissants are eaten for breakfast.",
    "The Rhine flows through Basel and Cologne.",
    "Tickets for the tower can be bought online.",
    "The metro runs until one in the morning.",
    "Lyon is famous for its food markets.",
    "The train from London takes two hours.",
    "Bordeaux produces red wine.",
]


class ScriptedLLM:
    """Answers "Paris [n]" when a source says Paris is the capital (citing the first such
    source), else the out-of-scope sentence: the answer depends on those sources only.
    Records the source numbers of every prompt and how many calls overlapped."""

    name = "scripted"

    def __init__(self, barrier: threading.Barrier | None = None):
        self.barrier = barrier
        self.prompts: list[list[int]] = []
        self.temperatures: list[float] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()

    def complete(self, messages, *, n=1, temperature=0.0, max_tokens=None):
        _, sources = parse_prompt(messages)
        with self._lock:
            self.prompts.append([s.number for s in sources])
            self.temperatures.append(temperature)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.barrier is not None:
                self.barrier.wait(timeout=10)
            cited = [s.number for s in sources if "capital" in s.text and "Paris" in s.text]
            text = f"The capital of France is Paris [{cited[0]}]." if cited else OUT_OF_SCOPE
            return [text] * n
        finally:
            with self._lock:
                self.in_flight -= 1


def evidences_with_cause_at(*positions: int) -> list[Evidence]:
    """Ten evidences: the causal one at each 1-based position, filler elsewhere."""
    filler = iter(FILLER)
    return [ev(i, CAUSE if i in positions else next(filler)) for i in range(1, 11)]


def answer_of(llm, evidences) -> str:
    return llm.complete(build_messages(QUESTION, evidences))[0]


# --------------------------------------------------------------------------- masked softmax
E2 = math.exp(2) / (math.exp(2) + 1)


@pytest.mark.parametrize(
    "scores, temperature, expected",
    [
        ([], 0.05, []),
        ([0.0, 0.0, 0.0], 0.05, [0.0, 0.0, 0.0]),
        ([0.4], 0.05, [1.0]),
        ([0.0, 0.3, 0.0], 0.05, [0.0, 1.0, 0.0]),
        ([0.1, 0.1], 0.05, [0.5, 0.5]),
        ([0.2, 0.1], 0.05, [E2, 1 - E2]),
        ([0.2, 0.0, 0.1], 0.05, [E2, 0.0, 1 - E2]),
        ([0.2, 0.1], 1e12, [0.5, 0.5]),
        ([1.0, 2.0], 1e-4, [0.0, 1.0]),  # no overflow at a tiny temperature
        ([1e-9, 0.0], 0.05, [1.0, 0.0]),  # tiny but not zero still counts
    ],
)
def test_masked_softmax(scores, temperature, expected):
    assert masked_softmax(scores, temperature) == pytest.approx(expected, abs=1e-12)


def test_masked_softmax_zero_stays_exactly_zero():
    shares = masked_softmax([0.5, 0.0, 0.01], 0.05)
    assert shares[1] == 0.0 and sum(shares) == pytest.approx(1.0)


@pytest.mark.parametrize("temperature", [0.0, -0.05])
def test_masked_softmax_needs_a_positive_temperature(temperature):
    with pytest.raises(ValueError, match="positive"):
        masked_softmax([0.1], temperature)


# --------------------------------------------------------------------------- clustering
def test_clustering_groups_duplicates_and_keeps_noise_as_singletons():
    vectors = HashEmbedder().embed(["a b c", "x y z", "a b c", "p q r", "x y z", "m n"])
    assert cluster_evidences(vectors, eps=0.005, min_samples=2) == [[0, 2], [1, 4], [3], [5]]


@pytest.mark.parametrize("count, expected", [(0, []), (1, [[0]])])
def test_clustering_of_zero_or_one_evidence(count, expected):
    assert cluster_evidences(np.ones((count, 4), dtype=np.float32), 0.005, 2) == expected


def test_near_but_not_identical_evidences_stay_apart_at_the_published_eps():
    vectors = HashEmbedder().embed(["a b c d e f g h", "a b c d e f g i"])
    assert cluster_evidences(vectors, eps=0.005, min_samples=2) == [[0], [1]]
    assert cluster_evidences(vectors, eps=0.5, min_samples=2) == [[0, 1]]


# --------------------------------------------------------------------------- counterfactual
def test_the_causal_evidence_gets_the_whole_share():
    llm = ScriptedLLM()
    evidences = evidences_with_cause_at(4)
    answer = answer_of(llm, evidences)
    out = counterfactual_attribution(llm, HashEmbedder(), QUESTION, evidences, answer)
    assert out.top_evidence() == 4
    top = out.clusters[0]
    assert top.evidences == [4] and top.share == 1.0 and top.score > 0
    assert top.counterfactuals == [OUT_OF_SCOPE]
    assert all(c.share == 0.0 and c.score == 0.0 for c in out.clusters[1:])
    assert out.lines()[0] == "Attributed 100.00% to cluster 4 [Evidence 4]"
    assert len(out.clusters) == 10 and out.timings["llm_calls"] == 10


def test_duplicates_of_the_cause_are_one_cluster_and_removed_together():
    llm = ScriptedLLM()
    evidences = evidences_with_cause_at(2, 7)
    answer = answer_of(llm, evidences)
    out = counterfactual_attribution(llm, HashEmbedder(), QUESTION, evidences, answer)
    top = out.clusters[0]
    assert top.evidences == [2, 7] and top.evidence_ids == ["e2", "e7"]
    assert top.share == 1.0 and out.top_evidence() == 2
    assert out.lines()[0] == "Attributed 100.00% to cluster 2 [Evidence 2, 7]"
    assert len(out.clusters) == 9 and len(llm.prompts) == 1 + 9
    # Without clustering each copy hides the other: removing the cited copy only moves the
    # citation to the other one (a small change), removing the other changes nothing.
    apart = counterfactual_attribution(
        llm, HashEmbedder(), QUESTION, evidences, answer, eps=1e-9, min_samples=3
    )
    assert len(apart.clusters) == 10
    assert apart.clusters[0].evidences == [2] and apart.clusters[0].share == 1.0
    assert apart.clusters[0].counterfactuals == ["The capital of France is Paris [7]."]
    assert 0 < apart.clusters[0].score < top.score


def test_counterfactual_prompts_keep_the_numbers_of_the_kept_evidences():
    llm = ScriptedLLM()
    evidences = evidences_with_cause_at(3)
    counterfactual_attribution(llm, HashEmbedder(), QUESTION, evidences, answer_of(llm, evidences))
    without_three = [p for p in llm.prompts if 3 not in p]
    assert without_three == [[1, 2, 4, 5, 6, 7, 8, 9, 10]]


def test_an_answer_nothing_changes_gets_no_attribution():
    llm = ScriptedLLM()
    evidences = [ev(i, FILLER[i - 1]) for i in range(1, 6)]
    out = counterfactual_attribution(llm, HashEmbedder(), QUESTION, evidences, OUT_OF_SCOPE)
    assert out.top_evidence() is None and all(c.share == 0 for c in out.clusters)
    assert out.lines() == [
        "No evidence changed the answer when it was removed: nothing to attribute."
    ]


@pytest.mark.parametrize("method", ["counterfactual", "naive", "citation"])
def test_no_evidence_no_attribution(method, tmp_path):
    settings = Settings.load(environ={"CONFBOT_DATA_DIR": str(tmp_path)})
    llm = ScriptedLLM()
    out = attribute(method, settings, llm, HashEmbedder(), QUESTION, [], OUT_OF_SCOPE)
    assert out.clusters == [] and out.top_evidence() is None and llm.prompts == []


def test_all_clusters_are_regenerated_at_once():
    barrier = threading.Barrier(10)  # every one of the 10 calls must be in flight together
    llm = ScriptedLLM(barrier)
    evidences = evidences_with_cause_at(5)
    out = counterfactual_attribution(llm, HashEmbedder(), QUESTION, evidences, "Paris [5]")
    assert llm.max_in_flight == 10 and not barrier.broken
    assert out.top_evidence() == 5


def test_the_worker_pool_is_bounded():
    llm = ScriptedLLM()
    evidences = evidences_with_cause_at(5)
    counterfactual_attribution(
        llm, HashEmbedder(), QUESTION, evidences, "Paris [5]", workers=3, samples=2
    )
    assert len(llm.prompts) == 20 and llm.max_in_flight <= 3


def test_monte_carlo_samples_one_call_each_at_the_sampling_temperature():
    llm = ScriptedLLM()
    evidences = evidences_with_cause_at(1)[:4]
    out = counterfactual_attribution(
        llm, HashEmbedder(), QUESTION, evidences, "Paris [1]", samples=3, sampling_temperature=0.7
    )
    assert len(llm.prompts) == 4 * 3 and set(llm.temperatures) == {0.7}
    assert all(len(c.counterfactuals) == 3 == len(c.similarities) for c in out.clusters)
    single = ScriptedLLM()
    counterfactual_attribution(single, HashEmbedder(), QUESTION, evidences, "Paris [1]")
    assert set(single.temperatures) == {0.0}
    with pytest.raises(ValueError, match="samples"):
        counterfactual_attribution(llm, HashEmbedder(), QUESTION, evidences, "x", samples=0)


def test_parallel_calls_against_a_real_chat_server():
    """The OpenAI client path: one request per cluster, all in flight at once (each reply
    waits until all ten requests have arrived)."""
    barrier = threading.Barrier(10)

    def responder(request):
        barrier.wait(timeout=10)
        user = request["messages"][-1]["content"]
        return "The capital of France is Paris." if CAUSE in user else OUT_OF_SCOPE

    with FakeOpenAI(responder) as server:
        llm = OpenAILLM(server.base_url, "fake-model", "sk-test", max_retries=0)
        evidences = evidences_with_cause_at(6)
        out = counterfactual_attribution(
            llm, HashEmbedder(), QUESTION, evidences, "The capital of France is Paris."
        )
        requests = server.chat_requests
    assert len(requests) == 10 and server.max_in_flight == 10 and not barrier.broken
    assert all(r.json["temperature"] == 0.0 and "n" not in r.json for r in requests)
    assert out.top_evidence() == 6 and out.clusters[0].share == 1.0


def test_follow_ups_in_regenerated_answers_are_not_a_change():
    """The stored answer has its follow-ups block cut off; so do the regenerated ones, so
    follow-ups that name the removed source do not make it look like a cause."""

    def responder(request):
        user = request["messages"][-1]["content"]
        answer = "The capital of France is Paris." if CAUSE in user else OUT_OF_SCOPE
        others = [line for line in user.split("\n") if line.startswith("[")]
        return f"{answer}\nFollow-ups:\n- What does {others[-1]} say?"

    with FakeOpenAI(responder) as server:
        llm = OpenAILLM(server.base_url, "fake-model", "sk-test", max_retries=0)
        out = counterfactual_attribution(
            llm,
            HashEmbedder(),
            QUESTION,
            evidences_with_cause_at(6),
            "The capital of France is Paris.",
        )
    assert out.top_evidence() == 6 and out.clusters[0].share == 1.0
    assert all("Follow-ups" not in text for c in out.clusters for text in c.counterfactuals)


def test_the_embedded_extractive_answerer_depends_on_its_source():
    evidences = [
        ev(1, "The metro runs until one in the morning.", "Transport"),
        ev(2, "The Eiffel tower is 330 metres tall.", "Landmarks"),
        ev(3, "Bordeaux produces red wine.", "Wine"),
    ]
    llm = ExtractiveLLM()
    question = "How tall is the Eiffel tower?"
    answer = llm.complete(build_messages(question, evidences))[0]
    assert "330" in answer
    out = counterfactual_attribution(llm, HashEmbedder(), question, evidences, answer)
    assert out.top_evidence() == 2 and out.clusters[0].share == 1.0


def test_removing_a_source_the_extractive_answer_does_not_cite_leaves_it_unchanged():
    """The embedded answerer reads each source on its own: no statistics over the other
    sources, no prior from positions that shift when one is left out."""
    question = "Which BIOS and TPM did the Dell Optiplex 7040 have in the OpenXT tests?"
    texts = [
        "The Dell Optiplex 7040 had BIOS 1.14.0.",
        "OpenXT tests ran on Dell and HP machines.",
        "The Dell Optiplex 9010 had TPM 1.2 in the OpenXT tests.",
        "Dell machines shipped with a TPM.",
        "The OpenXT tests passed on the Dell Optiplex 7040 with TPM 2.0.",
        "HP machines had BIOS updates.",
        "Tests of OpenXT used BIOS defaults.",
    ]
    evidences = [ev(i, text, "Tests") for i, text in enumerate(texts, start=1)]
    llm = ExtractiveLLM()
    answer = llm.complete(build_messages(question, evidences))[0]
    cited = set(cited_numbers(answer))
    assert cited and len(cited) < len(evidences)
    for left_out in range(1, len(evidences) + 1):
        kept = [e for e in evidences if e.position != left_out]
        numbers = [e.position for e in kept]
        again = llm.complete(build_messages(question, kept, numbers))[0]
        assert (again != answer) == (left_out in cited), left_out


# --------------------------------------------------------------------------- baselines
def test_naive_attribution_follows_similarity():
    evidences = [ev(1, FILLER[0]), ev(2, CAUSE), ev(3, FILLER[1])]
    out = naive_attribution(HashEmbedder(), QUESTION, evidences, "Paris is the capital [1].")
    assert out.method == "naive" and out.top_evidence() == 2
    assert sum(c.share for c in out.clusters) == pytest.approx(1.0)
    assert [c.evidences for c in out.clusters][0] == [2]
    assert all(c.counterfactuals == [] for c in out.clusters)


@pytest.mark.parametrize(
    "answer, top, shares",
    [
        ("A [3] and B [1].", 3, {3: 0.5, 1: 0.5, 2: 0.0}),
        ("A [2][2] and [9].", 2, {2: 1.0, 1: 0.0, 3: 0.0}),
        ("No citation.", None, {1: 0.0, 2: 0.0, 3: 0.0}),
    ],
)
def test_citation_attribution(answer, top, shares):
    evidences = [ev(i, FILLER[i]) for i in (1, 2, 3)]
    out = citation_attribution(QUESTION, evidences, answer)
    assert out.top_evidence() == top
    assert {c.evidences[0]: c.share for c in out.clusters} == shares
    if top is None:
        assert out.lines() == ["The answer cites no source."]


# --------------------------------------------------------------------------- plumbing
def test_explanation_round_trips_through_a_dict():
    out = Explanation(
        "counterfactual",
        "q",
        "a",
        [ClusterShare(1, [1, 2], ["e1", "e2"], 0.3, 0.6732, ["b"], [0.7])],
        {"eps": 0.005},
        {"total_ms": 1.0},
    )
    assert out.lines() == ["Attributed 67.32% to cluster 1 [Evidence 1, 2]"]
    assert Explanation.from_dict(out.to_dict()) == out


def test_attribute_reads_the_settings(tmp_path):
    settings = Settings.load(
        environ={
            "CONFBOT_DATA_DIR": str(tmp_path),
            "CONFBOT_ATTRIBUTION_SAMPLES": "2",
            "CONFBOT_ATTRIBUTION_TEMPERATURE": "0.1",
        }
    )
    assert settings.attribution_eps == 0.005 and settings.attribution_min_samples == 2
    llm = ScriptedLLM()
    evidences = evidences_with_cause_at(2)[:3]
    out = attribute(
        "counterfactual", settings, llm, HashEmbedder(), QUESTION, evidences, "Paris [2]"
    )
    assert out.params["samples"] == 2 and out.params["softmax_temperature"] == 0.1
    assert len(llm.prompts) == 6 and "total_ms" in out.timings
    with pytest.raises(ValueError, match="counterfactual, naive, citation"):
        attribute("shapley", settings, llm, HashEmbedder(), QUESTION, evidences, "x")
