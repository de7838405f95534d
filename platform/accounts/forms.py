from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import PasswordChangeForm, SetPasswordForm, UserCreationForm

from accounts.services import account_tokens_revoke


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


class TokenRevokingSetPasswordForm(SetPasswordForm):
    """A password reset: the new password also revokes the user's API tokens."""

    def save(self, commit: bool = True):
        user = super().save(commit=commit)
        account_tokens_revoke(user=user)
        return user


class TokenRevokingPasswordChangeForm(PasswordChangeForm):
    """A password change: the new password also revokes the user's API tokens."""

    def save(self, commit: bool = True):
        user = super().save(commit=commit)
        account_tokens_revoke(user=user)
        return user
