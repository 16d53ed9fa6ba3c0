"""Lucene queries for Neo4j's full-text indexes, built from question text (never spliced into Cypher: they are
passed as the ``$query`` parameter of ``db.index.fulltext.queryNodes``).

    lucene_terms('What is "R&D" (net)?')                  # 'What is \\"R\\&D\\" \\(net\\)\\?'
    lucene_in_documents("net sales", ["ab12", "cd34"])    # '(doc_key:"ab12" OR doc_key:"cd34") AND (net sales)'
"""

from __future__ import annotations

import re

_LUCENE_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/&|])')
# The terms the index's analyser (Lucene's StandardTokenizer) makes of a text, counted at least as often as it
# does, since each is one clause: a Chinese ideograph or a hiragana is a term of its own, so is an emoji or another
# symbol outside ASCII; a run of other word characters (Latin, digits, katakana, hangul) is one term.
_SINGLE = "\u3040-\u309f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003ffff"
_TERM = re.compile(rf"[{_SINGLE}]|[^\W{_SINGLE}]+|[^\w\s\x00-\x7f]")
MAX_TERMS = 256  # leaves Lucene's 1,024 clauses room for a scope of documents


def lucene_terms(text: str) -> str:
    """The question as Lucene terms: query-syntax characters escaped, operator words lower-cased (the index
    lower-cases anyway), so every word is an OR-ed term. A question of more than :data:`MAX_TERMS` terms (as the
    analyser counts them: a Chinese character is one) keeps its first :data:`MAX_TERMS` distinct ones (Lucene
    refuses a query of over 1,024 clauses)."""
    words = text.split()
    terms = _TERM.findall(text)
    if len(terms) > MAX_TERMS:
        words = list(dict.fromkeys(t.casefold() for t in terms))[:MAX_TERMS]
    escaped = _LUCENE_SPECIAL.sub(r"\\\1", " ".join(words))
    return re.sub(r"\b(AND|OR|NOT|TO)\b", lambda m: m.group(1).lower(), escaped)


def lucene_in_documents(question: str, doc_keys: list[str]) -> str:
    """A Lucene query for the question within the documents: the ``doc_key`` filter runs inside the index."""
    scope = " OR ".join(f'doc_key:"{key}"' for key in doc_keys if re.fullmatch(r"[0-9a-f]+", key))
    return f"({scope}) AND ({lucene_terms(question)})"
