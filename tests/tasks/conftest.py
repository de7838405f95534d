"""The platform fixtures (eager scoring, isolated storage, the real competition) serve the task tests too."""

from tests.platform.conftest import *  # noqa: F403
