from django import forms


class BatchForm(forms.Form):
    name = forms.CharField(max_length=200, required=False, help_text="defaults to the file name")
    file = forms.FileField(required=False, help_text="a labelled ReCAM jsonl, as written by datagen options")
    path = forms.ChoiceField(
        required=False, help_text="or a file already on the server (VALIDATION_SOURCE_DIR)"
    )
    annotations_per_question = forms.IntegerField(min_value=1, max_value=50, initial=3)
    questions_per_assignment = forms.IntegerField(min_value=1, max_value=500, initial=10)
    allow_none = forms.BooleanField(
        required=False, initial=True, label='Allow "none of these / more than one fits"'
    )
    gold_rate = forms.FloatField(
        min_value=0, max_value=1, initial=0.2, help_text="gold checks per generated question"
    )
    min_gold_accuracy = forms.FloatField(
        min_value=0,
        max_value=0.99,
        initial=0.4,
        help_text="annotators at or below this gold accuracy are not counted (0: count everyone)",
    )
    two_stage = forms.BooleanField(
        required=False,
        initial=False,
        label="Two stages: answer without the article first, then with it",
        help_text='the same annotator; with the article they may mark "more than one option fits" and "an option is ungrammatical"',
    )
    gold_file = forms.FileField(
        required=False, help_text="known-good labelled questions; default: VALIDATION_GOLD_FILE"
    )

    def __init__(self, *args, paths: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["path"].choices = [("", "---")] + [(p, p) for p in paths]

    def clean(self):
        data = super().clean()
        if bool(data.get("file")) == bool(data.get("path")):
            raise forms.ValidationError("upload a file or choose one on the server (one of the two)")
        return data


class QualityReportForm(forms.Form):
    report = forms.FileField(help_text="the JSON written by python -m datagen quality")


class AddAnnotatorsForm(forms.Form):
    usernames = forms.CharField(
        max_length=2000, label="Usernames", help_text="existing accounts, separated by spaces or commas"
    )

    def clean_usernames(self) -> list[str]:
        return self.cleaned_data["usernames"].replace(",", " ").split()


class ReleaseForm(forms.Form):
    username = forms.CharField(max_length=150)


class BatchSettingsForm(forms.Form):
    annotations_per_question = forms.IntegerField(
        min_value=1, max_value=50, label="Counted annotations per question"
    )
    min_gold_accuracy = forms.FloatField(
        min_value=0,
        max_value=0.99,
        label="Minimum gold-check accuracy",
        help_text="annotators at or below it are not counted and their slots go to others (0: count everyone)",
    )
