"""The merge, as properties: any order of arrival, any repetition, any clock skew gives the same library."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from core.sync.clock import HybridClock, parse
from core.sync.merge import Change, merge, value_of

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


def test_log_lines_that_quire_did_not_write_are_refused() -> None:
    good = Change("place/h", HybridClock().tick(1), "phone", {"locator": "1.2"})
    assert Change.from_line(good.to_line()) == good
    for line in ('{"k": "place/h"}', "[1, 2]", "not json", '{"k": "a", "t": "yesterday", "d": "x", "v": {}}',
                 '{"k": "furthest/h", "t": "000000000000001-000000", "d": "x", "v": {"ordinal": "far"}}'):  # fmt: skip
        try:
            Change.from_line(line)
        except ValueError:
            continue
        raise AssertionError(f"accepted {line!r}")
