"""The WSGI application, for `releval serve` or any WSGI server (`gunicorn releval.service.wsgi:application`,
after setting RELEVAL_DATABASE_URL; run `releval worker` beside it)."""

from django.conf import settings
from django.core.wsgi import get_wsgi_application

from releval.service.setup import configure

if not settings.configured:  # `releval serve` configured it from its options already
    configure()
application = get_wsgi_application()
