"""Tiny, randomly initialised XLM-RoBERTa models saved to local folders, for BGE tests.

The real BGE-M3 and BGE re-ranker weights are gigabytes and live on a model hub the tests
cannot reach. These builders write folders with the same layout (`config.json`,
`model.safetensors`, `tokenizer.json`, `tokenizer_config.json`, and for BGE-M3 also
`colbert_linear.pt` and `sparse_linear.pt`), so the real FlagEmbedding loaders run on them
unchanged. The vectors and scores mean nothing; they are only deterministic (each builder
seeds its own random stream and leaves the global one alone).

    build_m3(tmp / "bge-m3")             # for BGEM3FlagModel / core.embeddings.BGEM3Embedder
    build_reranker(tmp / "reranker")     # for FlagReranker / core.retrieve.Reranker

Needs the `bge` extra (torch, transformers, tokenizers).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import torch
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
from transformers import (
    PreTrainedTokenizerFast,
    XLMRobertaConfig,
    XLMRobertaForSequenceClassification,
    XLMRobertaModel,
)

# XLM-R's special tokens at XLM-R's ids: <s>=0, <pad>=1, </s>=2, <unk>=3 (then <mask>).
SPECIAL_TOKENS = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]

# Words the tests use; anything else becomes <unk>.
CORPUS = [
    "Release notes 9.0.2: version 9.0.2 fixes OXT-1654 in the USB passthrough.",
    "Upgrade from 8.0.1 is supported.",
    "Travel policy: the board approves travel above 2000 euros.",
    "Hotels are booked by the office.",
    "Which version fixes the USB passthrough? Who approves travel?",
    "Welche Version behebt den Fehler? Wer genehmigt Reisen?",
    "the quick brown fox jumps over the lazy dog",
]

HIDDEN_SIZE = 32


def build_tokenizer(corpus: Iterable[str] = CORPUS) -> PreTrainedTokenizerFast:
    """A lower-casing word-level tokenizer trained on `corpus`, with XLM-R's special tokens
    and its pair template (`<s> A </s></s> B </s>`)."""
    tokenizer = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.train_from_iterator(corpus, trainers.WordLevelTrainer(special_tokens=SPECIAL_TOKENS))
    assert [tokenizer.token_to_id(t) for t in SPECIAL_TOKENS[:4]] == [0, 1, 2, 3]
    tokenizer.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0))
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        bos_token="<s>",
        eos_token="</s>",
        sep_token="</s>",
        cls_token="<s>",
        pad_token="<pad>",
        unk_token="<unk>",
        mask_token="<mask>",
        model_max_length=512,
    )


def tiny_config(vocab_size: int, **extra) -> XLMRobertaConfig:
    """XLM-RoBERTa shrunk to 2 layers of width 32 (BGE-M3 is 24 layers of width 1024).

    514 positions as in XLM-R (512 tokens plus the padding offset). The wider initialisation
    (0.2 instead of 0.02) spreads the random outputs, so different texts differ clearly.
    """
    return XLMRobertaConfig(
        vocab_size=vocab_size,
        hidden_size=HIDDEN_SIZE,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=514,
        initializer_range=0.2,
        pad_token_id=1,
        bos_token_id=0,
        eos_token_id=2,
        **extra,
    )


def build_m3(folder: Path, seed: int = 0) -> Path:
    """A BGE-M3-shaped folder: encoder, tokenizer, and the ColBERT (hidden -> hidden) and
    sparse (hidden -> 1) heads that FlagEmbedding's M3 runner loads beside the encoder."""
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer = build_tokenizer()
    tokenizer.save_pretrained(folder)
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        XLMRobertaModel(tiny_config(len(tokenizer))).save_pretrained(folder)
        colbert = torch.nn.Linear(HIDDEN_SIZE, HIDDEN_SIZE)
        sparse = torch.nn.Linear(HIDDEN_SIZE, 1)
    torch.save(colbert.state_dict(), folder / "colbert_linear.pt")
    torch.save(sparse.state_dict(), folder / "sparse_linear.pt")
    return folder


def build_reranker(folder: Path, seed: int = 1) -> Path:
    """A BGE-reranker-shaped folder: a cross-encoder with one output logit, and the tokenizer."""
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer = build_tokenizer()
    tokenizer.save_pretrained(folder)
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        model = XLMRobertaForSequenceClassification(tiny_config(len(tokenizer), num_labels=1))
    model.save_pretrained(folder)
    return folder
