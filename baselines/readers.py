"""The paper's three readers (Appendices B-C) as nn.Modules over one batch layout.

Every reader scores, for each example, a set of candidate words: ``choices`` index into the batch's
candidate table (its five options in multiple-choice mode, the whole candidate set in option
generation). Word ids: 0 is padding, 1 unknown, 2 ``@placeholder`` (a learnt vector); the passage and
summary share one fixed embedding table (``word_vectors``). A candidate's embedding is its fixed
pretrained vector plus a learnt offset (zero-initialised), i.e. a learnt embedding initialised from the
vectors; a word first met at prediction time keeps its pretrained vector. The gloss reader's glosses
have their own embeddings, built the same way. Padding is masked in every softmax.

``center_query`` (off by default here; on for the participant baselines, see docs/reference/baselines.md) removes
the context-independent part of the scoring query: ``r_t = (W v - mu)^T a_t`` with ``mu`` the mean of
``W v`` (the batch mean in training, a running mean at prediction time). Without it, the mean query
``mu`` gives every candidate word a fixed score ``mu^T a_t``, a learnt prior over answer words; trained
on the small trial sets that prior is most of the query and, on data whose distractors are the readers'
most frequent predictions (task paper §3.5), it points at the distractors.
"""

from dataclasses import dataclass

import torch
from torch import nn

PAD, UNK, PLACEHOLDER_ID = 0, 1, 2
READERS = ("ga", "att", "att-gloss")


@dataclass(frozen=True)
class ReaderBatch:
    passage: torch.Tensor  # (batch, passage_len) word ids
    passage_mask: torch.Tensor  # (batch, passage_len) bool, True on real tokens (right-padded)
    summary: torch.Tensor  # (batch, summary_len)
    summary_mask: torch.Tensor  # (batch, summary_len)
    placeholder: torch.Tensor  # (batch,) position of @placeholder in the summary
    candidates: torch.Tensor  # (num_cands,) rows of the candidate table used by this batch
    gloss: torch.Tensor  # (num_cands, gloss_len) gloss word ids (all PAD if the reader has no gloss)
    gloss_mask: torch.Tensor  # (num_cands, gloss_len), at least one True per row
    choices: torch.Tensor  # (batch, num_choices) indices into ``candidates``
    choice_mask: torch.Tensor  # (batch, num_choices) bool

    def to(self, device: str | torch.device) -> "ReaderBatch":
        return ReaderBatch(**{k: v.to(device) for k, v in self.__dict__.items()})


def masked_softmax(scores: torch.Tensor, mask: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Softmax over ``dim`` where masked-out positions get exactly zero weight."""
    return torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=dim)


class BiGRU(nn.Module):
    """1-layer bi-GRU with dropout on its input, exact under right padding.

    The backward direction runs a forward GRU over each sequence reversed within its own length, so
    padded steps come after every real step in both directions and never reach a real state. (Packed
    sequences give the same result but their CPU backward pass is an order of magnitude slower.)
    """

    def __init__(self, input_dim: int, hidden: int, dropout: float) -> None:
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.forward_gru = nn.GRU(input_dim, hidden, batch_first=True)
        self.backward_gru = nn.GRU(input_dim, hidden, batch_first=True)

    @staticmethod
    def reverse_within_length(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        steps = torch.arange(mask.size(1), device=mask.device).unsqueeze(0)  # Shape: (1, seq_len)
        lengths = mask.sum(dim=1, keepdim=True)  # Shape: (batch, 1)
        index = torch.where(steps < lengths, lengths - 1 - steps, steps)  # Shape: (batch, seq_len)
        return values.gather(1, index.unsqueeze(-1).expand_as(values))

    def forward(self, inputs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        inputs = self.dropout(inputs)  # Shape: (batch, seq_len, input_dim)
        ahead, _ = self.forward_gru(inputs)  # Shape: (batch, seq_len, hidden)
        behind, _ = self.backward_gru(self.reverse_within_length(inputs, mask))
        behind = self.reverse_within_length(behind, mask)  # Shape: (batch, seq_len, hidden)
        states = torch.cat([ahead, behind], dim=-1)  # Shape: (batch, seq_len, 2 * hidden)
        return states * mask.unsqueeze(-1)  # zeros on padding


class QueryCentering(nn.Module):
    """Subtract the mean query: the batch mean in training (tracked as a running mean), else the running mean.

    Like BatchNorm's centring without its scaling, so the scale of the scores stays learnt.
    """

    def __init__(self, size: int, momentum: float = 0.1) -> None:
        super().__init__()
        self.momentum = momentum
        self.register_buffer("running_mean", torch.zeros(size))  # Shape: (size,)

    def forward(self, query: torch.Tensor) -> torch.Tensor:
        if self.training and query.size(0) > 1:
            mean = query.mean(dim=0)  # Shape: (size,)
            with torch.no_grad():
                self.running_mean.lerp_(mean.detach(), self.momentum)
        else:
            mean = self.running_mean
        return query - mean  # Shape: (batch, size)


class ReaderBase(nn.Module):
    """Shared parts: fixed word table, learnt placeholder vector, candidate embeddings."""

    def __init__(
        self,
        *,
        word_vectors: torch.Tensor,
        candidate_vectors: torch.Tensor,
        hidden: int,
        dropout: float,
        center_query: bool = False,
    ) -> None:
        super().__init__()
        self.center_query = center_query
        self.dim = int(word_vectors.size(1))
        self.hidden = hidden
        self.register_buffer("word_vectors", word_vectors.float())  # Shape: (vocab, dim), fixed
        self.placeholder_vector = nn.Parameter(torch.randn(self.dim) * 0.1)  # Shape: (dim,)
        self.register_buffer("candidate_vectors", candidate_vectors.float())  # Shape: (num_cands, dim)
        self.candidate_offsets = nn.Parameter(torch.zeros_like(candidate_vectors).float())
        self.dropout = nn.Dropout(dropout)
        self.query_center = QueryCentering(self.dim) if center_query else nn.Identity()

    def embed(self, ids: torch.Tensor) -> torch.Tensor:
        vectors = nn.functional.embedding(ids, self.word_vectors)  # Shape: (batch, len, dim)
        is_placeholder = (ids == PLACEHOLDER_ID).unsqueeze(-1)  # Shape: (batch, len, 1)
        return torch.where(is_placeholder, self.placeholder_vector, vectors)

    def candidate_embeddings(self, rows: torch.Tensor) -> torch.Tensor:
        return self.candidate_vectors[rows] + self.candidate_offsets[rows]  # Shape: (num_cands, dim)

    def extend_candidates(self, vectors: torch.Tensor) -> None:
        """Append rows for candidate words first met after training (offset zero: pretrained vector)."""
        device = self.candidate_vectors.device
        self.candidate_vectors = torch.cat([self.candidate_vectors, vectors.float().to(device)])
        extra = torch.zeros(vectors.size(0), self.dim, device=device)
        self.candidate_offsets = nn.Parameter(torch.cat([self.candidate_offsets.data, extra]))

    def extend_words(self, vectors: torch.Tensor) -> None:
        """Append fixed passage/summary word vectors (new words at prediction time)."""
        self.word_vectors = torch.cat([self.word_vectors, vectors.float().to(self.word_vectors.device)])

    @staticmethod
    def placeholder_state(states: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        index = positions.view(-1, 1, 1).expand(-1, 1, states.size(-1))  # Shape: (batch, 1, 2h)
        return states.gather(1, index).squeeze(1)  # Shape: (batch, 2h)

    @staticmethod
    def gather_choices(scores: torch.Tensor, batch: ReaderBatch) -> torch.Tensor:
        chosen = scores.gather(1, batch.choices)  # Shape: (batch, num_choices)
        return chosen.masked_fill(~batch.choice_mask, float("-inf"))


class BilinearAttention(nn.Module):
    """Eq. 1-2 / 5-7: e_i = h_q^T W h_i^p, p = sum_i softmax(e)_i h_i^p."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.weight = nn.Linear(size, size, bias=False)

    def forward(self, query: torch.Tensor, states: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        scores = torch.bmm(states, self.weight(query).unsqueeze(-1)).squeeze(-1)  # Shape: (batch, len)
        weights = masked_softmax(scores, mask)  # Shape: (batch, len)
        return torch.bmm(weights.unsqueeze(1), states).squeeze(1)  # Shape: (batch, size)


class GatedAttentionReader(ReaderBase):
    """Appendix B: multi-hop gated attention (Dhingra et al., 2017), prediction redesigned (Eq. 1-4)."""

    def __init__(self, *, hops: int = 3, **kwargs) -> None:
        super().__init__(**kwargs)
        if hops < 1:
            raise ValueError(f"hops must be at least 1, got {hops}")
        size = 2 * self.hidden
        self.doc_encoders = nn.ModuleList(
            [BiGRU(self.dim if k == 0 else size, self.hidden, self.dropout.p) for k in range(hops)]
        )
        self.query_encoders = nn.ModuleList(
            [BiGRU(self.dim, self.hidden, self.dropout.p) for _ in range(hops)]
        )
        self.attention = BilinearAttention(size)
        self.output = nn.Linear(2 * size, self.dim, bias=False)  # W_p of Eq. 3

    def forward(self, batch: ReaderBatch) -> torch.Tensor:
        summary = self.embed(batch.summary)  # Shape: (batch, summary_len, dim)
        doc = self.embed(batch.passage)  # Shape: (batch, passage_len, dim)
        last = len(self.doc_encoders) - 1
        for k, (doc_encoder, query_encoder) in enumerate(
            zip(self.doc_encoders, self.query_encoders, strict=True)
        ):
            doc_states = doc_encoder(doc, batch.passage_mask)  # Shape: (batch, passage_len, 2h)
            query_states = query_encoder(summary, batch.summary_mask)  # Shape: (batch, summary_len, 2h)
            if k == last:
                break
            scores = torch.bmm(doc_states, query_states.transpose(1, 2))  # Shape: (batch, p_len, s_len)
            alpha = masked_softmax(scores, batch.summary_mask.unsqueeze(1))  # Shape: (batch, p_len, s_len)
            doc = doc_states * torch.bmm(alpha, query_states)  # Shape: (batch, passage_len, 2h)
        h_q = self.placeholder_state(query_states, batch.placeholder)  # Shape: (batch, 2h)
        p = self.attention(h_q, doc_states, batch.passage_mask)  # Shape: (batch, 2h)
        v = self.dropout(torch.cat([h_q, p], dim=-1))  # Shape: (batch, 4h)
        cands = self.candidate_embeddings(batch.candidates)  # Shape: (num_cands, dim)
        scores = self.query_center(self.output(v)) @ cands.T  # Shape: (batch, num_cands)
        return self.gather_choices(scores, batch)  # Shape: (batch, num_choices)


class AttentiveReader(ReaderBase):
    """Appendix C without the gloss: v = [p; h_q] (Eq. 5-8), r_t = v^T W a_t^e."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        size = 2 * self.hidden
        self.passage_encoder = BiGRU(self.dim, self.hidden, self.dropout.p)
        self.summary_encoder = BiGRU(self.dim, self.hidden, self.dropout.p)
        self.attention = BilinearAttention(size)
        self.output = nn.Linear(2 * size, self.dim, bias=False)

    def summarize(self, batch: ReaderBatch) -> torch.Tensor:
        passage = self.passage_encoder(self.embed(batch.passage), batch.passage_mask)  # (batch, p_len, 2h)
        summary = self.summary_encoder(self.embed(batch.summary), batch.summary_mask)  # (batch, s_len, 2h)
        h_q = self.placeholder_state(summary, batch.placeholder)  # Shape: (batch, 2h)
        p = self.attention(h_q, passage, batch.passage_mask)  # Shape: (batch, 2h)
        return self.dropout(torch.cat([p, h_q], dim=-1))  # Shape: (batch, 4h)

    def forward(self, batch: ReaderBatch) -> torch.Tensor:
        v = self.summarize(batch)  # Shape: (batch, 4h)
        cands = self.candidate_embeddings(batch.candidates)  # Shape: (num_cands, dim)
        scores = self.query_center(self.output(v)) @ cands.T  # Shape: (batch, num_cands)
        return self.gather_choices(scores, batch)


class AttentiveGlossReader(AttentiveReader):
    """Appendix C (AMWG): a gloss encoder attended by v (Eq. 9-11), a_t = [a_t^g; a_t^e] (Eq. 12-14)."""

    def __init__(self, *, gloss_vectors: torch.Tensor, **kwargs) -> None:
        super().__init__(**kwargs)
        size = 2 * self.hidden
        self.register_buffer("gloss_vectors", gloss_vectors.float())  # Shape: (gloss_vocab, dim)
        self.gloss_offsets = nn.Parameter(torch.zeros_like(gloss_vectors).float())
        self.gloss_encoder = BiGRU(self.dim, self.hidden, self.dropout.p)
        self.gloss_attention = nn.Linear(2 * size, size)  # W_att^g, b of Eq. 9
        self.gloss_output = nn.Linear(2 * size, size, bias=False)  # the a_t^g block of W_pred
        self.gloss_query_center = QueryCentering(size) if self.center_query else nn.Identity()

    def extend_gloss_words(self, vectors: torch.Tensor) -> None:
        device = self.gloss_vectors.device
        self.gloss_vectors = torch.cat([self.gloss_vectors, vectors.float().to(device)])
        extra = torch.zeros(vectors.size(0), self.dim, device=device)
        self.gloss_offsets = nn.Parameter(torch.cat([self.gloss_offsets.data, extra]))

    def forward(self, batch: ReaderBatch) -> torch.Tensor:
        v = self.summarize(batch)  # Shape: (batch, 4h)
        glosses = self.gloss_vectors[batch.gloss] + self.gloss_offsets[batch.gloss]  # (cands, g_len, dim)
        gloss_states = self.gloss_encoder(glosses, batch.gloss_mask)  # Shape: (num_cands, g_len, 2h)
        query = torch.tanh(self.gloss_attention(v))  # Shape: (batch, 2h)
        scores = torch.einsum("bd,nld->bnl", query, gloss_states)  # Shape: (batch, num_cands, g_len)
        beta = masked_softmax(scores, batch.gloss_mask.unsqueeze(0))  # Shape: (batch, num_cands, g_len)
        # v^T W a_t^g without building a_t^g per (example, candidate): sum_j beta_j (v^T W h_j).
        gloss_query = self.gloss_query_center(self.gloss_output(v))  # Shape: (batch, 2h)
        projected = torch.einsum("bd,nld->bnl", gloss_query, gloss_states)  # (batch, cands, g_len)
        gloss_scores = (beta * projected).sum(-1)  # Shape: (batch, num_cands)
        cands = self.candidate_embeddings(batch.candidates)  # Shape: (num_cands, dim)
        scores = gloss_scores + self.query_center(self.output(v)) @ cands.T  # Shape: (batch, num_cands)
        return self.gather_choices(scores, batch)


def build_reader(
    *,
    reader: str,
    word_vectors: torch.Tensor,
    candidate_vectors: torch.Tensor,
    gloss_vectors: torch.Tensor | None = None,
    hidden: int = 150,
    hops: int = 3,
    dropout: float = 0.3,
    center_query: bool = False,
) -> ReaderBase:
    """Construct a reader by name ("ga", "att", "att-gloss")."""
    common = {
        "word_vectors": word_vectors,
        "candidate_vectors": candidate_vectors,
        "hidden": hidden,
        "dropout": dropout,
        "center_query": center_query,
    }
    if reader == "ga":
        return GatedAttentionReader(hops=hops, **common)
    if reader == "att":
        return AttentiveReader(**common)
    if reader == "att-gloss":
        if gloss_vectors is None:
            raise ValueError("the att-gloss reader needs gloss_vectors")
        return AttentiveGlossReader(gloss_vectors=gloss_vectors, **common)
    raise ValueError(f"unknown reader {reader!r}: expected one of {', '.join(READERS)}")
