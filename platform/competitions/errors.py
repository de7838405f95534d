"""The one error services raise for a rule a user broke; views, tasks and commands translate it."""


class ApplicationError(Exception):
    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)
