"""Neo4j Browser links read back the way Browser reads them."""

from __future__ import annotations

import re
from urllib.parse import unquote


def browser_editor_lines(url: str) -> list[str]:
    """What Browser 5 puts in its editor for ``?cmd=edit``: it replaces '+' by ' ', decodes the whole URL once,
    then takes every ``arg=`` up to the next '&' or '#' (neo4j-browser ``getUrlParamValue``)."""
    decoded = unquote(url.replace("+", " "))
    assert re.search(r"[?&]cmd=edit", decoded)
    return re.findall(r"[?&]arg=([^&#]*)", decoded)
