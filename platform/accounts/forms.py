from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm


class SignupForm(UserCreationForm):
    """Sign-up with an e-mail address: for password resets and for the organizers to reach teams."""

    email = forms.EmailField(
        label="E-mail", help_text="For password resets and competition announcements; never shown."
    )

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")

    def clean_email(self) -> str:
        # Whether an account has this address is never said here (that would tell anyone which addresses
        # have accounts): accounts.services.account_signup writes to the address either way.
        return self.cleaned_data["email"].strip()
