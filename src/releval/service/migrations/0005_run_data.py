"""A run's upload, aligned predictions and result move to a table of their own (RunData), copied, then dropped
from the run's row."""

from typing import Any

import django.db.models.deletion
from django.db import migrations, models


def copy_forward(apps: Any, schema_editor: Any) -> None:
    Run = apps.get_model("board", "Run")
    RunData = apps.get_model("board", "RunData")
    for run in Run.objects.all().iterator(chunk_size=100):
        RunData.objects.create(run_id=run.pk, upload=run.upload, aligned=run.aligned, result=run.result)


def copy_back(apps: Any, schema_editor: Any) -> None:
    Run = apps.get_model("board", "Run")
    RunData = apps.get_model("board", "RunData")
    for data in RunData.objects.all().iterator(chunk_size=100):
        Run.objects.filter(pk=data.run_id).update(upload=data.upload, aligned=data.aligned, result=data.result)


class Migration(migrations.Migration):
    dependencies: list[tuple[str, str]] = [
        ("board", "0004_variants"),
    ]

    operations = [
        migrations.CreateModel(
            name="RunData",
            fields=[
                (
                    "run",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="data",
                        serialize=False,
                        to="board.run",
                    ),
                ),
                ("upload", models.BinaryField()),
                ("aligned", models.BinaryField()),
                ("result", models.JSONField(default=dict)),
            ],
        ),
        migrations.RunPython(copy_forward, copy_back),
        migrations.RemoveField(
            model_name="run",
            name="aligned",
        ),
        migrations.RemoveField(
            model_name="run",
            name="result",
        ),
        migrations.RemoveField(
            model_name="run",
            name="upload",
        ),
    ]
