"""The network benchmark runs end to end (it reports; it asserts no time)."""

import pytest

from unoplay.client.bench import netbench


@pytest.mark.parametrize(
    ("bare", "target_score", "raw_client"),
    [(False, 0, False), (False, 500, False), (False, 500, True), (True, 0, False)],
)
async def test_a_short_network_run_plays_and_reports_with_no_error(bare, target_score, raw_client):
    figures = await netbench.measure(
        2, 0.5, bare=bare, warmup=0.1, target_score=target_score, raw_client=raw_client
    )
    assert figures["errors"] == 0, figures["error_samples"]
    assert figures["actions_per_s"] > 0 and figures["p99_ms"] is not None
    assert figures["server_exit_code"] == 0
    assert figures["target_score"] == target_score
    if not bare:
        assert figures["games_stored"] >= figures["games_finished"]  # (one may end as it stops)
