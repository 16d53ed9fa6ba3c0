# Test pages: (label, kind, pdf path, 0-based page index)
B = "/work/shared/benchmarks/"
PAGES = [
    ("3M_2018_10K p40", "dense 10-K text", B + "financebench/pdfs/3M_2018_10K.pdf", 40),
    ("AWK_2020_10K p38", "dense 10-K text", B + "financebench/pdfs/AMERICANWATERWORKS_2020_10K.pdf", 38),
    ("ULTA_2023Q4 p5", "financial table", B + "financebench/pdfs/ULTABEAUTY_2023Q4_EARNINGS.pdf", 5),
    ("COSTCO_2021_10K p37", "financial table (balance sheet)", B + "financebench/pdfs/COSTCO_2021_10K.pdf", 37),
    ("MSFT_2016_10K p51", "financial table (income stmt)", B + "financebench/pdfs/MICROSOFT_2016_10K.pdf", 51),
    ("acl-long.386 p2", "paper, 2 columns", B + "mmlongbench/pdfs/2023.acl-long.386.pdf", 2),
    ("2312.10997v5 p5", "paper, large table", B + "mmlongbench/pdfs/2312.10997v5.pdf", 5),
    ("Pew US-China p10", "report page with chart", B + "mmlongbench/pdfs/PG_2021.03.04_US-Views-on-China_FINAL.pdf", 10),
    ("ISEP handbook p18", "handbook text", B + "mmlongbench/pdfs/ISEP_student_handbook_2020.pdf", 18),
    ("nova_y70 p11", "phone manual", B + "mmlongbench/pdfs/nova_y70.pdf", 11),
    ("efd88e41 p10", "brochure page with photo", B + "mmlongbench/pdfs/efd88e41c5f2606c57929cac6c1c0605.pdf", 10),
    ("efd88e41 p5", "brochure/cover page, 3 columns", B + "mmlongbench/pdfs/efd88e41c5f2606c57929cac6c1c0605.pdf", 5),
]
# Extra: a real scanned book page (Google Books scan); its text layer is itself OCR,
# so it is reported separately and NOT included in the means.
EXTRA = [
    ("fd76bbef p8 (real scan)", "scanned book page; reference = embedded OCR layer", B + "mmlongbench/pdfs/fd76bbefe469561966e5387aa709c482.pdf", 8),
]
