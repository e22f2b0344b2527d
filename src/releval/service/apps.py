"""The Django app of the board."""

from django.apps import AppConfig


class BoardConfig(AppConfig):
    name = "releval.service"
    label = "board"
    verbose_name = "releval leaderboard"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Register the job handlers (releval.service.jobs) once the models are loaded, so that the queue
        (releval.service.queue), which the handlers use, need not import them: no import cycle."""
        from releval.service import jobs  # noqa: F401
