"""A stored moment's text: UTC, microseconds, a Z, exactly as strftime writes it
(the text is part of every event's hash), for any moment in any time zone."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from hypothesis import example, given
from hypothesis import strategies as st

from pbem.events import parse_timestamp, timestamp

ZONES = st.builds(
    timezone, st.integers(-23 * 60 + 1, 23 * 60 - 1).map(lambda m: timedelta(minutes=m))
)
MOMENTS = st.datetimes(
    min_value=datetime(2, 1, 1), max_value=datetime(9998, 12, 31), timezones=ZONES
)


@given(MOMENTS)
@example(datetime(999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC))
@example(datetime(1000, 1, 1, tzinfo=UTC))
@example(datetime(2026, 12, 1, 5, 0, tzinfo=timezone(timedelta(hours=-5))))
@example(datetime(2026, 12, 1, 0, 30, 0, 7, tzinfo=timezone(timedelta(hours=1))))
def test_a_moment_is_written_as_strftime_writes_it_and_reads_back(moment):
    expected = moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    assert timestamp(moment) == expected
    if moment.astimezone(UTC).year >= 1000:
        assert parse_timestamp(timestamp(moment)) == moment
