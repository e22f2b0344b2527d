"""Django settings built in code from the environment, so `releval serve` needs no settings module or project.

* `RELEVAL_DATABASE_URL`: `sqlite:///path/board.sqlite3` (default: `board.sqlite3` in the data directory) or
  `postgresql://user:password@host:port/database`.
* `RELEVAL_DATA_DIR`: where the SQLite file and the secret key live (default `./releval-board`).
* `RELEVAL_SECRET_KEY`: signs the CSRF cookie (default: a random key kept in the data directory).
* `RELEVAL_ALLOWED_HOSTS`: comma-separated host names the server answers (default: localhost names).
* `RELEVAL_MAX_UPLOAD_MB` (default 50) and `RELEVAL_DAILY_QUOTA` (submissions per user per day, default 20).
* `RELEVAL_REFUSED_QUOTA`: refused uploads per submitter in 24 hours (default 20), then 429 until they age out.
"""

from __future__ import annotations

import logging
import os
import secrets
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from releval.core.errors import OptionError, RelevalError

DEFAULT_DATA_DIR = "releval-board"


def check_database_url(url: str, source: str = "RELEVAL_DATABASE_URL") -> None:
    """Refuse a URL that is neither `sqlite:///…` nor `postgresql://…/DB` (an OptionError naming `source`)."""
    database_settings(url, Path("."), source)


def database_settings(url: str | None, data_dir: Path, source: str = "RELEVAL_DATABASE_URL") -> dict[str, Any]:
    """Django's DATABASES entry for a `sqlite:///…` or `postgresql://…` URL (None: SQLite in `data_dir`).

    >>> database_settings("postgresql://me@127.0.0.1:5432/test", Path("."))["NAME"]
    'test'
    >>> database_settings("sqlite:////tmp/b.sqlite3", Path("."))["NAME"]
    '/tmp/b.sqlite3'
    """
    if not url:
        return {"ENGINE": "django.db.backends.sqlite3", "NAME": str(data_dir / "board.sqlite3"), **_SQLITE}
    parts = urlsplit(url)
    if parts.scheme == "sqlite":
        path = unquote(parts.path)
        if parts.netloc or not path or path == "/":
            raise OptionError(f"{source} {url!r}: write sqlite:///relative.db or sqlite:////absolute.db", option=source)
        return {"ENGINE": "django.db.backends.sqlite3", "NAME": path[1:], **_SQLITE}
    if parts.scheme in ("postgres", "postgresql"):
        name = unquote(parts.path.lstrip("/"))
        if not name:
            raise OptionError(f"{source} {url!r} names no database", option=source)
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": name,
            "USER": unquote(parts.username or ""),
            "PASSWORD": unquote(parts.password or ""),
            "HOST": parts.hostname or "",
            "PORT": str(parts.port or ""),
            "CONN_MAX_AGE": 60,
        }
    raise OptionError(f"{source} {url!r}: only sqlite:/// and postgresql:// are supported", option=source)


# SQLite: writers wait for each other (the worker and the web threads share one file) instead of failing at once.
_SQLITE: dict[str, Any] = {"OPTIONS": {"timeout": 30, "transaction_mode": "IMMEDIATE"}}


def _secret_key(data_dir: Path) -> str:
    key = os.environ.get("RELEVAL_SECRET_KEY")
    if key:
        return key
    path = data_dir / "secret_key"
    if not path.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(48))
        path.chmod(0o600)
    return path.read_text().strip()


def configure(database_url: str | None = None, data_dir: str | Path | None = None) -> None:
    """Configure and set up Django once per process (later calls do nothing)."""
    from django.conf import settings

    data = Path(data_dir or os.environ.get("RELEVAL_DATA_DIR") or DEFAULT_DATA_DIR).resolve()
    url = database_url if database_url is not None else os.environ.get("RELEVAL_DATABASE_URL")
    database = database_settings(url, data)
    if database["ENGINE"].endswith("sqlite3"):
        data.mkdir(parents=True, exist_ok=True)
    if settings.configured:  # once per process: a second call must ask for the same database
        current = settings.DATABASES["default"]
        if (current["ENGINE"], current["NAME"]) != (database["ENGINE"], database["NAME"]):
            raise RelevalError(
                f"the board's database is already {current['NAME']!r} in this process; cannot switch to "
                f"{database['NAME']!r}"
            )
        return
    import django

    hosts = os.environ.get("RELEVAL_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver")
    max_upload = int(float(os.environ.get("RELEVAL_MAX_UPLOAD_MB", "50")) * 1_000_000)
    settings.configure(
        DEBUG=False,
        SECRET_KEY=_secret_key(data),
        ALLOWED_HOSTS=[h.strip() for h in hosts.split(",") if h.strip()],
        INSTALLED_APPS=["releval.service.apps.BoardConfig"],
        MIDDLEWARE=[
            "django.middleware.security.SecurityMiddleware",
            "django.middleware.common.CommonMiddleware",
            "django.middleware.csrf.CsrfViewMiddleware",
            "django.middleware.clickjacking.XFrameOptionsMiddleware",
            "releval.service.views.ApiJsonErrors",
        ],
        ROOT_URLCONF="releval.service.urls",
        TEMPLATES=[{"BACKEND": "django.template.backends.django.DjangoTemplates", "APP_DIRS": True}],
        DATABASES={"default": database},
        DEFAULT_AUTO_FIELD="django.db.models.BigAutoField",
        USE_TZ=True,
        DATA_UPLOAD_MAX_MEMORY_SIZE=max_upload,
        FILE_UPLOAD_MAX_MEMORY_SIZE=max_upload,
        RELEVAL_MAX_UPLOAD=max_upload,
        RELEVAL_DAILY_QUOTA=int(os.environ.get("RELEVAL_DAILY_QUOTA", "20")),
        RELEVAL_REFUSED_QUOTA=int(os.environ.get("RELEVAL_REFUSED_QUOTA", "20")),
        RELEVAL_DATA_DIR=str(data),
        LOGGING={
            "version": 1,
            "disable_existing_loggers": False,
            "formatters": {"one_line": {"()": "releval.service.setup.OneLine"}},
            "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "one_line"}},
            # not propagated: the root logger of `releval serve` would print each line a second time
            "loggers": {"django": {"handlers": ["stderr"], "level": "WARNING", "propagate": False}},
        },
    )
    django.setup()


class OneLine(logging.Formatter):
    """Django's log records as one line each: `warning: Not Found: /x`, `warning: Invalid HTTP_HOST header: 'x'…`.
    A client's fault (a 4xx, a refused Host header: `django.security`) carries no traceback; an internal error
    (a 500) keeps its traceback, which the operator needs.

    >>> record = logging.LogRecord("django.request", logging.WARNING, "x.py", 1, "Not Found: %s", ("/x",), None)
    >>> OneLine().format(record)
    'warning: Not Found: /x'
    """

    def format(self, record: logging.LogRecord) -> str:
        client = record.name.startswith("django.security")  # a request refused for what it sent: a warning
        level = "warning" if client and record.levelno >= logging.WARNING else record.levelname.lower()
        line = f"{level}: {' '.join(record.getMessage().split())}"
        if record.levelno >= logging.ERROR and not client and record.exc_info:
            return line + "\n" + self.formatException(record.exc_info)
        return line


#: The PostgreSQL advisory lock that serialises migrations of processes starting together (any fixed number).
MIGRATION_LOCK = 0x72656C76


def migrate() -> None:
    """Bring the database's schema up to date (Django migrations), on every start of every process: processes that
    start together take turns (a PostgreSQL advisory lock, a file lock beside an SQLite file), so no two apply the
    same migration."""
    import contextlib

    from django.core.management import call_command
    from django.db import connection

    with contextlib.ExitStack() as stack:
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_lock(%s)", [MIGRATION_LOCK])

            def unlock() -> None:
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_advisory_unlock(%s)", [MIGRATION_LOCK])

            stack.callback(unlock)
        elif connection.vendor == "sqlite":
            stack.enter_context(_file_lock(Path(str(connection.settings_dict["NAME"]) + ".migrate-lock")))
        call_command("migrate", verbosity=0, interactive=False)


def _file_lock(path: Path) -> Any:
    """An exclusive lock on `path` for the block (fcntl where there is one; elsewhere no lock)."""
    import contextlib

    @contextlib.contextmanager
    def held() -> Any:
        try:
            import fcntl
        except ImportError:  # Windows: one process per SQLite board is the supported set-up there
            yield
            return
        with open(path, "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    return held()
