"""Schema changes go through migrations: the models and the migrations agree, and a database made at the first
migration is brought forward by `releval serve`'s start (on SQLite and PostgreSQL)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from tests.service.boards import BACKENDS, board_env, database

SCRIPT = """
import sys
from releval.service import configure
configure()
from django.core.management import call_command
from django.db import connection
from django.db.migrations.recorder import MigrationRecorder
{body}
"""


def run(body: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", SCRIPT.format(body=body)], env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_models_match_migrations_and_upgrade(backend: str, tmp_path) -> None:
    with database(backend, tmp_path) as url:
        env = board_env(url, tmp_path)
        done = run("call_command('makemigrations', 'board', '--check', '--dry-run', verbosity=0)", env)
        assert done.returncode == 0, done.stdout + done.stderr  # a model change without its migration fails here
        done = run("call_command('migrate', 'board', '0001', verbosity=0)", env)
        assert done.returncode == 0, done.stderr
        tables = "print(sorted(t for t in connection.introspection.table_names() if t.startswith('board_')))"
        assert "board_pairtest" not in run(tables, env).stdout
        # a row stored at 0001 (raw SQL: today's models have columns 0001 lacks) survives the upgrade that
        # `releval token` runs on start
        insert = (
            "from django.utils import timezone\n"
            "with connection.cursor() as c:\n"
            "    c.execute('INSERT INTO board_submitter (name, token_hash, is_admin, created) VALUES (%s, %s, %s, %s)',"
            " ['early', 'ab' * 32, False, timezone.now()])"
        )
        done = run(insert, env)
        assert done.returncode == 0, done.stderr
        done = subprocess.run([sys.executable, "-m", "releval", "token", "x"], env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        applied = "print(sorted(m.name for m in MigrationRecorder.Migration.objects.filter(app='board')))"
        assert run(applied, env).stdout.strip() == str(
            [
                "0001_initial",
                "0002_pair_tests",
                "0003_dev_gold",
                "0004_variants",
                "0005_run_data",
                "0006_phases_charges",
                "0007_retire",
            ]
        )
        assert "board_pairtest" in run(tables, env).stdout
        early = "from releval.service.models import Submitter; print(Submitter.objects.get(name='early').token_hash)"
        assert run(early, env).stdout.strip() == "ab" * 32
