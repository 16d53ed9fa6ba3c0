"""Read a document's card without an LLM: its kind, issuer, period, date and title, from the cover pages' text, the
PDF's metadata and the file name, each field from the first source that has it (:class:`DocumentCard.source`).

    card = read_card(name="BESTBUY_2019_10K.pdf", title="", cover=[...first pages' blocks...], metadata={...})
    card.kind, card.issuer, card.period, card.years    # '10-K', 'BEST BUY CO., INC.', 'FY2019', [2019, 2018]
    await write_card(db, doc, embedder)             # read from the index and the file, stored on the Document

Filings say what they are on their cover ("FORM 10-K", "For the fiscal year ended February 2, 2019", the registrant
"(Exact name of registrant as specified in its charter)", trading symbols), an earnings release in its first line
("Ulta Beauty Announces Fourth Quarter Fiscal 2022 Results"), a report its organisation and release date. Fields a user
set (``card_edited``) are kept. With an LLM, :func:`write_card` adds a summary and fills the fields the cover left empty
(``source`` ``llm``); a reply that fails leaves the card as read.
"""

from __future__ import annotations

import logging
import re
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from ..errors import ModelError
from ..keys import local_path, stored_text
from ..library.cards import DocumentCard, years_in
from ..llm.prompts import render_prompt

if TYPE_CHECKING:
    from ..db.client import Neo4jClient
    from ..library.documents import Document
    from ..llm.chat import ChatModel
    from ..llm.embedder import Embedder

log = logging.getLogger(__name__)

COVER_PAGES = 2
COVER_CHARS = 6000  # of the first pages' text, to the LLM
MONTHS = {m: i for i, m in enumerate(("january", "february", "march", "april", "may", "june", "july", "august",
                                      "september", "october", "november", "december"), 1)}
_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?"
_DATE = re.compile(rf"\b({_MONTH})\s+(\d{{1,2}}),?\s+((?:19|20)\d{{2}})\b", re.IGNORECASE)
_KINDS = [  # (kind, pattern on the cover, pattern on the file name or metadata title)
    ("10-K", r"\bFORM\s+10-?K\b", r"(?<![a-z0-9])10-?K(?![a-z0-9])"),
    ("10-Q", r"\bFORM\s+10-?Q\b", r"(?<![a-z0-9])10-?Q(?![a-z0-9])"),
    ("8-K", r"\bFORM\s+8-?K\b", r"(?<![a-z0-9])8-?K(?![a-z0-9])"),
    ("20-F", r"\bFORM\s+20-?F\b", r"(?<![a-z0-9])20-?F(?![a-z0-9])"),
    ("earnings release", r"\b(?:announces|reports)\b.{0,60}\b(?:quarter|year)\b.{0,40}\bresults\b",
     r"earnings|results"),
    ("annual report", r"\bannual\s+report\b", r"annual[-_ ]?report"),
    ("paper", r"\babstract\b|\bproceedings\b|\barxiv\b", r"(?<![a-z])\d{4}\.\d{4,5}(?:v\d+)?$|acl|emnlp|neurips"),
    ("manual", r"\b(?:user|help|installation|reference)\s+guide\b|\bmanual\b|\bhandbook\b|\bdocumentation\b",
     r"manual|guide|handbook|docs"),
    ("brochure", r"\bbrochure\b|\bcatalog(?:ue)?\b", r"brochure|catalog"),
    ("report", r"\breport\b|\bstrategic\s+plan\b|\bassessment\b", r"report|plan"),
]
_REGISTRANT = re.compile(r"\(?\s*exact\s+name\s+of\s+registrant", re.IGNORECASE)
_ANNOUNCER = re.compile(r"^(?:[A-Z][a-z]+ \d{1,2}, \d{4}\s+)?(.{2,60}?)\s+(?:Announces|Reports)\b")
_ORGANISATION = re.compile(r"\b((?:[A-Z][\w&.\-]*\s+){0,4}(?:Center|Centre|Institute|University|Association|Department"
                           r"|Program|Programme|Agency|Foundation|Council|Commission|Office|Bureau)"
                           r"(?:\s+(?:of|for|on)(?:\s+[A-Z][\w&.\-]*){1,4})?)")
_TICKER = re.compile(r"\b([A-Z]{2,5})[\s|]+(?:The\s+)?(?:New\s+York\s+Stock\s+Exchange|NYSE|Nasdaq|NASDAQ|Chicago\s+Stock)"
                     r"|\((?:NASDAQ|NYSE|Nasdaq)(?:\s*GS)?\s*:\s*([A-Z]{2,5})\)")
_FISCAL_END = re.compile(rf"\bfiscal\s+year\s+ended\s+({_MONTH})\s+(\d{{1,2}}),?\s+((?:19|20)\d{{2}})", re.IGNORECASE)
_QUARTER_END = re.compile(rf"\bquarterly\s+period\s+ended\s+({_MONTH})\s+(\d{{1,2}}),?\s+((?:19|20)\d{{2}})",
                          re.IGNORECASE)
_FISCAL_QUARTER = re.compile(r"\b(first|second|third|fourth)\s+quarter\s+(?:of\s+)?(?:fiscal\s+(?:year\s+)?)?"
                             r"((?:19|20)\d{2})\b", re.IGNORECASE)
_FILE_STOP = re.compile(r"\d|^(?:10k|10q|8k|20f|annual|report|final|draft|handbook|manual|guide|earnings|results|"
                        r"dated|form|the|v\d+)$", re.IGNORECASE)
_WORDY_TITLE = re.compile(r"^(?!microsoft word\b)(?=.*[a-z]{3}.*\s.*[a-z]{3})(?!\d{10}-\d{2}-\d{6}$)", re.IGNORECASE)
_FILE_NUMBER = re.compile(r"commission\s+file\s+(?:number|no\.?)[:\s]*[\d-]+", re.IGNORECASE)
_LEADING = re.compile(r"^(?:(?:[A-Z]{2,}|About|By|For|From|Contact|See|Cite|Citation)\s+)+")  # "RECOMMENDED CITATION"
_REGULATOR = re.compile(r"securities\s+and\s+exchange|exchange\s+commission", re.IGNORECASE)
_FILERS = re.compile(r"edgar|donnelley|kaleidoscope|workiva|toppan|merrill", re.IGNORECASE)


def read_card(*, name: str, title: str, cover: list[str], metadata: dict[str, str]) -> DocumentCard:
    """The card of a document from its file ``name``, its parsed ``title``, the text blocks of its first pages in
    reading order (``cover``) and its PDF ``metadata`` (``title``, ``author``, ``subject``, ``creationDate``)."""
    text = " ".join(" ".join(block.split()) for block in cover)[:20_000]
    stem = Path(name).stem
    source: dict[str, str] = {}
    kind = _kind(text, stem, metadata.get("title", ""), source)
    issuer = _issuer(cover, text, metadata, source)
    aliases = list(dict.fromkeys([t for pair in _TICKER.findall(text[:8000]) for t in pair if t]
                                 + ([alias] if (alias := _file_name_issuer(stem)) else [])))
    period, years, when = _period(text, stem, metadata, source)
    card_title = _title(title, metadata.get("title", ""), cover, issuer, kind, period, source)
    if aliases:
        source["aliases"] = "cover, file name"
    return DocumentCard(title=card_title, issuer=issuer, aliases=aliases, kind=kind, period=period, years=years,
                        date=when, source=source)


def _kind(text: str, stem: str, meta_title: str, source: dict[str, str]) -> str:
    head = text[:3000]
    for kind, cover, _ in _KINDS:
        if re.search(cover, head, re.IGNORECASE):
            source["kind"] = "cover"
            return kind
    for kind, _, named in _KINDS:
        if re.search(named, stem, re.IGNORECASE) or re.search(named, meta_title, re.IGNORECASE):
            source["kind"] = "file name"
            return kind
    return "document"


def _issuer(cover: list[str], text: str, metadata: dict[str, str], source: dict[str, str]) -> str:
    for i, block in enumerate(cover):
        found = _REGISTRANT.search(block)
        if found is None:
            continue
        before = block[:found.start()].strip().splitlines()
        line = before[-1] if before else (cover[i - 1].strip().splitlines() or [""])[-1] if i else ""
        line = re.sub(r"^.*\b(?:number|No\.)\s*[\d-]+\s*", "", line).strip(" (,:;")
        if len(line) >= 2:
            source["issuer"] = "cover"
            return _unspaced(line)
    for i, block in enumerate(cover):  # a cover without the phrase: the name follows the commission file number
        if found := _FILE_NUMBER.search(block):
            after = [ln.strip() for ln in (block[found.end():] + "\n" + "\n".join(cover[i + 1:i + 3])).splitlines()]
            line = next((ln for ln in after if len(ln) >= 2), "")
            if line and not re.search(r"state|incorporat|\d{3}", line, re.IGNORECASE):
                source["issuer"] = "cover"
                return _unspaced(line)
    if announced := _ANNOUNCER.match(text):
        source["issuer"] = "cover"
        return announced.group(1).strip()
    for organisation in _ORGANISATION.finditer(text[:4000]):
        name = _LEADING.sub("", organisation.group(1)).strip()
        if len(name.split()) >= 2 and not _REGULATOR.search(name):
            source["issuer"] = "cover"
            return name
    author = metadata.get("author", "").strip()
    if author and _ORGANISATION.search(author) and not _FILERS.search(author):
        source["issuer"] = "metadata"
        return author
    return ""


def _unspaced(name: str) -> str:
    """A name set in small capitals as PyMuPDF reads them, joined again: "MGM R ESORTS I NTERNATIONAL"."""
    return re.sub(r"\b([A-Z]) (?=[A-Z]{2,})", r"\1", " ".join(name.split()))


def _file_name_issuer(stem: str) -> str:
    """The words a file name starts with before a year, a number or a kind ("BESTBUY_2019_10K" -> "BESTBUY")."""
    words = []
    for word in re.split(r"[_\-\s.]+", stem):
        if not word or _FILE_STOP.search(word) and not (word[0].isdigit() and re.fullmatch(r"\d[A-Za-z]+", word)):
            break
        words.append(word)
    return " ".join(words[:4])


def _period(text: str, stem: str, metadata: dict[str, str], source: dict[str, str]) -> tuple[str, list[int], str]:
    """The period's label, the years it may be called by (its own first) and the document's date (ISO)."""
    if found := _FISCAL_END.search(text):
        end = _iso(*found.groups())
        year, month = int(found.group(3)), MONTHS.get(found.group(1)[:3].lower(), 0) or _month(found.group(1))
        source["period"] = "cover"
        return f"FY{year}", [year, year - 1] if month <= 3 else [year], end
    when = ""
    if dated := _DATE.search(text[:3000]):
        when = _iso(*dated.groups())
    if found := _QUARTER_END.search(text):
        source["period"] = "cover"
        year = int(found.group(3))
        return f"quarter ended {_iso(*found.groups())}", [year], when or _iso(*found.groups())
    if found := _FISCAL_QUARTER.search(text[:3000]):
        source["period"] = "cover"
        year = int(found.group(2))
        quarter = ("first", "second", "third", "fourth").index(found.group(1).lower()) + 1
        later = [int(when[:4])] if when and int(when[:4]) != year else []
        return f"Q{quarter} FY{year}", [year, *later], when
    years = (years_in(stem) or years_in(metadata.get("title", "")) or ([int(when[:4])] if when else [])
             or years_in(text[:1000]))
    if not years and (created := re.match(r"D:((?:19|20)\d{2})", metadata.get("creationDate", ""))):
        years = [int(created.group(1))]
        source["period"] = "metadata"
    elif years:
        source["period"] = "file name" if years_in(stem) else "cover"
    return (str(years[0]) if years else ""), years[:3], when


def _month(name: str) -> int:
    return next((i for m, i in MONTHS.items() if m.startswith(name[:3].lower())), 0)


def _iso(month: str, day: str, year: str) -> str:
    try:
        return date(int(year), _month(month), int(day)).isoformat()
    except ValueError:
        return year


def _title(parsed: str, meta_title: str, cover: list[str], issuer: str, kind: str, period: str,
           source: dict[str, str]) -> str:
    if kind in ("10-K", "10-Q", "8-K", "20-F") and issuer:
        source["title"] = "cover"
        return f"{issuer} Form {kind}" + (f", {period}" if period else "")
    for candidate, where in ((meta_title, "metadata"), (parsed, "cover"),
                             (next((b for b in cover if len(b.split()) >= 3), ""), "cover")):
        candidate = " ".join(candidate.split())
        if candidate and _WORDY_TITLE.match(candidate):
            source["title"] = where
            return candidate[:200]
    return parsed


class CardReply(BaseModel):
    """The LLM's summary, and the fields it read where the cover reading left them empty."""

    summary: str = ""
    title: str = ""
    issuer: str = ""
    kind: str = ""
    period: str = ""


async def write_card(db: Neo4jClient, doc: Document, embedder: Embedder | None = None,
                     llm: ChatModel | None = None) -> DocumentCard:
    """Read ``doc``'s card from its first pages in the index and its file's metadata (with ``llm``: summarised, and
    its empty fields filled), keep the fields its user set, store it on the Document (with an embedding of its text
    when ``embedder`` is given); the card."""
    rows = await db.read("library/cover_blocks", doc_key=doc.key, pages=COVER_PAGES)
    cover = [r["text"] for r in rows]
    card = read_card(name=doc.name, title=doc.title, cover=cover, metadata=_metadata(doc.path))
    if llm is not None:
        card = await _with_llm(card, doc.name, cover, llm)
    if doc.card is not None and doc.card.edited:
        card = card.model_copy(update={f: getattr(doc.card, f) for f in doc.card.edited}
                               | {"edited": doc.card.edited, "source": card.source | dict.fromkeys(doc.card.edited, "user")})
    await store_card(db, doc.key, card, embedder)
    return card


async def store_card(db: Neo4jClient, doc_key: str, card: DocumentCard, embedder: Embedder | None = None) -> None:
    """Write ``card`` on the Document ``doc_key`` (and its text's embedding, for the card vector index)."""
    props: dict[str, Any] = card.properties()
    if embedder is not None:
        (vector,) = await embedder.embed([props["card_text"] or doc_key])
        props["card_embedding"] = list(map(float, vector))
    await db.write("tree/merge_document", key=doc_key, props=props)
    log.info("card of %s: %s, %s, %s", doc_key[:12], card.issuer or "no issuer", card.kind, card.period or "no period")


async def _with_llm(card: DocumentCard, name: str, cover: list[str], llm: ChatModel) -> DocumentCard:
    """``card`` with the LLM's summary, and its empty fields filled from the LLM's reading (``source`` ``llm``)."""
    shown = "\n".join(f"{f}: {getattr(card, f)}" for f in ("title", "issuer", "kind", "period"))
    prompt = render_prompt("document_card", file_name=name, card=shown, cover="\n".join(cover)[:COVER_CHARS])
    try:
        reply = (await llm.complete(prompt, CardReply, stage="index.card")).value
    except ModelError as exc:
        log.warning("the LLM's reading of the card of %s failed (%s): the card as read from the cover", name, exc)
        return card.model_copy(update={"source": card.source | {"summary": "none: the LLM did not answer"}})
    filled = {f: v.strip()[:200] for f in ("title", "issuer", "kind", "period")
              if not getattr(card, f) and (v := getattr(reply, f)).strip()}
    if reply.summary.strip():
        filled["summary"] = reply.summary.strip()[:600]
    source = card.source | dict.fromkeys(filled, "llm")
    years = {"years": years_in(filled["period"])} if "period" in filled else {}
    return card.model_copy(update=filled | years | {"source": source})


def _metadata(path: str) -> dict[str, str]:
    """The PDF's metadata, or nothing when the file is gone or unreadable."""
    import pymupdf

    try:
        with pymupdf.open(stream=local_path(path).read_bytes(), filetype="pdf") as pdf:
            return {k: stored_text(v) for k, v in (pdf.metadata or {}).items() if isinstance(v, str)}
    except Exception:  # a moved file or MinerU output: the card is read from the text alone
        return {}
