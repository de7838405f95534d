import pytest
import torch

from baselines.readers import READERS, build_reader
from baselines.training import ReaderConfig, initial_reader


def _reader(name, examples, vectors, candidates=None, max_passage_tokens=60):
    config = ReaderConfig(reader=name, hidden=8, hops=2, max_passage_tokens=max_passage_tokens, batch_size=4)
    return initial_reader(config=config, train=examples, vectors=vectors, candidates=candidates)


@pytest.mark.parametrize("name", READERS)
def test_multiple_choice_scores_have_one_column_per_option(name, trial_examples, vectors):
    reader = _reader(name, trial_examples[:6], vectors)
    items = reader.encode(trial_examples[:6], mode="mc", grow=False)
    batch = reader.batch(items, mode="mc")
    reader.module.eval()
    logits = reader.module(batch)
    assert logits.shape == (6, 5)
    assert torch.isfinite(logits).all()


@pytest.mark.parametrize("name", READERS)
def test_padding_never_changes_the_scores(name, trial_examples, vectors):
    reader = _reader(name, trial_examples[:4], vectors, max_passage_tokens=1000)
    reader.module.eval()
    batch = reader.batch(reader.encode(trial_examples[:4], mode="mc", grow=False), mode="mc")
    assert (~batch.passage_mask).any()
    assert (~batch.summary_mask).any()
    before = reader.module(batch)
    noisy = {}
    for field, mask in (("passage", "passage_mask"), ("summary", "summary_mask"), ("gloss", "gloss_mask")):
        ids, keep = getattr(batch, field), getattr(batch, mask)
        noise = torch.randint(3, len(reader.words), ids.shape) % (
            len(reader.gloss_words) if field == "gloss" else len(reader.words)
        )
        noisy[field] = torch.where(keep, ids, noise)
    changed = type(batch)(**{**batch.__dict__, **noisy})
    assert not torch.equal(changed.passage, batch.passage)
    after = reader.module(changed)
    torch.testing.assert_close(after, before)


def test_masked_choices_get_no_probability(trial_examples, vectors):
    reader = _reader("ga", trial_examples[:3], vectors)
    reader.module.eval()
    batch = reader.batch(reader.encode(trial_examples[:3], mode="mc", grow=False), mode="mc")
    mask = batch.choice_mask.clone()
    mask[0, 4] = False
    logits = reader.module(type(batch)(**{**batch.__dict__, "choice_mask": mask}))
    assert torch.softmax(logits, dim=-1)[0, 4] == 0
    assert torch.isfinite(logits[1]).all()


def test_candidate_set_mode_scores_the_whole_set(trial_examples, vectors):
    answers = sorted({e.answer for e in trial_examples[:8]})
    reader = _reader("att-gloss", trial_examples[:8], vectors, candidates=[*answers, "policy", "event"])
    items = reader.encode(trial_examples[:8], mode="set", grow=False)
    logits = reader.module(reader.batch(items, mode="set"))
    assert logits.shape == (8, len(answers) + 2)
    assert all(
        reader.candidates[item.target] == ex.answer.lower()
        for item, ex in zip(items, trial_examples[:8], strict=True)
    )


def test_build_reader_rejects_unknown_names():
    with pytest.raises(ValueError, match="unknown reader 'bert'"):
        build_reader(reader="bert", word_vectors=torch.zeros(3, 4), candidate_vectors=torch.zeros(2, 4))
    with pytest.raises(ValueError, match="unknown reader"):
        ReaderConfig(reader="bert")


def _centred_reader(name, examples, vectors, *, center_query):
    config = ReaderConfig(
        reader=name,
        hidden=8,
        hops=2,
        max_passage_tokens=60,
        batch_size=4,
        dropout=0.0,
        center_query=center_query,
    )
    answers = sorted({e.answer for e in examples})
    return initial_reader(config=config, train=examples, vectors=vectors, candidates=answers)


@pytest.mark.parametrize("name", READERS)
def test_centred_query_gives_no_candidate_a_batch_wide_preference(name, trial_examples, vectors):
    # Scores are linear in the query, so with the batch mean query removed every candidate's scores
    # average to zero over the batch: no context-independent prior over answer words is left. (The
    # gloss reader's gloss attention is not linear in v, so its gloss term is switched off here to
    # check the a_t^e term; the gloss-side centring is checked through save/load.)
    examples = trial_examples[:8]
    scores = {}
    for center_query in (False, True):
        reader = _centred_reader(name, examples, vectors, center_query=center_query)
        if name == "att-gloss":
            torch.nn.init.zeros_(reader.module.gloss_output.weight)
        reader.module.train()  # dropout is 0: training mode only switches to the batch mean
        batch = reader.batch(reader.encode(examples, mode="set", grow=False), mode="set")
        scores[center_query] = reader.module(batch)  # Shape: (8, num_cands)
    column_means = scores[True].mean(dim=0)
    torch.testing.assert_close(column_means, torch.zeros_like(column_means), atol=1e-5, rtol=0)
    assert scores[False].mean(dim=0).abs().max() > 1e-3


def test_centred_query_uses_its_running_mean_at_prediction_time(trial_examples, vectors):
    examples = trial_examples[:8]
    reader = _centred_reader("att", examples, vectors, center_query=True)
    batch = reader.batch(reader.encode(examples, mode="set", grow=False), mode="set")
    centring = reader.module.query_center
    assert torch.count_nonzero(centring.running_mean) == 0
    reader.module.train()
    reader.module(batch)
    moved = centring.running_mean.clone()
    assert torch.count_nonzero(moved) > 0
    reader.module.eval()
    one = reader.batch(reader.encode(examples[:1], mode="set", grow=False), mode="set")
    with torch.no_grad():
        centred = reader.module(one)
        query = reader.module.output(reader.module.summarize(one))  # Shape: (1, dim)
        cands = reader.module.candidate_embeddings(one.candidates)  # Shape: (num_cands, dim)
    torch.testing.assert_close(centred, (query - moved) @ cands.T)
    torch.testing.assert_close(centring.running_mean, moved)  # prediction does not update it
