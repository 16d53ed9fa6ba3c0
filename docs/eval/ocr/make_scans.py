"""Image-only copies of dev PDFs, to measure OCR: each page printed to a 150 dpi grey image, the images put
together into a PDF without a text layer. Writes two benchmark folders holding the same questions: the originals
(`orig/`) and the scans (`scan/`, each file named `scan-<name>`).

    python docs/eval/ocr/make_scans.py /tmp/ocr-bench    # then `bookrag eval` on /tmp/ocr-bench/{orig,scan}
    python docs/eval/ocr/make_scans.py /tmp/ocr-more --more   # the other dev PDFs of at most 45 pages
"""

import json
import shutil
import sys
from pathlib import Path

import pymupdf

BENCHMARKS = Path(__file__).resolve().parents[4] / "shared" / "benchmarks"
DOCS = {  # both halves of both dev sets; a few short documents of every kind (papers, brochures, reports, filings)
    "mmlongbench": ["2310.07609v1.pdf", "e79deb02a0c0e87511080836c5d4347b.pdf", "2312.10997v5.pdf",
                    "efd88e41c5f2606c57929cac6c1c0605.pdf", "PP_2019.01.17_Trump-economy_FINAL2.pdf"],
    "financebench": ["ULTABEAUTY_2023Q4_EARNINGS.pdf", "JOHNSON_JOHNSON_2023_8K_dated-2023-08-30.pdf"],
}
MORE = {  # every other dev PDF of at most 45 pages (docs/eval/ocr-scan-layout/)
    "mmlongbench": ["2023.acl-long.386.pdf", "7c3f6204b3241f142f0f8eb8e1fefe7a.pdf", "Independents-Report.pdf",
                    "a4f3ced0696009fec3179f493e4f28c4.pdf", "nova_y70.pdf", "ISEP_student_handbook_2020.pdf",
                    "PG_2021.03.04_US-Views-on-China_FINAL.pdf", "PIP_Seniors-and-Tech-Use_040314.pdf",
                    "Pew-Research-Center_Hispanic-Identity-Report_12.20.2017.pdf",
                    "fd76bbefe469561966e5387aa709c482.pdf"],
    "financebench": ["FOOTLOCKER_2022_8K_dated-2022-05-20.pdf"],
}
DPI = 150


def scan(source: Path, target: Path) -> None:
    with pymupdf.open(source) as src, pymupdf.open() as out:
        for page in src:
            image = page.get_pixmap(dpi=DPI, colorspace=pymupdf.csGRAY).tobytes("png")
            out.new_page(width=page.rect.width, height=page.rect.height).insert_image(
                pymupdf.Rect(0, 0, page.rect.width, page.rect.height), stream=image)
        out.save(target, deflate=True)


def main(out: Path, docs: dict[str, list[str]] = DOCS) -> None:
    for kind in ("orig", "scan"):
        (out / kind / "pdfs").mkdir(parents=True, exist_ok=True)
    rows = {"orig": [], "scan": []}
    for bench, names in docs.items():
        for line in (BENCHMARKS / bench / "questions.jsonl").read_text().splitlines():
            row = json.loads(line)
            if row["doc"] in names:
                rows["orig"].append(row)
                rows["scan"].append({**row, "doc": f"scan-{row['doc']}"})
        for name in names:
            shutil.copy(BENCHMARKS / bench / "pdfs" / name, out / "orig" / "pdfs" / name)
            scan(BENCHMARKS / bench / "pdfs" / name, out / "scan" / "pdfs" / f"scan-{name}")
    for kind, questions in rows.items():
        (out / kind / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions))
        print(kind, len(questions), "questions")


if __name__ == "__main__":
    main(Path(sys.argv[1]), MORE if "--more" in sys.argv[2:] else DOCS)
