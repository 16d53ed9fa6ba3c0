"""Summarise results/*.json into markdown tables (stdout)."""
import glob
import json
import statistics as st
import sys

RES = sys.argv[1] if len(sys.argv) > 1 else "results"
NAMES = {
 "tess_omp1": "tesseract via PyMuPDF pdfocr (OMP_THREAD_LIMIT=1)",
 "tess_default": "tesseract via PyMuPDF pdfocr (default threads)",
 "tesscli_omp1": "tesseract 5.3 CLI, TSV (OMP_THREAD_LIMIT=1)",
 "tesscli_default": "tesseract 5.3 CLI, TSV (default OpenMP threads)",
 "rapid_default": "RapidOCR 1.4.4 as shipped (cls on, ORT default threads, arena off)",
 "rapid_tuned2": "RapidOCR tuned (no cls, intra_op=2, ORT arena on)",
 "rapid_tuned1": "RapidOCR tuned (no cls, intra_op=1, ORT arena on)",
}
R = {}
for f in sorted(glob.glob(RES + "/*.json")):
    d = json.load(open(f))
    eng, dpi, setting = f.split("/")[-1][:-5].split("_", 2)
    R[(eng + "_" + setting, int(dpi))] = d
def fmt(x, n=3): return f"{x:.{n}f}"
print("| engine / setting | dpi | mean acc | min acc | mean acc (no-ws, NFKC) | mean word-F1 | min word-F1 | mean wall s/page | max wall s/page | mean CPU s/page | loadavg at end |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for key in NAMES:
    for dpi in (150, 200):
        d = R.get((key, dpi))
        if not d: continue
        rows = [r for r in d["rows"] if not r["extra"]]
        a = [r["acc"] for r in rows]; w = [r["word_f1"] for r in rows]
        print(f"| {NAMES[key]} | {dpi} | {fmt(st.mean(a))} | {fmt(min(a))} | {fmt(st.mean(r['acc_nows'] for r in rows))} | "
              f"{fmt(st.mean(w))} | {fmt(min(w))} | {fmt(st.mean(r['ocr_wall_s'] for r in rows),2)} | "
              f"{fmt(max(r['ocr_wall_s'] for r in rows),2)} | {fmt(st.mean(r['ocr_cpu_s'] for r in rows),2)} | {d['loadavg'][0]:.1f} |")
print()
# per-page detail for 150 dpi of the main configs
for dpi in (150, 200):
    keys = [k for k in ("tess_omp1", "tesscli_omp1", "rapid_default", "rapid_tuned2") if (k, dpi) in R]
    if not keys: continue
    print(f"\nPer page, {dpi} dpi: acc / word-F1 / wall s\n")
    print("| page | kind | ref chars | " + " | ".join(keys) + " |")
    print("|---|---|---|" + "---|" * len(keys))
    for i, r0 in enumerate(R[(keys[0], dpi)]["rows"]):
        cells = []
        for k in keys:
            r = R[(k, dpi)]["rows"][i]
            cells.append(f"{r['acc']:.3f} / {r['word_f1']:.3f} / {r['ocr_wall_s']:.2f}")
        print(f"| {r0['label']} | {r0['kind']} | {r0['ref_chars']} | " + " | ".join(cells) + " |")
