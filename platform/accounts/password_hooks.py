"""A password "validator" that validates nothing: Django calls its ``password_changed`` after every save of
a new password (the sign-in forms, the admin's password form, ``manage.py changepassword``,
``set_password`` anywhere), and it revokes the account's API tokens then."""

from accounts.services import account_tokens_revoke


class RevokeApiTokensOnPasswordChange:
    def validate(self, password, user=None) -> None:
        return None

    def password_changed(self, password, user=None) -> None:
        if user is not None and user.pk is not None:
            account_tokens_revoke(user=user)

    def get_help_text(self) -> str:
        return "A new password revokes the account's API tokens."
