"""The text floor both wings stand on: tokens and BM25 (``lexical``), stems and keywords, entity names, the
question grammar (sections, comparisons) and references to figures, tables and pages. It imports no other part
of the package, so that asking a question never imports the index-time wings for them."""
