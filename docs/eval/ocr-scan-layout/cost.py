"""Parse time of the image-only copies with an empty OCR cache (every page OCR'd): seconds and pages."""
import json, sys, time
from pathlib import Path
import bookrag_neo4j
from bookrag_neo4j.parsing.pymupdf_parser import parse_pdf
from bookrag_neo4j.parsing.ocr import OcrOptions
out = {"code": str(Path(bookrag_neo4j.__file__).parent.parent), "docs": {}}
for pdf in sorted(Path(sys.argv[1]).glob("*.pdf")):
    t = time.perf_counter()
    parsed = parse_pdf(pdf, ocr_options=OcrOptions("auto", cache=None))
    out["docs"][pdf.name] = {"pages": parsed.page_count, "seconds": round(time.perf_counter() - t, 2),
                             "tables": sum(b.kind == "table" for b in parsed.blocks),
                             "images": sum(b.kind == "image" for b in parsed.blocks)}
out["pages"] = sum(d["pages"] for d in out["docs"].values())
out["seconds"] = round(sum(d["seconds"] for d in out["docs"].values()), 1)
print(json.dumps(out, indent=1))
