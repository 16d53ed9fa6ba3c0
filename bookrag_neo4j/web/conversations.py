"""The ask page's conversations: each one's turns, kept in this server's memory so that a follow-up is read with
the questions before it (:mod:`bookrag_neo4j.retrieval.conversation`).

    talks = Conversations()
    cid = talks.known(request_id)            # the id, or a new one for an unknown or missing id
    history = talks.turns(cid)[:position]    # the turns the page showed
    talks.record(cid, position, answer.turn())

Bounded: the most recent :data:`MAX_CONVERSATIONS` conversations, each its last ``MAX_TURNS`` turns. A turn is
recorded at the position the page asked from, so reloading a page asks again without adding a turn. A restarted
server has forgotten them: the question is then asked as the first of a new conversation. (The JSON API is
stateless: its client sends the history.)
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict

from ..retrieval.conversation import MAX_TURNS
from ..retrieval.results import Turn

MAX_CONVERSATIONS = 500


class Conversations:
    """Conversation id → its turns, least recently used dropped first."""

    def __init__(self, limit: int = MAX_CONVERSATIONS) -> None:
        self._talks: OrderedDict[str, list[Turn]] = OrderedDict()
        self._limit = limit
        self._lock = threading.Lock()

    def known(self, cid: str) -> str:
        """``cid`` when this server holds it, else a new conversation's id."""
        with self._lock:
            if cid in self._talks:
                self._talks.move_to_end(cid)
                return cid
            cid = secrets.token_urlsafe(9)
            self._talks[cid] = []
            while len(self._talks) > self._limit:
                self._talks.popitem(last=False)
            return cid

    def turns(self, cid: str) -> list[Turn]:
        with self._lock:
            return list(self._talks.get(cid, []))

    def record(self, cid: str, position: int, turn: Turn) -> int:
        """``turn`` as the conversation's turn number ``position`` (0-based; later ones dropped); the number of
        turns it then holds."""
        with self._lock:
            turns = self._talks.setdefault(cid, [])
            del turns[position:]
            turns.append(turn)
            del turns[:-MAX_TURNS]
            return len(turns)
