"""A fuzzer for releval's input promise: bad input gives one clear, located error and exit 2 — never a traceback,
never a silently wrong score, never a damaged file.

Parts (each module says what and why):

- `seeds`: small slices of the bundled data (examples/ and tests/data/) in every input format, the starting points;
- `mutators`: structure-aware mutations of those seeds (JSON values, lines and fields, bytes, encodings, gzip);
- `reference`: an independent strict reader per format, written from the format definitions with only the
  standard library (`json` with hooks, `gzip`), never calling releval's loaders;
- `oracle`: runs releval's loader and the reference on each mutated input and classifies the outcome;
  `KNOWN_OPEN` and `DELIBERATE_REFUSALS` are the two explicit tables;
- `commands`: real `releval.cli.main` runs on mutated files (exit code, stderr shape, output file untouched);
- `corpus_io` and `corpus/`: inputs that ever failed, with the expected outcome, replayed by tests/test_fuzz.py.

Run a long campaign with `python -m tests.fuzz --seed N --count M` (see tests/fuzz/README.md).
"""
