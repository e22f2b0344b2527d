"""Phases and charges (releval.service.phases). Benchmarks made before them showed every detail of their test
runs: they are marked open (nothing they showed is taken back; an organiser may add phases and clear the flag).
Their stored runs become charges (copies in variants excepted), so the daily quota still counts them."""

from typing import Any

import django.db.models.deletion
from django.db import migrations, models


def forward(apps: Any, schema_editor: Any) -> None:
    Benchmark = apps.get_model("board", "Benchmark")
    Run = apps.get_model("board", "Run")
    Charge = apps.get_model("board", "Charge")
    Benchmark.objects.update(open=True)
    runs = Run.objects.filter(entry__benchmark__parent__isnull=True).values_list(
        "entry__owner_id", "entry__benchmark_id", "split", "created"
    )
    Charge.objects.bulk_create(
        [Charge(submitter_id=o, benchmark_id=b, split=s, created=c) for o, b, s, c in runs.iterator()],
        batch_size=500,
    )


class Migration(migrations.Migration):
    dependencies: list[tuple[str, str]] = [
        ("board", "0005_run_data"),
    ]

    operations = [
        migrations.AddField(
            model_name="benchmark",
            name="open",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="benchmark",
            name="organiser",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="organised",
                to="board.submitter",
            ),
        ),
        migrations.CreateModel(
            name="Charge",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("split", models.CharField(default="test", max_length=10)),
                ("created", models.DateTimeField(db_index=True)),
                (
                    "benchmark",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="charges", to="board.benchmark"
                    ),
                ),
                (
                    "submitter",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="charges", to="board.submitter"
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="Phase",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=40)),
                ("start", models.DateTimeField()),
                ("end", models.DateTimeField(blank=True, null=True)),
                ("hidden", models.BooleanField(default=True)),
                (
                    "measures",
                    models.CharField(
                        choices=[("primary", "the first measure only"), ("all", "every measure")],
                        default="primary",
                        max_length=10,
                    ),
                ),
                ("digits", models.PositiveSmallIntegerField(blank=True, default=1, null=True)),
                ("total_limit", models.PositiveIntegerField(blank=True, default=10, null=True)),
                ("daily_limit", models.PositiveIntegerField(blank=True, default=3, null=True)),
                (
                    "benchmark",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="phases", to="board.benchmark"
                    ),
                ),
            ],
            options={
                "ordering": ["start", "id"],
            },
        ),
        migrations.RunPython(forward, migrations.RunPython.noop),
    ]
