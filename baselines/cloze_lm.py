"""LM baselines for the multi-blank formats (pure: no Django): CLOTH's LM reader, SCDE's assignment decoder.

- CLOTH: each blank on its own, as the CLOTH paper's LM baseline: the option that maximises the joint
  probability of the blank-free text span around the blank with the option filled in (the words since
  the previous blank and up to the next one, at most ``context_words`` on each side).
- SCDE: a score for every (blank, candidate) pair, the joint probability of the ``context_sentences``
  sentences before the blank, the candidate and the ``context_sentences`` after it (the SCDE paper's
  LM setting, three sentences each side; a span stops at a neighbouring blank, as CLOTH's LM uses
  blank-free spans), optionally minus the candidate's
  own log-probability (``scoring="pmi"``, which does not favour short candidates). The decoder gives
  the blanks distinct candidates maximising the summed score (``scipy.optimize.linear_sum_assignment``,
  the Hungarian method: the same answer as the paper's exhaustive search over permutations, without
  enumerating them); ``decode="independent"`` takes each blank's best candidate on its own.

Log-probabilities are of every token of the text given the model's start token (BOS, else EOS), in
float32 from the model's logits; the model's own dtype follows ``baselines.lm_loading`` (bfloat16 on
CUDA, float32 on the CPU).
"""

from collections.abc import Sequence

import numpy as np
import torch
from scipy.optimize import linear_sum_assignment

from baselines.lm_loading import LoadedLM
from recam.formats.blanks import BlankKey
from recam.formats.cloth import BLANK, ClothPassage
from recam.formats.scde import MARKER, ScdePassage

DECODERS = ("hungarian", "independent")
SCORINGS = ("joint", "pmi")


def start_id(tokenizer) -> int:
    for candidate in (tokenizer.bos_token_id, tokenizer.eos_token_id, tokenizer.pad_token_id):
        if candidate is not None:
            return candidate
    raise ValueError("the tokenizer has no BOS, EOS or pad token to start a text with")


def text_logprobs(lm: LoadedLM, texts: Sequence[str], *, batch_size: int = 8) -> np.ndarray:
    """Joint log-probability (n_texts,) of each text's tokens given the start token."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, not {batch_size}")
    first = start_id(lm.tokenizer)
    rows = [[first, *lm.tokenizer.encode(text, add_special_tokens=False)] for text in texts]
    totals = np.zeros(len(rows))
    order = sorted(range(len(rows)), key=lambda i: len(rows[i]))  # similar lengths pad less
    with torch.inference_mode():
        for start in range(0, len(order), batch_size):
            batch = order[start : start + batch_size]
            totals[batch] = _batch_logprobs(lm.model, [rows[i] for i in batch])
    return totals


def _batch_logprobs(model, rows: Sequence[Sequence[int]]) -> np.ndarray:
    width = max(len(row) for row in rows)
    ids = torch.zeros((len(rows), width), dtype=torch.long)  # Shape: (batch, width)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for i, row in enumerate(rows):
        ids[i, : len(row)] = torch.tensor(row, dtype=torch.long)
        mask[i, : len(row)] = 1
    ids, mask = ids.to(model.device), mask.to(model.device)
    hidden = model.get_decoder()(input_ids=ids, attention_mask=mask).last_hidden_state
    scored = mask[:, 1:].bool()  # Shape: (batch, width - 1): position j predicts token j + 1
    logits = model.get_output_embeddings()(hidden[:, :-1][scored]).float()  # Shape: (n_tokens, vocab)
    token_logp = torch.log_softmax(logits, dim=-1).gather(-1, ids[:, 1:][scored][:, None])[:, 0]
    owner = torch.arange(len(rows), device=ids.device)[:, None].expand_as(scored)[scored]
    totals = torch.zeros(len(rows), device=ids.device).index_add(0, owner, token_logp)
    return totals.cpu().numpy()


def cloth_windows(passage: ClothPassage, *, context_words: int = 50) -> list[list[str]]:
    """For each blank, the text span around it with each of its options filled in."""
    segments = BLANK.split(passage.article)  # blank i lies between segments i and i + 1
    windows = []
    for i, options in enumerate(passage.options):
        left = segments[i].split()[-context_words:] if context_words else []
        right = segments[i + 1].split()[:context_words] if context_words else []
        windows.append([" ".join([*left, option, *right]) for option in options])
    return windows


def cloth_predict(
    lm: LoadedLM, passages: Sequence[ClothPassage], *, context_words: int = 50, batch_size: int = 8
) -> tuple[dict[BlankKey, int], list[np.ndarray]]:
    """Each blank's best option, and each passage's (blanks, 4) score matrix."""
    windows = [cloth_windows(p, context_words=context_words) for p in passages]
    flat = [text for passage in windows for blank in passage for text in blank]
    scores = text_logprobs(lm, flat, batch_size=batch_size)
    predictions: dict[BlankKey, int] = {}
    matrices, offset = [], 0
    for passage in passages:
        size = passage.blanks * len(passage.options[0])
        matrix = scores[offset : offset + size].reshape(passage.blanks, -1)  # Shape: (blanks, 4)
        offset += size
        matrices.append(matrix)
        for blank, best in enumerate(matrix.argmax(axis=1), start=1):
            predictions[(passage.id, blank)] = int(best)
    return predictions, matrices


def scde_windows(passage: ScdePassage, *, context_sentences: int = 3) -> list[tuple[str, str]]:
    """For each blank, the (before, after) text: at most ``context_sentences`` sentences each side,
    stopping at the neighbouring blanks (two adjacent blanks do not share one context)."""
    sentences = passage.sentences
    blanks = [j for j, s in enumerate(sentences) if MARKER.match(s)]
    bounds = [-1, *blanks, len(sentences)]
    k = context_sentences
    windows = []
    for i, j in enumerate(blanks, start=1):
        before = list(sentences[bounds[i - 1] + 1 : j])
        after = list(sentences[j + 1 : bounds[i + 1]])
        windows.append((" ".join(before[-k:] if k else []), " ".join(after[:k] if k else [])))
    return windows


def scde_scores(
    lm: LoadedLM,
    passage: ScdePassage,
    *,
    context_sentences: int = 3,
    scoring: str = "joint",
    batch_size: int = 8,
) -> np.ndarray:
    """The (blanks, candidates) score matrix of one passage."""
    if scoring not in SCORINGS:
        raise ValueError(f"scoring {scoring!r}: choose from {', '.join(SCORINGS)}")
    windows = scde_windows(passage, context_sentences=context_sentences)
    texts = [" ".join(filter(None, (b, c, a))) for b, a in windows for c in passage.candidates]
    matrix = text_logprobs(lm, texts, batch_size=batch_size).reshape(len(windows), -1)
    if scoring == "pmi":
        matrix = matrix - text_logprobs(lm, passage.candidates, batch_size=batch_size)[None, :]
    return matrix  # Shape: (blanks, candidates)


def assign(scores: np.ndarray, *, decode: str = "hungarian") -> tuple[int, ...]:
    """The candidate of each blank: distinct candidates with the largest summed score, or each blank's best.

    >>> assign(np.array([[5.0, 4.0, 0.0], [4.5, 1.0, 0.0]]))
    (1, 0)
    >>> assign(np.array([[5.0, 4.0, 0.0], [4.5, 1.0, 0.0]]), decode="independent")
    (0, 0)
    """
    if decode not in DECODERS:
        raise ValueError(f"decode {decode!r}: choose from {', '.join(DECODERS)}")
    matrix = np.asarray(scores, dtype=np.float64)
    if decode == "independent":
        return tuple(int(c) for c in matrix.argmax(axis=1))
    if matrix.shape[0] > matrix.shape[1]:
        raise ValueError(f"{matrix.shape[0]} blanks but only {matrix.shape[1]} candidates")
    rows, cols = linear_sum_assignment(matrix, maximize=True)
    return tuple(int(c) for _r, c in sorted(zip(rows, cols, strict=True)))


def scde_predict(
    lm: LoadedLM,
    passages: Sequence[ScdePassage],
    *,
    context_sentences: int = 3,
    scoring: str = "joint",
    decode: str = "hungarian",
    batch_size: int = 8,
) -> tuple[dict[BlankKey, int], list[np.ndarray]]:
    """Each blank's candidate by the decoder, and each passage's (blanks, candidates) score matrix."""
    predictions: dict[BlankKey, int] = {}
    matrices = []
    for passage in passages:
        matrix = scde_scores(
            lm, passage, context_sentences=context_sentences, scoring=scoring, batch_size=batch_size
        )
        matrices.append(matrix)
        for blank, candidate in enumerate(assign(matrix, decode=decode), start=1):
            predictions[(passage.id, blank)] = candidate
    return predictions, matrices
