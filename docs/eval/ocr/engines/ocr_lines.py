"""Recommended: line-level OCR text with bounding boxes in PDF points (page coordinates).

Tesseract 5 CLI (system binary, AVX2 build) -> TSV -> lines, mapped back to the page.
"""
import os
import subprocess

import pymupdf


def ocr_page_lines(page: pymupdf.Page, dpi: int = 150, lang: str = "eng"):
    """Return [(text, pymupdf.Rect in page coordinates (points), mean word confidence)] in reading order."""
    pix = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)       # what a scanned page looks like
    env = dict(os.environ, OMP_THREAD_LIMIT="1")                      # OpenMP threads only hurt on 2 cores
    tsv = subprocess.run(
        ["tesseract", "stdin", "stdout", "--psm", "3", "--dpi", str(dpi), "-l", lang, "tsv"],
        input=pix.tobytes("png"), capture_output=True, check=True, env=env, timeout=60,
    ).stdout.decode("utf-8", "replace")
    # pixel -> point on the displayed (rotated) page, then back to unrotated page space,
    # i.e. the same space page.get_text()/search_for()/Rect use.
    to_page = pymupdf.Matrix(72 / dpi, 72 / dpi) * page.derotation_matrix
    lines = {}
    for row in tsv.splitlines()[1:]:
        f = row.split("\t")
        if len(f) < 12 or f[0] != "5" or not f[11].strip():       # level 5 = word
            continue
        x, y, w, h = map(int, f[6:10])
        key = (int(f[1]), int(f[2]), int(f[3]), int(f[4]))         # page, block, paragraph, line
        L = lines.setdefault(key, [[], pymupdf.Rect(), []])
        L[0].append(f[11])
        L[1] |= pymupdf.Rect(x, y, x + w, y + h) * to_page
        L[2].append(float(f[10]))
    return [(" ".join(ws), r, sum(c) / len(c)) for ws, r, c in lines.values()]


if __name__ == "__main__":
    import sys
    doc = pymupdf.open(sys.argv[1])
    for text, rect, conf in ocr_page_lines(doc[int(sys.argv[2])]):
        print(f"{conf:5.1f} {tuple(round(v, 1) for v in rect)} {text}")
