from django import forms

from competitions.models import Competition, Phase, Subtask

DATETIME = forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M")


class CompetitionForm(forms.ModelForm):
    class Meta:
        model = Competition
        fields = ("title", "description")
        widgets = {"description": forms.Textarea(attrs={"rows": 3})}  # noqa: RUF012


class PhaseForm(forms.ModelForm):
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


class FileForSubtaskForm(forms.Form):
    subtask = forms.TypedChoiceField(choices=Subtask.choices, coerce=int)
    file = forms.FileField()


class SubmissionActionForm(forms.Form):
    ids = forms.TypedMultipleChoiceField(coerce=int, choices=())
    reason = forms.CharField(required=False, max_length=300)

    def __init__(self, *args, submission_ids: list[int], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["ids"].choices = [(pk, pk) for pk in submission_ids]
