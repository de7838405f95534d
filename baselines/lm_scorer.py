"""Option log-likelihoods from a pretrained causal LM (pure: no Django).

``option_logprobs`` gives, for each question and option, the log-likelihood of the question with
``@placeholder`` filled by the option (the *continuation*) given a *context*: the article's first
``article_tokens`` tokens followed by ``SEPARATOR`` (lm-eval-harness ``loglikelihood`` semantics:
the context is conditioned on, only the continuation's tokens are scored). The context of a question
is encoded once and its key/value cache is shared by the options' continuations; questions are
batched (contexts left-padded, continuations right-padded) and the vocabulary projection is applied
only at the positions that predict a continuation token.

``naive_option_logprobs`` scores every option as one full sequence, the reference the shared-prefix
path is tested and benchmarked against.
"""

from collections.abc import Sequence

import numpy as np
import torch

# Loading lives in lm_loading; re-exported here because callers import it from the scorer.
from baselines.lm_loading import (  # noqa: F401
    DEFAULT_GGUF,
    DEFAULT_PACKAGE,
    DTYPES,
    LM_DTYPE_ENV,
    LM_MODEL_ENV,
    LM_THREADS_ENV,
    LoadedLM,
    default_model_path,
    load_causal_lm,
    model_sha256,
    resolve_dtype,
)
from recam.records import PLACEHOLDER

SEPARATOR = "\n\nSummary:"
REDUCTIONS = ("sum", "mean")


def bos_prefix(tokenizer) -> list[int]:
    """``[bos]`` when the model's tokenizer is configured to start every text with it, else ``[]``.

    Gemma is trained with ``<bos>`` first and scores text without it badly (its GGUF sets
    ``add_bos_token``); SmolLM2's tokenizer does not add one, so its scores are unchanged. This is
    lm-evaluation-harness's rule for such models."""
    if getattr(tokenizer, "add_bos_token", False) and tokenizer.bos_token_id is not None:
        return [tokenizer.bos_token_id]
    return []


def encode_context(tokenizer, *, article: str, article_tokens: int, with_article: bool) -> list[int]:
    """The context tokens: [bos +] the article's first ``article_tokens`` tokens + the separator.

    Without the article the context is the separator alone (stripped), so every option is scored
    given the same fixed prompt. ``bos`` as :func:`bos_prefix` decides.
    """
    bos = bos_prefix(tokenizer)
    if not with_article:
        return bos + tokenizer.encode(SEPARATOR.strip(), add_special_tokens=False)
    words = tokenizer.encode(article, add_special_tokens=False)[: max(0, article_tokens)]
    return bos + words + tokenizer.encode(SEPARATOR, add_special_tokens=False)


def encode_continuation(tokenizer, *, question: str, option: str) -> list[int]:
    """The tokens of the question with ``@placeholder`` filled by ``option`` (after one space)."""
    if PLACEHOLDER not in question:
        raise ValueError(f"question {question[:60]!r} has no {PLACEHOLDER}")
    ids = tokenizer.encode(" " + question.replace(PLACEHOLDER, option, 1), add_special_tokens=False)
    if not ids:
        raise ValueError(f"question {question[:60]!r} with option {option!r} encodes to no tokens")
    return ids


def _pad(
    rows: Sequence[Sequence[int]], *, pad_id: int, left: bool, device
) -> tuple[torch.Tensor, torch.Tensor]:
    width = max(len(row) for row in rows)
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for i, row in enumerate(rows):
        span = slice(width - len(row), width) if left else slice(0, len(row))
        ids[i, span] = torch.tensor(row, dtype=torch.long)
        mask[i, span] = 1
    return ids.to(device), mask.to(device)


def _token_logprobs(model, hidden: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """log p(target) for hidden states (N, H) and target ids (N,), projecting only these rows."""
    logits = model.get_output_embeddings()(hidden).float()
    return torch.log_softmax(logits, dim=-1).gather(-1, targets[:, None])[:, 0]


def score_batch(
    model, contexts: Sequence[Sequence[int]], continuations: Sequence[Sequence[Sequence[int]]], *, pad_id: int
):
    """Summed continuation log-probs (B, K) and continuation lengths (B, K), shared-prefix style.

    Differentiable when called with gradients enabled (the fine-tuning path uses it).
    """
    device = model.device
    n_options = len(continuations[0])
    ctx_ids, ctx_mask = _pad(contexts, pad_id=pad_id, left=True, device=device)
    prefix = model(
        input_ids=ctx_ids,
        attention_mask=ctx_mask,
        position_ids=(ctx_mask.cumsum(-1) - 1).clamp(min=0),
        use_cache=True,
        logits_to_keep=1,
    )
    first_logp = torch.log_softmax(prefix.logits[:, -1].float(), dim=-1).repeat_interleave(n_options, 0)
    cache = prefix.past_key_values
    cache.batch_repeat_interleave(n_options)
    flat = [cont for options in continuations for cont in options]
    cont_ids, cont_mask = _pad(flat, pad_id=pad_id, left=False, device=device)
    ctx_len = ctx_mask.sum(-1).repeat_interleave(n_options)
    hidden = model.get_decoder()(
        input_ids=cont_ids,
        attention_mask=torch.cat([ctx_mask.repeat_interleave(n_options, 0), cont_mask], dim=1),
        position_ids=ctx_len[:, None] + torch.arange(cont_ids.shape[1], device=device)[None, :],
        past_key_values=cache,
        use_cache=True,
    ).last_hidden_state
    totals = first_logp.gather(-1, cont_ids[:, :1])[:, 0]
    inner = cont_mask[:, 1:].bool()  # positions j predicting token j+1 of a continuation
    if inner.any():
        rows = torch.arange(len(flat), device=device)[:, None].expand_as(inner)[inner]
        scores = _token_logprobs(model, hidden[:, :-1][inner], cont_ids[:, 1:][inner])
        totals = totals.index_add(0, rows, scores)
    return totals.view(-1, n_options), cont_mask.sum(-1).view(-1, n_options)


def encode_all(tokenizer, *, articles, questions, options, article_tokens: int, with_article: bool):
    """Context token lists (one per question) and continuation token lists (per question, per option)."""
    if not len(articles) == len(questions) == len(options):
        raise ValueError(f"{len(articles)} articles, {len(questions)} questions, {len(options)} option lists")
    if len({len(opts) for opts in options}) > 1:
        raise ValueError("every question must have the same number of options")
    tok = tokenizer
    contexts = [
        encode_context(tok, article=article, article_tokens=article_tokens, with_article=with_article)
        for article in articles
    ]
    conts = [
        [encode_continuation(tok, question=q, option=o) for o in opts]
        for q, opts in zip(questions, options, strict=True)
    ]
    return contexts, conts


def pad_id(tokenizer) -> int:
    for candidate in (tokenizer.pad_token_id, tokenizer.eos_token_id, 0):
        if candidate is not None:
            return candidate
    return 0


def _reduce(totals: np.ndarray, lengths: np.ndarray, reduction: str) -> np.ndarray:
    if reduction not in REDUCTIONS:
        raise ValueError(f"reduction {reduction!r}: choose from {', '.join(REDUCTIONS)}")
    return totals if reduction == "sum" else totals / lengths


def option_sums_and_lengths(
    lm: LoadedLM,
    *,
    articles: Sequence[str],
    questions: Sequence[str],
    options: Sequence[Sequence[str]],
    article_tokens: int = 400,
    with_article: bool = True,
    batch_size: int = 8,
    progress: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Summed continuation log-probs and continuation token counts, both (n_questions, n_options)."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, not {batch_size}")
    contexts, conts = encode_all(
        lm.tokenizer, articles=articles, questions=questions, options=options,
        article_tokens=article_tokens, with_article=with_article,
    )  # fmt: skip
    n_options = len(options[0]) if len(options) else 0
    totals = np.zeros((len(contexts), n_options))
    lengths = np.ones((len(contexts), n_options))
    order = sorted(range(len(contexts)), key=lambda i: len(contexts[i]))  # similar lengths pad less
    batches = [order[i : i + batch_size] for i in range(0, len(order), batch_size)]
    if progress:
        from tqdm import tqdm

        batches = tqdm(batches, desc="LM scoring", unit="batch")
    pad = pad_id(lm.tokenizer)
    with torch.inference_mode():
        for batch in batches:
            sums, lens = score_batch(
                lm.model, [contexts[i] for i in batch], [conts[i] for i in batch], pad_id=pad
            )
            totals[batch] = sums.float().cpu().numpy()
            lengths[batch] = lens.cpu().numpy()
    return totals, lengths


def option_logprobs(
    lm: LoadedLM,
    *,
    articles: Sequence[str],
    questions: Sequence[str],
    options: Sequence[Sequence[str]],
    article_tokens: int = 400,
    reduction: str = "sum",
    with_article: bool = True,
    batch_size: int = 8,
    progress: bool = False,
    shared_prefix: bool = True,
) -> np.ndarray:
    """Log-likelihoods (n_questions, n_options) of each filled question given its context.

    ``reduction`` "sum" is the total log-prob of the continuation's tokens, "mean" the per-token
    mean; ``with_article=False`` scores the filled question given the separator alone.
    ``shared_prefix=False`` is the reference the shared-prefix path is tested and benchmarked against:
    each option scored as one full sequence (context + continuation), one by one.
    """
    _reduce(np.zeros(0), np.ones(0), reduction)  # validate before any work
    inputs = {"articles": articles, "questions": questions, "options": options}
    if shared_prefix:
        totals, lengths = option_sums_and_lengths(
            lm, **inputs, article_tokens=article_tokens, with_article=with_article, batch_size=batch_size,
            progress=progress,
        )  # fmt: skip
    else:
        contexts, conts = encode_all(
            lm.tokenizer, **inputs, article_tokens=article_tokens, with_article=with_article
        )
        totals, lengths = _naive_sums_and_lengths(lm, contexts, conts)
    return _reduce(totals, lengths, reduction)


def naive_option_logprobs(lm: LoadedLM, **kwargs) -> np.ndarray:
    """:func:`option_logprobs` with ``shared_prefix=False`` (the naive reference)."""
    return option_logprobs(lm, **kwargs, shared_prefix=False)


def _naive_sums_and_lengths(lm: LoadedLM, contexts, conts) -> tuple[np.ndarray, np.ndarray]:
    n_options = len(conts[0]) if len(conts) else 0
    totals = np.zeros((len(contexts), n_options))
    lengths = np.ones((len(contexts), n_options))
    with torch.inference_mode():
        for i, (context, options_ids) in enumerate(zip(contexts, conts, strict=True)):
            for k, cont in enumerate(options_ids):
                ids = torch.tensor([context + cont], device=lm.model.device)
                logp = torch.log_softmax(lm.model(input_ids=ids).logits[0].float(), dim=-1)
                positions = torch.arange(len(context) - 1, ids.shape[1] - 1, device=ids.device)
                totals[i, k] = logp[positions, ids[0, positions + 1]].sum().item()
                lengths[i, k] = len(cont)
    return totals, lengths


def choose(scores: np.ndarray) -> np.ndarray:
    """The index of the best-scoring option of each question."""
    return np.asarray(scores).argmax(axis=-1)
