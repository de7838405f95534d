from django import forms

from competitions.models import Phase, Subtask

TRAINED_ON = [(1, "Subtask 1 training data"), (2, "Subtask 2 training data")]


class SubmissionForm(forms.Form):
    phase = forms.ModelChoiceField(queryset=Phase.objects.none(), empty_label=None)
    file = forms.FileField(
        label="Predictions",
        help_text="a .zip with subtask1.csv and/or subtask2.csv at its root, or one of those CSVs",
    )
    trained_on_1 = forms.TypedChoiceField(
        choices=TRAINED_ON, coerce=int, initial=1, label=f"{Subtask(1).label}: the system was trained on"
    )
    trained_on_2 = forms.TypedChoiceField(
        choices=TRAINED_ON, coerce=int, initial=2, label=f"{Subtask(2).label}: the system was trained on"
    )
    system_name = forms.CharField(max_length=100, required=False)
    description = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 3}), label="Method description (short)"
    )

    def __init__(self, *args, competition, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["phase"].queryset = Phase.objects.filter(competition=competition).order_by("order")
        self.fields["phase"].label_from_instance = lambda phase: phase.title
