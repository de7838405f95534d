from django import forms

from competitions.models import Competition, Phase, Subtask
from datagen.targets.filters import DEFAULT_CONTEXTUAL_MAX

DATETIME = forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M")


class CompetitionForm(forms.ModelForm):
    """Edit a competition; the task format is shown but fixed once test sets or uploads follow it."""

    template_name_p = "console/_form_p.html"

    class Meta:
        model = Competition
        fields = ("title", "description", "task_format")
        widgets = {"description": forms.Textarea(attrs={"rows": 3})}  # noqa: RUF012
        labels = {"task_format": "Task format"}  # noqa: RUF012

    def __init__(self, *args, format_locked: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        if format_locked:
            self.fields["task_format"].disabled = True
            self.fields["task_format"].help_text = "fixed: the competition has test sets or uploads"


class CompetitionCreateForm(forms.ModelForm):
    """A new competition: its address, title and task format (ReCAM, CLOTH or SCDE)."""

    template_name_p = "console/_form_p.html"

    class Meta:
        model = Competition
        fields = ("slug", "title", "description", "task_format")
        widgets = {"description": forms.Textarea(attrs={"rows": 3})}  # noqa: RUF012
        labels = {"slug": "Address (/c/<address>/)", "task_format": "Task format"}  # noqa: RUF012


class PhaseForm(forms.ModelForm):
    # Each field's errors under the field (Django's default puts them above it, i.e. under the one before).
    template_name_p = "console/_form_p.html"

    class Meta:
        model = Phase
        fields = (
            "title",
            "starts_at",
            "ends_at",
            "max_submissions_per_day",
            "max_submissions_total",
            "counted_policy",
            "results_hidden",
        )
        widgets = {"starts_at": DATETIME, "ends_at": DATETIME}  # noqa: RUF012
        labels = {  # noqa: RUF012
            "starts_at": "Opens (UTC)",
            "ends_at": "Closes (UTC)",
            "max_submissions_per_day": "Uploads per team per UTC day",
            "max_submissions_total": "Uploads per team in total",
            "counted_policy": "Which submission counts",
            "results_hidden": "Hide the results (teams see validity only)",
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in ("starts_at", "ends_at"):
            self.fields[name].input_formats = ["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M"]

    def clean(self):
        cleaned = super().clean()
        starts, ends = cleaned.get("starts_at"), cleaned.get("ends_at")
        if starts and ends and ends <= starts:
            self.add_error("ends_at", "The phase must close after it opens.")
        return cleaned


class FormatTestSetForm(forms.Form):
    """A CLOTH or SCDE phase's test set: this platform's jsonl, or the format's published layout."""

    LAYOUTS = (
        ("jsonl", "This platform's jsonl (as python -m datagen cloth / scde writes it)"),
        (
            "official",
            "The published layout: an SCDE split (.json), a CLOTH passage (.json) or a .zip of CLOTH's folder",
        ),
    )
    layout = forms.ChoiceField(choices=LAYOUTS, initial="jsonl", widget=forms.RadioSelect)
    file = forms.FileField()


class FileForSubtaskForm(forms.Form):
    subtask = forms.TypedChoiceField(choices=Subtask.choices, coerce=int)
    file = forms.FileField()


class SubmissionActionForm(forms.Form):
    ids = forms.TypedMultipleChoiceField(coerce=int, choices=())
    reason = forms.CharField(required=False, max_length=300)

    def __init__(self, *args, submission_ids: list[int], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["ids"].choices = [(pk, pk) for pk in submission_ids]


class GenerationForm(forms.Form):
    """The datagen CLI's settings (python -m datagen candidates / options)."""

    pairs = forms.ChoiceField(label="Pairs file", choices=())
    subtask = forms.TypedChoiceField(choices=Subtask.choices, coerce=int, initial=2)
    use_encoder = forms.BooleanField(required=False, label="Contextual filter (encoder; slow on CPU)")
    imperceptibility_max = forms.FloatField(
        initial=0.35, min_value=0, max_value=1, label="Subtask 1: imperceptibility below"
    )
    depth_max = forms.IntegerField(
        initial=6, min_value=1, max_value=30, label="Subtask 2: WordNet depth below"
    )
    glove_max = forms.FloatField(initial=0.85, min_value=0, max_value=1, label="GloVe cosine filter above")
    contextual_max = forms.FloatField(
        initial=DEFAULT_CONTEXTUAL_MAX, min_value=0, max_value=1, label="Contextual cosine filter above"
    )
    lesk_window = forms.IntegerField(
        initial=8, min_value=1, max_value=50, label="Lesk window (words each side)"
    )
    shard_size = forms.IntegerField(
        initial=10, min_value=1, max_value=1000, label="Pairs per shard (unit of progress and resume)"
    )
    folds = forms.IntegerField(initial=4, min_value=2, max_value=10, label="Folds for the option readers")
    readers = forms.CharField(initial="ga,att,att-gloss", max_length=100)
    ranker = forms.ChoiceField(
        choices=[("both", "readers + LM"), ("readers", "readers (the paper)"), ("lm", "LM only")],
        initial="both",
        label="Distractor ranker",
    )
    gate = forms.BooleanField(
        required=False, initial=True, label="Adversarial gate (LM; drops questions it cannot gate)"
    )
    gate_second_lm = forms.BooleanField(
        required=False,
        initial=True,
        label="Gate against a second LM too (Gemma 3 270M, gate version 4; off: version 3)",
    )
    lm_top = forms.IntegerField(initial=10, min_value=1, max_value=30, label="LM ranker's words in the pool")
    epochs = forms.IntegerField(
        required=False, min_value=1, max_value=50, label="Reader epochs (empty: reader default)"
    )
    seed = forms.IntegerField(initial=13)

    def __init__(self, *args, pairs_choices: list[tuple[str, str]], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["pairs"].choices = pairs_choices

    def clean_readers(self) -> str:
        names = [r.strip() for r in self.cleaned_data["readers"].split(",") if r.strip()]
        known = {"ga", "att", "att-gloss"}
        if not names or set(names) - known:
            raise forms.ValidationError(f"choose among {', '.join(sorted(known))}, comma-separated")
        return ",".join(names)


class PairsUploadForm(forms.Form):
    file = forms.FileField(label="XSum pairs (.jsonl: id, document, summary per line)")


class LoadIntoPhaseForm(forms.Form):
    phase = forms.ModelChoiceField(queryset=None)
    subtask = forms.TypedChoiceField(choices=Subtask.choices, coerce=int)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        from competitions.models import Phase

        self.fields["phase"].queryset = Phase.objects.select_related("competition")
