"""The bidimensional leaderboard (Harbecke et al. 2022, §5): a web service over releval's public API.

Predictions are submitted (web form, `releval submit`, JSON API), validated by the library's strict loaders,
scored by workers under every measure of the benchmark, and shown on a board with intervals, signatures and tie
groups. Registering a new measure (`power:0.5`) re-scores every stored run from its stored aligned predictions.

The service is Django (its ORM, migrations, CSRF and templates) over SQLite by default or PostgreSQL
(`RELEVAL_DATABASE_URL`); jobs are rows of a table in the same database (`releval.service.queue`). docs/service.md
has the set-up, the API and the data model. Install with `pip install 'releval[service]'`.
"""

from releval.service.setup import configure

__all__ = ["configure"]
