"""Entry names as they look (releval.service.names): the Default_Ignorable characters removed in one pass of a
character class equal, at every edge of every range, a test written out from the ranges; a name's skeleton is
computed once however many submissions compare against it."""

from __future__ import annotations

from releval.service.names import DEFAULT_IGNORABLE, is_default_ignorable, skeleton


def test_the_ignorable_class_holds_each_range_and_nothing_beside_it() -> None:
    def by_hand(code: int) -> bool:
        return any(low <= code <= high for low, high in DEFAULT_IGNORABLE)

    edges = {c for low, high in DEFAULT_IGNORABLE for c in (low - 1, low, (low + high) // 2, high, high + 1)}
    for code in sorted(edges | {ord("-"), ord("]"), ord("\\"), ord("^"), 0x180E, 0x200D}):
        assert is_default_ignorable(chr(code)) == by_hand(code), hex(code)
    assert skeleton("r\u200db\u00adert\U000e0041") == skeleton("rbert")


def test_a_name_is_folded_once() -> None:
    skeleton.cache_clear()
    names = [f"system-{i}" for i in range(100)]
    for _ in range(5):  # five submissions, each compared with the 100 entries
        assert all(skeleton(n) != skeleton("new-entry") for n in names)
    info = skeleton.cache_info()
    assert info.misses == 101 and info.hits == 5 * 200 - 101
