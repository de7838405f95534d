from django import forms


class TeamCreateForm(forms.Form):
    name = forms.CharField(max_length=60, label="Team name")
    accept_rules = forms.BooleanField(
        required=True, label="My team accepts the competition rules and terms (see the Rules page)"
    )


class TeamJoinForm(forms.Form):
    invite_code = forms.CharField(max_length=200, label="Invite code or link")

    def clean_invite_code(self) -> str:
        value = self.cleaned_data["invite_code"].strip().rstrip("/")
        return value.rsplit("/", 1)[-1]  # a pasted invite link works as well as the bare code
