"""pandas DataFrames of results (`result.to_frame()`), with pandas imported only when one is asked for.

pandas is an optional extra (`pip install 'releval[frame]'`): importing it costs about 0.3 s, which no scoring run
should pay. Every result's `to_frame()` builds plain records and hands them to `data_frame`.

>>> float(data_frame([{"label": "A", "f": 0.5}, {"label": "B", "f": 1.0}], index="label").loc["B", "f"])
1.0
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def data_frame(records: Sequence[dict[str, Any]], index: str | list[str] | None = None) -> Any:
    """A DataFrame of `records` (one row each), indexed by the `index` column(s)."""
    try:
        import pandas as pd
    except ImportError as exc:
        raise ImportError("to_frame() needs pandas: pip install 'releval[frame]'") from exc
    frame = pd.DataFrame(list(records))
    return frame.set_index(index) if index is not None and len(frame) else frame
