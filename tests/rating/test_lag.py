"""The stream consumers' lag gauges (maumau.common.streams), which the rating-lag alerts read
(deploy/prometheus): results waiting (undelivered or unacknowledged) and the age of the oldest
one, back to 0 once applied."""

import asyncio

import prometheus_client

from maumau.rating.consumer import GROUP
from maumau.rating.synthetic import synthetic_results
from tests.rating.support import consumer, publish


def gauge(name: str, stream: str) -> float:
    value = prometheus_client.REGISTRY.get_sample_value(name, {"stream": stream, "group": GROUP})
    assert value is not None, f"{name} is not exported"
    return value


async def test_lag_counts_waiting_results_and_their_age_until_they_are_applied(
    client, store, stream
):
    replica = consumer(client, store, stream, "lag-1")
    await replica.ensure_group()
    await publish(client, stream, synthetic_results(30, seed=11))
    await asyncio.sleep(0.3)
    await replica.measure_lag()
    assert gauge("stream_group_pending_entries", stream) == 30
    assert 0.3 <= gauge("stream_group_oldest_pending_age_seconds", stream) < 30

    # Delivered but not acknowledged still counts, with the same oldest entry.
    await client.xreadgroup(GROUP, "lag-2", {stream: ">"}, count=10)
    await replica.measure_lag()
    assert gauge("stream_group_pending_entries", stream) == 30
    assert gauge("stream_group_oldest_pending_age_seconds", stream) >= 0.3

    await replica.consume_own_pending()
    while await replica.consume_new():
        pass
    await client.xautoclaim(stream, GROUP, "lag-1", 0, count=10)
    await replica.consume_own_pending()
    await replica.measure_lag()
    assert gauge("stream_group_pending_entries", stream) == 0
    assert gauge("stream_group_oldest_pending_age_seconds", stream) == 0
