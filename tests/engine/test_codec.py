"""The commit path's bytes read back as written (``maumau.engine.codec``), on generated values."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from maumau.engine.codec import (
    KEPT_ANSWERS_PER_SEAT,
    Answers,
    KeptAnswer,
    entry_suffix,
    kept_answers,
    packed_events,
    read_varint,
    stream_events,
    stream_position,
    used_answer,
    used_value,
    varint,
    with_answer,
)

request_ids = st.one_of(
    st.text(max_size=40),
    st.binary(min_size=1, max_size=20).map(bytes.hex),  # what the clients send
    st.binary(min_size=1, max_size=20).map(lambda spelt: spelt.hex().upper()),
)
entry_ids = st.one_of(
    st.just(""),
    st.builds("{}-{}".format, st.integers(1, 2**48), st.integers(0, 2**20)),
)
answers = st.tuples(request_ids, st.integers(1, 2**40), entry_ids)


@given(st.integers(0, 2**64))
def test_a_varint_reads_back(number: int) -> None:
    data = b"x" + varint(number) + b"y"
    assert read_varint(data, 1) == (number, len(data) - 1)


@given(st.lists(answers, max_size=8))
def test_a_seats_kept_answers_read_back_as_the_commits_kept_them(
    sent: list[tuple[str, int, str]],
) -> None:
    """Each commit keeps an answer as the commit script does (the field from ``with_answer``,
    its entry appended): the field then reads as the latest KEPT_ANSWERS_PER_SEAT answers,
    oldest first, and each is found by its request id, any other id not."""
    field: bytes | None = None
    for request_id, version, entry_id in sent:
        field = with_answer(field, request_id, version) + entry_suffix(entry_id)
    latest = sent[max(0, len(sent) - KEPT_ANSWERS_PER_SEAT) :]
    assert kept_answers(field) == [
        (request_id, KeptAnswer(version, entry_id)) for request_id, version, entry_id in latest
    ]
    seat = Answers(0, field)
    for request_id, version, entry_id in latest:
        found = seat.answer(request_id)
        assert found is not None
        if [r for r, _, _ in latest].count(request_id) == 1:
            assert found == KeptAnswer(version, entry_id)
    for request_id, _, _ in sent[: len(sent) - len(latest)]:
        if request_id not in [r for r, _, _ in latest]:
            assert seat.answer(request_id) is None


@given(st.integers(0, 2**40), entry_ids, st.text())
def test_a_used_request_reads_back(version: int, entry_id: str, action: str) -> None:
    assert used_answer(used_value(version, entry_id, action)) == KeptAnswer(
        version, entry_id, action or None
    )


@given(st.lists(st.binary(max_size=300), min_size=1, max_size=40), st.integers(1, 2**48))
def test_a_commits_events_read_back_each_with_an_id_of_its_own(
    events: list[bytes], ms: int
) -> None:
    """A commit's entry id is its last event's (the script counts the sequence on by the
    events' number); the ids of the ones before it count down from there, in stream order."""
    entry_id = f"{ms}-{len(events) + 6}"
    read = stream_events(entry_id, {b"p": packed_events(events)})
    assert [event for _, event in read] == events
    assert read[-1][0] == entry_id
    positions = [stream_position(event_id) for event_id, _ in read]
    assert positions == sorted(set(positions))
