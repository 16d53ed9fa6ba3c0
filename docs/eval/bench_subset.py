"""A benchmark folder of some dev documents: their PDFs linked, their questions copied (for `bookrag eval` on a
subset). Used by the experiments' `subset.py` scripts.

    write_subset(Path("/tmp/subset"), {"financebench": {"a.pdf"}, "mmlongbench": {"b.pdf"}})
"""
import json
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[3] / "shared" / "benchmarks"
SHORT = {"financebench": "fb", "mmlongbench": "mmlb"}


def write_subset(out: Path, docs: dict[str, set[str]]) -> dict[str, int]:
    """``out/fb`` and ``out/mmlb`` holding ``docs`` (benchmark -> file names); the questions each got."""
    counts = {}
    for bench, names in docs.items():
        folder = out / SHORT[bench]
        (folder / "pdfs").mkdir(parents=True, exist_ok=True)
        lines = [line for line in (BENCHMARKS / bench / "questions.jsonl").read_text().splitlines()
                 if json.loads(line)["doc"] in names]
        (folder / "questions.jsonl").write_text("".join(line + "\n" for line in lines))
        for doc in names:
            if not (folder / "pdfs" / doc).exists():
                (folder / "pdfs" / doc).symlink_to(BENCHMARKS / bench / "pdfs" / doc)
        counts[SHORT[bench]] = len(lines)
    return counts
