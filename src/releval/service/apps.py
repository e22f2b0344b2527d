"""The Django app of the board."""

from django.apps import AppConfig


class BoardConfig(AppConfig):
    name = "releval.service"
    label = "board"
    verbose_name = "releval leaderboard"
    default_auto_field = "django.db.models.BigAutoField"
