"""The baseline model job: routed to the GPU queue only when a worker consumes it; writes the file."""

import pytest
from django.conf import settings

import tasks.baselines
from tasks.baselines import baselines_predict, model_queue
from tests.baselines.conftest import tiny_lm_dir, tiny_tokenizer  # noqa: F401  (fixtures)


class _Inspect:
    def __init__(self, replies):
        self.replies = replies

    def active_queues(self):
        return self.replies


@pytest.mark.parametrize(
    ("replies", "expected"),
    [
        (None, "cpu"),  # no worker answered
        ({"w1@h": [{"name": "cpu"}]}, "cpu"),
        ({"w1@h": [{"name": "cpu"}], "w2@h": [{"name": "gpu"}]}, "gpu"),
    ],
)
def test_model_jobs_go_to_the_gpu_queue_only_when_a_gpu_worker_listens(monkeypatch, replies, expected):
    monkeypatch.setattr(settings, "CELERY_CPU_QUEUE", "cpu")
    monkeypatch.setattr(settings, "CELERY_GPU_QUEUE", "gpu")
    monkeypatch.setattr(tasks.baselines.app.control, "inspect", lambda timeout: _Inspect(replies))
    assert model_queue() == expected


def test_without_a_gpu_queue_setting_the_cpu_queue_is_used(monkeypatch):
    monkeypatch.setattr(settings, "CELERY_GPU_QUEUE", "")
    monkeypatch.setattr(settings, "CELERY_CPU_QUEUE", "cpu")
    assert model_queue() == "cpu"


def test_the_task_is_late_acked_and_named():
    assert baselines_predict.name == "baselines.predict"
    assert baselines_predict.acks_late is True
    assert baselines_predict.reject_on_worker_lost is True


def test_the_task_writes_a_file_the_platform_accepts(tmp_path, tiny_lm_dir):  # noqa: F811
    from baselines.lm_reader import LMSettings, write_zero_shot
    from recam.records import Question, write_questions
    from recam.submission import parse_submission

    model = tmp_path / "lm-zs"
    write_zero_shot(
        output_dir=model, settings=LMSettings(article_tokens=8), model_path=str(tiny_lm_dir), device="cpu"
    )
    questions = [
        Question(
            id=i, article="The team won the final.", question="They @placeholder it.", options=tuple("abcde")
        )
        for i in (7, 8)
    ]
    write_questions(tmp_path / "in.jsonl", questions, with_ids=True)
    out = tmp_path / "subtask1.csv"
    result = baselines_predict.run(
        models=[str(model)], input_path=str(tmp_path / "in.jsonl"), output_path=str(out)
    )
    assert result == {"output": str(out), "questions": 2}
    parsed = parse_submission(data=out.read_bytes(), filename="subtask1.csv", expected_ids={1: {7, 8}})
    assert set(parsed.files[0].predictions) == {7, 8}
