"""The LM as a word ranker and as the gate's judge, built on :mod:`baselines.lm_scorer`.

One question, many candidate words (the subtask's answer vocabulary in the gold's form, plus the
readers' pool). Scoring every word as a full filled summary costs one continuation per word (minutes
per question on a CPU), so the LM works in two stages, for each of two contexts (the article's first
``article_tokens`` tokens + separator, and the separator alone = options-only):

1. **Shortlist.** One forward pass over the context followed by the summary's words before
   ``@placeholder`` gives the next-token distribution at the blank; each word is scored by the
   log-probability of its first token. The ``top`` best words of each context are short-listed.
2. **Exact.** The short-listed words, and the words that must be scored (the gold, the readers'
   pool), are filled into the rest of the summary and scored exactly on the KV cache of that same
   pass, shared by all continuations (as :func:`baselines.lm_scorer.score_batch` does).

The exact score of a word is the log-likelihood of the summary's tokens from the blank on, given the
context and the words before the blank. It differs from the quality report's
:func:`~baselines.lm_scorer.option_logprobs` (the whole filled summary) by the log-likelihood of the
words before the blank, which is the same for every word: both rank words identically (a test
checks it on the real model).

**The window** (``window``, scoring rule ``blank-window-3``; stated in docs/results/2026-11-25-options-xsum1k-window6.md before it was
measured). The gate scores each word on the word and the next ``window`` whitespace-separated words of
the summary only (:data:`WINDOW`), not on the whole rest of the summary: the continuations are most of
the LM's cost, and a word's fit to the blank's slot is decided by the words beside it. ``None`` scores
to the end of the summary (the rule above, which the quality report and the distractor benchmark keep).

The LM's ranking of the vocabulary (for MRR / Recall@k) is the two stages in order: the short-listed
words by exact score, then every other word by its first-token score.
"""

import copy
import hashlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import torch
from tqdm import tqdm

from baselines.lm_scorer import LoadedLM, _pad, _token_logprobs, encode_context, pad_id
from datagen.options.build import Candidate
from datagen.options.retrieval import Ranked
from recam.records import PLACEHOLDER

CHUNK = 48  # continuations per forward pass on the shared context (one row each, repeated cache)
PACK = 24  # continuations side by side in one row on the shared context (packed path)
TOP = 10  # short-listed words per context: the paper's "top-10 words predicted by each model"
OPEN_SCAN = 400  # next-token candidates read for open-vocabulary words (the options-only LM's best)
VERSION = "blank-window-3"  # part of every cache key: a new scoring rule never reads old scores
WINDOW = (
    6  # words after the blank the gate's exact scores read (None: to its end); chosen by the cost rule of
)
# docs/results/2026-11-25-options-xsum1k-window6.md from benchmark (h), bench/results/h_lm_window.json


@dataclass(frozen=True)
class BlankScores:
    article: dict[str, float]  # exact log-likelihood with the article, every scored word
    options_only: dict[str, float]  # exact log-likelihood without the article, the same words
    ranking: list[str]  # every word, the LM's two-stage order with the article
    proposed: list[str]  # the short-listed words that were not required (the LM's pool)


def split_at_blank(question: str, *, window: int | None = None) -> tuple[str, str]:
    """(text after the separator, continuation format with ``{}`` for the word).

    The two encode to the same tokens as ``" " + question`` filled (the form the LM reader scores):
    the word keeps the space before it, so byte-level BPE splits the same way. ``window``: the
    continuation ends after that many whitespace-separated words of the text after the blank (None:
    the whole text; 0: the word alone); what is glued to the blank (``'s``, a comma) stays with it.
    """
    if PLACEHOLDER not in question:
        raise ValueError(f"question {question[:60]!r} has no {PLACEHOLDER}")
    if window is not None and window < 0:
        raise ValueError(f"the window must be 0 or more words, got {window}")
    head, tail = question.split(PLACEHOLDER, 1)
    if window is not None:  # what is glued to the blank ("'s", ",") stays with the word
        glued = re.match(r"\S*", tail).end()
        ends = [glued] + [glued + m.end() for m in re.finditer(r"\S+", tail[glued:])]
        tail = tail[: ends[min(window, len(ends) - 1)]]
    tail = tail.replace("{", "{{").replace("}", "}}")
    if not head.strip():
        return "", " {}" + tail
    if head.endswith(" "):
        return " " + head.rstrip(" "), " {}" + tail
    return " " + head, "{}" + tail


def _context(lm: LoadedLM, *, article: str, head: str, with_article: bool, article_tokens: int) -> list[int]:
    ids = encode_context(
        lm.tokenizer, article=article, article_tokens=article_tokens, with_article=with_article
    )
    return ids + (lm.tokenizer.encode(head, add_special_tokens=False) if head else [])


def _encode_context(lm: LoadedLM, context: list[int]):
    """One forward pass: the context's KV cache and the next-token log-probabilities at the blank."""
    ids = torch.tensor([context], device=lm.model.device)  # Shape: (1, context_len)
    out = lm.model(input_ids=ids, use_cache=True, logits_to_keep=1)
    return out.past_key_values, torch.log_softmax(out.logits[0, -1].float(), dim=-1)  # Shape: (vocab,)


def _packable(model) -> bool:
    """Whether continuations can share one row under a custom 4D mask: an attention implementation that
    takes such a mask, and no sliding-window layer (whose cache and mask the packed row would bypass)."""
    config = model.config
    if getattr(config, "_attn_implementation", None) not in ("sdpa", "eager"):
        return False
    if getattr(config, "sliding_window", None) is not None:
        return False
    return all(kind == "full_attention" for kind in (getattr(config, "layer_types", None) or ()))


def _packed_mask(lengths: Sequence[int], *, context_len: int, device, dtype, eager: bool) -> torch.Tensor:
    """(1, 1, T, context_len + T) for T = sum(lengths): every token sees the whole context and the
    earlier tokens of its own continuation only (the continuations are side by side in one row)."""
    owner = torch.repeat_interleave(
        torch.arange(len(lengths), device=device), torch.tensor(lengths, device=device)
    )
    step = torch.arange(len(owner), device=device)
    own = (owner[:, None] == owner[None, :]) & (step[:, None] >= step[None, :])
    seen = torch.cat([torch.ones((len(owner), context_len), dtype=torch.bool, device=device), own], 1)
    if eager:  # eager attention adds the mask to the scores
        return torch.zeros(seen.shape, dtype=dtype, device=device).masked_fill(~seen, torch.finfo(dtype).min)[
            None, None
        ]
    return seen[None, None]


def _exact_packed(
    lm: LoadedLM, *, cache, first_logp: torch.Tensor, context_len: int, continuations
) -> list[float]:
    """:func:`_exact` with up to ``PACK`` continuations side by side in one row on the unrepeated cache:
    no copy of the context's cache per continuation; the cache is cropped back after each pack."""
    model, device = lm.model, lm.model.device
    eager = model.config._attn_implementation == "eager"
    found: list[float] = []
    for start in range(0, len(continuations), PACK):
        part = continuations[start : start + PACK]
        lengths = [len(cont) for cont in part]
        total = sum(lengths)
        ids = torch.tensor([[t for cont in part for t in cont]], device=device)  # Shape: (1, T)
        offsets = torch.cat([torch.arange(n, device=device) for n in lengths])
        hidden = model.get_decoder()(
            input_ids=ids,
            attention_mask=_packed_mask(
                lengths, context_len=context_len, device=device, dtype=model.dtype, eager=eager
            ),
            position_ids=(context_len + offsets)[None, :],
            past_key_values=cache,
            use_cache=True,
        ).last_hidden_state[0]  # Shape: (T, hidden)
        cache.crop(-total)  # back to the context alone for the next pack
        owner = torch.repeat_interleave(
            torch.arange(len(part), device=device), torch.tensor(lengths, device=device)
        )
        starts = torch.tensor([0, *lengths[:-1]], device=device).cumsum(0)
        totals = first_logp[ids[0, starts]]
        inner = offsets + 1 < torch.tensor(lengths, device=device)[owner]  # tokens that predict a next one
        rows = torch.nonzero(inner)[:, 0]
        if len(rows):
            totals = totals.index_add(0, owner[rows], _token_logprobs(model, hidden[rows], ids[0, rows + 1]))
        found.extend(float(v) for v in totals.cpu())
    return found


def _exact(lm: LoadedLM, *, cache, first_logp: torch.Tensor, context_len: int, continuations) -> list[float]:
    """Summed log-probs of the continuations on the context's cache (as ``score_batch`` does for a
    batch of contexts, here reusing the cache the short list was read from instead of a second pass).

    Packed side by side in one row (:func:`_exact_packed`) where the model allows it, else one row per
    continuation on a repeated cache; both give the same scores (tested)."""
    if _packable(lm.model):
        return _exact_packed(
            lm, cache=cache, first_logp=first_logp, context_len=context_len, continuations=continuations
        )
    return _exact_repeated(
        lm, cache=cache, first_logp=first_logp, context_len=context_len, continuations=continuations
    )


def _exact_repeated(
    lm: LoadedLM, *, cache, first_logp: torch.Tensor, context_len: int, continuations
) -> list[float]:
    """One row per continuation on the context's cache repeated ``CHUNK`` times."""
    model, device = lm.model, lm.model.device
    found: list[float] = []
    for start in range(0, len(continuations), CHUNK):
        part = continuations[start : start + CHUNK]
        shared = copy.deepcopy(cache) if len(continuations) > CHUNK else cache
        shared.batch_repeat_interleave(len(part))
        ids, mask = _pad(part, pad_id=pad_id(lm.tokenizer), left=False, device=device)  # Shape: (K, cont_len)
        hidden = model.get_decoder()(
            input_ids=ids,
            attention_mask=torch.cat(
                [torch.ones((len(part), context_len), dtype=mask.dtype, device=device), mask], 1
            ),
            position_ids=context_len + torch.arange(ids.shape[1], device=device)[None, :].expand_as(ids),
            past_key_values=shared,
            use_cache=True,
        ).last_hidden_state  # Shape: (K, cont_len, hidden)
        totals = first_logp[ids[:, 0]]
        inner = mask[:, 1:].bool()
        if inner.any():
            rows = torch.arange(len(part), device=device)[:, None].expand_as(inner)[inner]
            totals = totals.index_add(
                0, rows, _token_logprobs(model, hidden[:, :-1][inner], ids[:, 1:][inner])
            )
        found.extend(float(v) for v in totals.cpu())
        if shared is cache:
            break  # one chunk: the cache was repeated in place and is not needed again
    return found


def _open_words(lm: LoadedLM, logp: torch.Tensor, *, count: int, keep, known: set[str]) -> list[str]:
    """The likeliest next tokens that are whole words admitted by ``keep`` and not among ``known``."""
    if count <= 0 or keep is None:
        return []
    found: list[str] = []
    for token_id in torch.topk(logp, k=min(OPEN_SCAN, logp.shape[0])).indices.tolist():
        text = lm.tokenizer.decode([token_id])
        word = text[1:]
        if not (
            text.startswith(" ") and word.isascii() and word.isalpha() and word.islower() and len(word) >= 3
        ):
            continue
        if word in known or word in found or keep(word) != word:
            continue
        found.append(word)
        if len(found) == count:
            break
    return found


def _order(words: Sequence[str], scores: Mapping[str, float]) -> list[str]:
    return sorted(words, key=lambda w: (-scores[w], w))


def score_blank(
    lm: LoadedLM,
    *,
    article: str,
    question: str,
    words: Sequence[str],
    must: Sequence[str] = (),
    top: int = TOP,
    article_tokens: int = 400,
    open_top: int = 0,
    open_filter: Callable[[str], str | None] | None = None,
    window: int | None = None,
) -> BlankScores:
    """Two-stage scores of ``words`` in the blank of ``question``, with and without the article.

    ``open_top`` > 0 adds up to that many *open-vocabulary* words: the options-only LM's likeliest next
    tokens that are whole lower-case words (a leading space, 3+ letters) and that ``open_filter`` maps
    to an admissible form (None: not admissible; the form must be the token itself, so the word is
    scored as proposed). They are scored like the short list and join ``proposed``. ``window``: the
    exact scores read the word and that many words after it (:func:`split_at_blank`; None: all).
    """
    words = list(dict.fromkeys(words))
    must = [w for w in dict.fromkeys(must) if w in set(words)]
    head, template = split_at_blank(question, window=window)
    tok = lm.tokenizer
    conts = {w: tok.encode(template.format(w), add_special_tokens=False) for w in words}
    first: dict[str, dict[str, float]] = {}
    encoded = {}
    with torch.inference_mode():
        for name, with_article in (("article", True), ("options_only", False)):
            ctx = _context(
                lm, article=article, head=head, with_article=with_article, article_tokens=article_tokens
            )
            cache, logp = _encode_context(lm, ctx)
            encoded[name] = (cache, logp, len(ctx))
            first[name] = {w: float(logp[conts[w][0]]) for w in words}
        short = {name: _order(words, first[name])[:top] for name in first}
        opened = _open_words(
            lm, encoded["options_only"][1], count=open_top, keep=open_filter, known=set(words)
        )
        for word in opened:
            conts[word] = tok.encode(template.format(word), add_special_tokens=False)
        scored = list(dict.fromkeys([*must, *short["article"], *short["options_only"], *opened]))
        exact = {}
        for name, (cache, logp, length) in encoded.items():
            values = _exact(
                lm, cache=cache, first_logp=logp, context_len=length, continuations=[conts[w] for w in scored]
            )
            exact[name] = dict(zip(scored, values, strict=True))
    listed = _order(short["article"], exact["article"])
    rest = _order([w for w in words if w not in set(listed)], first["article"])
    proposed = [w for w in scored if w not in set(must)]
    return BlankScores(
        article=exact["article"], options_only=exact["options_only"], ranking=listed + rest, proposed=proposed
    )


def item_key(item: Mapping) -> str:
    """The cache key of one scoring item: what the LM sees and the scoring rule's version."""
    fields = [
        VERSION,
        str(item["id"]),
        item["article"],
        item["question"],
        item["words"],
        item["must"],
        item["top"],
        item.get("window"),
    ]
    return hashlib.sha256(json.dumps(fields).encode()).hexdigest()


@lru_cache(maxsize=2)
def loaded_lm(model_path: str | None) -> LoadedLM:
    from baselines.lm_scorer import load_causal_lm

    return load_causal_lm(model_path=model_path)


def gate_scores(
    *, items: Sequence[Mapping], lm_model: str | None = None, progress: bool = False
) -> list[dict]:
    """The LM's scores for many questions (the unit a Celery task runs; the LM loads once per process).

    ``items``: ``{"id", "article", "question", "answer", "words", "must", "top"}`` and optionally
    ``"tag"`` (the gold's Penn tag), ``"open"`` (open-vocabulary words to add, in that form) and
    ``"window"`` (words after the blank the exact scores read, :func:`split_at_blank`; absent: all): ``words``
    the gold first, then every admissible form; ``must`` the words always scored exactly. Returns per item
    ``{"id", "article": {word: score}, "options_only": {word: score}, "gold_rank", "top", "proposed"}``.
    """
    from datagen.options.inflection import inflect_like

    lm = loaded_lm(lm_model)
    found = []
    for item in tqdm(items, desc="LM word scores", unit="q", disable=not progress):
        tag = item.get("tag")
        admit = (lambda word, tag=tag: inflect_like(word=word, tag=tag)) if tag else None
        scores = score_blank(
            lm, article=item["article"], question=item["question"], words=item["words"], must=item["must"],
            top=item["top"], open_top=item.get("open", 0), open_filter=admit, window=item.get("window"),
        )  # fmt: skip
        answer = item["answer"]
        rank = scores.ranking.index(answer) + 1 if answer in scores.ranking else None
        found.append({
            "id": item["id"], "article": scores.article, "options_only": scores.options_only,
            "gold_rank": rank, "top": [w for w in scores.ranking if w != answer][: max(item["top"], TOP)],
            "proposed": scores.proposed,
        })  # fmt: skip
    return found


def ranked_from_scores(found: Mapping) -> Ranked:
    """A reader-like :class:`~datagen.options.retrieval.Ranked` (for MRR / Recall@k) from one item's scores."""
    return Ranked(id=found["id"], gold_rank=found["gold_rank"], top=tuple(found["top"]))


def question_ranker(lm: LoadedLM, *, article_tokens: int = 400, top: int = 30):
    """A ReCAM question ranker for the distractor benchmark: the vocabulary in the LM's two-stage order."""

    def rank(question, vocab: Sequence[str]) -> list[str]:
        scores = score_blank(
            lm, article=question.article, question=question.question, words=list(vocab), top=top,
            article_tokens=article_tokens,
        )  # fmt: skip
        return scores.ranking

    return rank


def full_question_scores(lm: LoadedLM, *, candidate: Candidate, words: Sequence[str]) -> np.ndarray:
    """The quality report's scoring of ``words`` (whole filled summary), for the equivalence test."""
    from baselines.lm_scorer import option_logprobs

    return option_logprobs(
        lm, articles=[candidate.article], questions=[candidate.question], options=[list(words)], batch_size=1
    )[0]
