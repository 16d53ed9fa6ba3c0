"""OCR benchmark: render page -> OCR image -> compare to page text layer.

usage: venv/bin/python bench.py ENGINE DPI OUTJSON [--threads N] [--no-cls]
  ENGINE: tess | rapid
  tess threads are controlled by env OMP_THREAD_LIMIT (set by the caller).
One process per (engine, dpi, setting); run sequentially.
"""
import argparse
import json
import os
import re
import sys
import time
import unicodedata
from collections import Counter

t_start = time.perf_counter()
import pymupdf
from pages import EXTRA, PAGES
from rapidfuzz.distance import Levenshtein

ap = argparse.ArgumentParser()
ap.add_argument("engine", choices=["tess", "tesscli", "rapid"])
ap.add_argument("dpi", type=int)
ap.add_argument("out")
ap.add_argument("--threads", type=int, default=-1)
ap.add_argument("--no-cls", action="store_true")
ap.add_argument("--arena", action="store_true", help="rapid: enable ORT cpu mem arena (monkeypatch)")
ap.add_argument("--repeat", type=int, default=1, help="time each page N times, keep min")
args = ap.parse_args()

TESSDATA = "/usr/share/tesseract-ocr/5/tessdata"


def ws(s):
    return re.sub(r"\s+", " ", s).strip()


def metrics(ocr, ref):
    a, r = ws(ocr), ws(ref)
    acc = 1 - Levenshtein.distance(a, r) / max(1, len(r))
    # variants (diagnostic only): NFKC + all whitespace removed; word-bag F1 (order-free)
    a2 = re.sub(r"\s+", "", unicodedata.normalize("NFKC", ocr))
    r2 = re.sub(r"\s+", "", unicodedata.normalize("NFKC", ref))
    acc_nows = 1 - Levenshtein.distance(a2, r2) / max(1, len(r2))
    wa = Counter(unicodedata.normalize("NFKC", ocr).split())
    wr = Counter(unicodedata.normalize("NFKC", ref).split())
    inter = sum((wa & wr).values())
    p = inter / max(1, sum(wa.values()))
    rc = inter / max(1, sum(wr.values()))
    f1 = 2 * p * rc / max(1e-9, p + rc)
    return dict(acc=acc, acc_nows=acc_nows, word_f1=f1, ref_chars=len(r), ocr_chars=len(a))


# ---------------- engine setup (timed) ----------------
t0 = time.perf_counter()
if args.engine == "rapid":
    if args.arena:
        import rapidocr_onnxruntime.utils.infer_engine as ie
        _orig = ie.OrtInferSession._init_sess_opts
        def _patched(config):
            so = _orig(config)
            so.enable_cpu_mem_arena = True  # rapidocr 1.4.4 turns it off; off => very slow first run per new shape
            return so
        ie.OrtInferSession._init_sess_opts = staticmethod(_patched)
    from rapidocr_onnxruntime import RapidOCR
    t_imp = time.perf_counter() - t0
    kw = {}
    if args.threads != -1:
        kw["intra_op_num_threads"] = args.threads
    if args.no_cls:
        kw["use_cls"] = False
    engine = RapidOCR(**kw)
    t_load = time.perf_counter() - t0

    def ocr(pix):
        import numpy as np
        img = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, pix.n)
        img = img[:, :, ::-1].copy()  # RGB -> BGR (rapidocr expects cv2 order)
        res, elapse = engine(img)
        res = res or []
        text = "\n".join(r[1] for r in res)
        sample = res[:2]
        return text, dict(n_boxes=len(res), elapse=elapse), sample
elif args.engine == "tesscli":
    import resource
    import subprocess
    t_imp = 0.0
    t_load = 0.0

    def ocr(pix):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        tsv = subprocess.run(["tesseract", "stdin", "stdout", "--psm", "3", "--dpi", str(args.dpi), "tsv"],
                             input=pix.tobytes("png"), capture_output=True, check=True).stdout.decode()
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        global child_cpu
        child_cpu = (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)
        lines = {}
        for row in tsv.splitlines()[1:]:
            f = row.split("\t")
            if len(f) < 12 or f[0] != "5" or not f[11].strip():
                continue
            key = (int(f[2]), int(f[3]), int(f[4]))  # block, par, line
            x, y, w, h = map(int, f[6:10])
            sc = 72 / args.dpi
            L = lines.setdefault(key, dict(words=[], bbox=[1e9, 1e9, 0, 0]))
            L["words"].append(f[11])
            b = L["bbox"]
            L["bbox"] = [min(b[0], x * sc), min(b[1], y * sc), max(b[2], (x + w) * sc), max(b[3], (y + h) * sc)]
        text = "\n".join(" ".join(L["words"]) for L in lines.values())  # tesseract's own reading order
        sample = [dict(text=" ".join(L["words"]), bbox_pt=L["bbox"]) for L in list(lines.values())[:2]]
        return text, dict(n_lines=len(lines)), sample
else:
    t_imp = 0.0
    # warm-up on a tiny image to measure tesseract init (traineddata load) cost
    tiny = pymupdf.open()
    pg = tiny.new_page(width=200, height=40)
    pg.insert_text((5, 25), "Hello world 123", fontsize=14)
    tp = pg.get_pixmap(dpi=150)
    tp.pdfocr_tobytes(language="eng", tessdata=TESSDATA)
    t_load = time.perf_counter() - t0

    def ocr(pix):
        pdf = pix.pdfocr_tobytes(language="eng", tessdata=TESSDATA)
        d = pymupdf.open("pdf", pdf)
        p = d[0]
        text = p.get_text()
        lines = []
        nl = 0
        for b in p.get_text("dict")["blocks"]:
            for l in b.get("lines", []):
                nl += 1
                if len(lines) < 2:
                    lines.append(dict(bbox=l["bbox"], spans=[{k: s[k] for k in ("text", "bbox", "font", "size")} for s in l["spans"]]))
        return text, dict(n_lines=nl, ocr_page_rect=list(p.rect)), lines

# ---------------- pages ----------------
rows = []
for label, kind, path, pno in PAGES + EXTRA:
    doc = pymupdf.open(path)
    page = doc[pno]
    ref = page.get_text()
    tr = time.perf_counter()
    pix = page.get_pixmap(dpi=args.dpi)  # RGB, no alpha
    t_render = time.perf_counter() - tr
    best = None
    for _ in range(args.repeat):
        c0 = time.process_time()
        w0 = time.perf_counter()
        text, info, sample = ocr(pix)
        wall = time.perf_counter() - w0
        cpu = time.process_time() - c0
        if args.engine == "tesscli":
            cpu += child_cpu
        if best is None or wall < best[0]:
            best = (wall, cpu)
    m = metrics(text, ref)
    row = dict(label=label, kind=kind, extra=(label, kind, path, pno) in EXTRA, dpi=args.dpi,
               img=[pix.width, pix.height], page_rect=list(page.rect),
               render_s=t_render, ocr_wall_s=best[0], ocr_cpu_s=best[1], **m, info=info)
    rows.append(row)
    os.makedirs("texts", exist_ok=True)
    tag = os.path.splitext(os.path.basename(args.out))[0]
    with open(f"texts/{tag}__{label.replace(' ', '_')}.txt", "w") as f:
        f.write(text)
    with open(f"texts/REF__{label.replace(' ', '_')}.txt", "w") as f:
        f.write(ref)
    print(f"{label:28s} {args.engine} {args.dpi} acc={m['acc']:.3f} nows={m['acc_nows']:.3f} "
          f"wf1={m['word_f1']:.3f} wall={best[0]:.2f}s cpu={best[1]:.2f}s", flush=True)
    if len(rows) == 1:
        sample0 = sample

out = dict(engine=args.engine, dpi=args.dpi, threads=args.threads, no_cls=args.no_cls, arena=args.arena,
           OMP_THREAD_LIMIT=os.environ.get("OMP_THREAD_LIMIT"), nproc=os.cpu_count(),
           import_s=t_imp, load_s=t_load, loadavg=os.getloadavg(), rows=rows,
           sample_boxes=json.loads(json.dumps(sample0, default=str)))
with open(args.out, "w") as f:
    json.dump(out, f, indent=1, default=str)
