"""The merge, as properties: any order of arrival, any repetition, any clock skew gives the same library."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from core.sync.clock import HybridClock, parse
from core.sync.merge import Change, merge, value_of
from core.sync.wire import FILE_BYTES, decode, encode, parse_line

DEVICES = ("phone", "desk", "tablet")
KEYS = ("highlight/h/1.0/1.5", "place/h", "meta/h", "furthest/h")


@st.composite
def histories(draw) -> list[Change]:
    """Edits on up to three devices whose clocks are off by up to hours, each device syncing now and then
    (so a device's later edits are stamped after everything it received)."""
    skews = {device: draw(st.integers(-4 * 3600_000, 4 * 3600_000)) for device in DEVICES}
    clocks = {device: HybridClock() for device in DEVICES}
    now = 1_800_000_000_000
    made: list[Change] = []
    for _ in range(draw(st.integers(1, 30))):
        device = draw(st.sampled_from(DEVICES))
        now += draw(st.integers(0, 60_000))
        if draw(st.booleans()) and made:  # a sync: this device sees a random prefix of everything made so far
            for change in made[: draw(st.integers(0, len(made)))]:
                clocks[device].observe(change.stamp)
        key = draw(st.sampled_from(KEYS))
        if key.startswith("furthest/"):
            value = {"locator": "x", "ordinal": draw(st.integers(0, 50)), "reset": draw(st.booleans())}
        else:
            value = {"present": draw(st.booleans()), "n": draw(st.integers(0, 5))}
        made.append(Change(key, clocks[device].tick(now + skews[device]), device, value))
    return made


def fold(changes: list[Change]) -> dict[str, dict]:
    entries: dict[str, dict] = {}
    for change in changes:
        folded = merge(entries.get(change.key), change)
        if folded is not None:
            entries[change.key] = folded
    return entries


def expected(changes: list[Change]) -> dict[str, dict]:
    """What the merged library must show, computed from the whole set at once."""
    result = {}
    for key in {c.key for c in changes}:
        mine = [c for c in changes if c.key == key]
        if not key.startswith("furthest/"):
            result[key] = max(mine, key=lambda c: c.order).value
            continue
        resets = [c for c in mine if c.value["reset"]]
        last_reset = max(resets, key=lambda c: c.order) if resets else None
        standing = [c for c in mine if last_reset is None or c.order > last_reset.order]
        standing += [last_reset] if last_reset else []
        best = max(standing, key=lambda c: (c.value["ordinal"], c.order))
        result[key] = {"locator": best.value["locator"], "ordinal": best.value["ordinal"]}
    return result


@settings(max_examples=300, deadline=None)
@given(histories(), st.randoms(use_true_random=False), st.integers(0, 3))
def test_every_order_and_every_repeat_converges_to_the_same_state(changes, rnd, repeats) -> None:
    reference = fold(changes)
    shuffled = changes + [rnd.choice(changes) for _ in range(repeats)]  # some delivered twice (a resumed sync)
    rnd.shuffle(shuffled)
    assert fold(shuffled) == reference  # the stored state itself, not only what it means
    assert {key: value_of(key, entry) for key, entry in reference.items()} == expected(changes)


@settings(max_examples=200, deadline=None)
@given(histories())
def test_no_edit_is_lost_unless_a_later_edit_to_the_same_record_replaced_it(changes) -> None:
    merged = {key: value_of(key, entry) for key, entry in fold(changes).items()}
    for change in changes:
        if change.key.startswith("furthest/"):
            continue
        later = [c for c in changes if c.key == change.key and c.order > change.order]
        assert merged[change.key] == change.value or later


def test_an_edit_made_after_seeing_a_change_wins_even_with_a_clock_hours_behind() -> None:
    fast, slow = HybridClock(wall=lambda: 1_800_000_000.0 + 3 * 3600), HybridClock(wall=lambda: 1_800_000_000.0)
    theirs = Change("highlight/h/1.0/1.5", fast.tick(), "desk", {"present": True, "note": "first"})
    slow.observe(theirs.stamp)  # the slow phone synced, then edited
    mine = Change("highlight/h/1.0/1.5", slow.tick(), "phone", {"present": True, "note": "edited after"})
    assert parse(mine.stamp) > parse(theirs.stamp)
    for order in ((theirs, mine), (mine, theirs)):
        assert value_of(mine.key, fold(list(order))[mine.key])["note"] == "edited after"


H = "ab" * 32  # a content hash


def test_log_lines_that_quire_did_not_write_are_refused() -> None:
    good = Change(f"place/{H}", HybridClock().tick(1), "phone", {"locator": "1.2"})
    assert parse_line(good.to_line()) == good
    for line in ('{"k": "place/h"}', "[1, 2]", "not json", '{"k": "a", "t": "yesterday", "d": "x", "v": {}}',
                 f'{{"k": "furthest/{H}", "t": "000000000000001-000000", "d": "xxxx", "v": {{"ordinal": "far"}}}}'):  # fmt: skip
        with pytest.raises(ValueError):
            parse_line(line)


def test_each_kind_of_record_reads_as_plain_json_with_its_defaults_and_without_unknown_fields() -> None:
    written = {  # as a device writes them, each with a field Quire does not know
        f"book/{H}": ({"present": True}, {"present": True}),
        f"meta/{H}": ({"title": "白鲸", "authors": ["Melville"]}, {"title": "白鲸", "authors": ["Melville"]}),
        f"place/{H}": ({"locator": "3.12:40"}, {"locator": "3.12:40"}),
        f"furthest/{H}": ({"locator": "3.12", "ordinal": 7}, {"locator": "3.12", "ordinal": 7}),
        f"time/{H}/phone1": ({"seconds": 12}, {"seconds": 12}),
        f"day/{H}/phone1/2026-12-06": ({"seconds": 60.5}, {"seconds": 60.5, "chars": 0, "sessions": 0}),
        f"bookmark/{H}/0123456789abcdef": ({"present": True, "locator": "1.2"},
                                          {"present": True, "locator": "1.2", "label": ""}),
        f"highlight/{H}/0123456789abcdef": ({"present": True, "start": "1.2", "end": "1.3:4"},
                                           {"present": True, "start": "1.2", "end": "1.3:4", "color": "yellow",
                                            "note": ""}),
        f"tag/{H}/sea": ({"present": False}, {"present": False}),
        f"word/{H}/whale": ({"present": True, "definition": "鲸"},
                            {"present": True, "locator": "", "sentence": "", "definition": "鲸"}),
    }  # fmt: skip
    for key, (value, expected) in written.items():
        line = Change(key, "000000000000001-000000", "phone1", {**value, "from_the_future": [1]}).to_line()
        read = parse_line(line)
        assert read.value == expected, key
        assert json.loads(json.dumps(read.value)) == expected, key  # plain JSON types all the way down


POISON = [  # valid JSON of the wrong shape: each once stopped sync on every device
    '{"k":"x","t":"000000000000001-000000","d":"evil1","v":{}}',
    f'{{"k":"highlight/{H}","t":"000000000000001-000000","d":"evil1","v":{{"present":true}}}}',
    f'{{"k":"highlight/{H}/0123456789abcdef0123","t":"000000000000001-000000","d":"evil1","v":{{"present":true}}}}',
    f'{{"k":"highlight/{H}/0123456789abcdef0123","t":"000000000000001-000000","d":"evil1",'
    '"v":{"present":true,"start":"9999999999999999999999.1","end":"x","color":"red"}}',
    f'{{"k":"bookmark/{H}/1.2","t":"000000000000001-000000","d":"evil1","v":{{"present":"yes"}}}}',
    f'{{"k":"meta/{H}","t":"000000000000001-000000","d":"evil1","v":{{"title":7,"authors":"me"}}}}',
    f'{{"k":"time/{H}/evil1","t":"000000000000001-000000","d":"evil1","v":{{"seconds":"NaN"}}}}',
    f'{{"k":"time/{H}/evil1","t":"000000000000001-000000","d":"evil1","v":{{"seconds":1e999}}}}',
    f'{{"k":"furthest/{H}","t":"000000000000001-000000","d":"evil1","v":{{"locator":[],"ordinal":-5}}}}',
    f'{{"k":"place/{H}","t":"000000000000001-000000","d":"evil1","v":{{"locator":"1.2","x":'
    + "[" * 100_000
    + "]" * 100_000
    + "}}",
    f'{{"k":"tag/{H}/a/b","t":"000000000000001-000000","d":"evil1","v":{{"present":true}}}}',
    f'{{"k":"book/{H}","t":"000000000000001-000000","d":"e/../x","v":{{"present":true}}}}',
    f'{{"k":"book/{H}","t":"1-1","d":"evil1","v":{{"present":true}}}}',
]


@pytest.mark.parametrize("line", POISON)
def test_records_of_the_wrong_shape_are_refused_with_a_value_error(line: str) -> None:
    with pytest.raises(ValueError):
        parse_line(line)


def test_a_log_file_reads_whole_or_is_kept_aside() -> None:
    changes = [Change(f"tag/{H}/t{n}", HybridClock().tick(n + 1), "phone", {"present": True}) for n in range(11)]
    [data] = encode(changes)
    assert decode(data).changes == changes and decode(data).damaged is None
    for cut in (len(data) // 2, len(data) - 1, data.index(b"\n") + 1, 10):
        read = decode(data[:cut])
        assert read.damaged and read.changes == []  # none of it is taken, so nothing of it is lost for good
    flipped = bytearray(data)
    flipped[-5] ^= 0x01  # one bit of a record, the size unchanged
    assert decode(bytes(flipped)).damaged
    legacy = b"".join((c.to_line() + "\n").encode() for c in changes)  # a file from Quire before headers
    assert decode(legacy).changes == changes and decode(legacy[:-3]).damaged
    mixed = decode(b"".join([legacy, POISON[0].encode(), b"\n"]))
    assert mixed.changes == changes and len(mixed.skipped) == 1  # a poisoned line is skipped, the rest kept


def test_what_a_device_sends_is_split_into_files_it_and_others_can_read() -> None:
    note = "长" * 90_000  # a long note, three bytes a character
    changes = [
        Change(f"highlight/{H}/{n:020x}", HybridClock().tick(n + 1), "phone",
               {"present": True, "start": "1.1", "end": "1.2", "color": "yellow", "note": note})
        for n in range(60)
    ]  # fmt: skip
    files = encode(changes)
    assert len(files) > 1 and all(len(f) <= FILE_BYTES + 300_000 for f in files)
    assert [c for f in files for c in decode(f).changes] == changes
