"""Progress events: what a stage reports, and the CLI's rich drawing of them. No server needed."""

from __future__ import annotations

import pytest

from bookrag_neo4j.cli.progress_bars import RichProgress
from bookrag_neo4j.progress import ProgressEvent, stage


def test_a_stage_reports_its_start_steps_and_end() -> None:
    events: list[ProgressEvent] = []
    with stage(events.append, "writing doc.pdf", 5) as writing:
        writing.advance(2)
        writing.advance()
    with pytest.raises(RuntimeError), stage(events.append, "parsing doc.pdf") as parsing:
        parsing.update(1, 4)
        raise RuntimeError("parser failed")
    assert events == [
        ProgressEvent("writing doc.pdf", 0, 5), ProgressEvent("writing doc.pdf", 2, 5),
        ProgressEvent("writing doc.pdf", 3, 5), ProgressEvent("writing doc.pdf", 3, 5, finished=True),
        ProgressEvent("parsing doc.pdf", 0), ProgressEvent("parsing doc.pdf", 1, 4),
        ProgressEvent("parsing doc.pdf", 1, 4, finished=True),  # also when the stage fails
    ]
    with stage(None, "nobody listens", 3) as quiet:
        quiet.advance(3)
    assert quiet.done == 3


def test_rich_progress_draws_one_bar_a_stage_and_removes_it() -> None:
    bars = RichProgress()
    with stage(bars, "embedding blocks") as embedding:
        embedding.advance(256)
        ((bar, _),) = bars._bars.values()
        assert bar.tasks[0].completed == 256 and bar.tasks[0].total is None and bar.tasks[0].description == \
            "embedding blocks"
    assert not bars._bars
