"""Measures can fail or be retired; variants can be retired."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies: list[tuple[str, str]] = [
        ("board", "0006_phases_charges"),
    ]

    operations = [
        migrations.AddField(
            model_name="benchmark",
            name="retired",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="measure",
            name="error",
            field=models.TextField(blank=True),
        ),
        migrations.AddField(
            model_name="measure",
            name="status",
            field=models.CharField(
                choices=[("active", "active"), ("failed", "failed"), ("retired", "retired")],
                default="active",
                max_length=10,
            ),
        ),
    ]
