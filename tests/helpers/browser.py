"""Neo4j Browser driven as a person drives it: headless Debian Chromium (Playwright as the remote control),
the login form, then ``bookrag browse`` links opened and run. Used by ``tests/integration/test_browser_ui.py``
and to take the README's screenshot:

    .venv/bin/python -m tests.helpers.browser R-intro.pdf --section "Linear models" --out docs/browser/section_subtree.png
"""

from __future__ import annotations

import argparse
import asyncio
import re
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from playwright.async_api import Page, async_playwright

from bookrag_neo4j.db.client import ConnectionInfo

from .timeouts import BROWSER_WAIT_MS

# The flags the issue names: no sandbox (root in a container), no GPU, no calls home.
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]

_CREDENTIALS_STORED = """() => Object.values(JSON.parse(localStorage.getItem('neo4j.connections') || '{}')
    .connectionsById || {}).some(c => c.password)"""


def chromium_path() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        raise RuntimeError("Chromium is missing: `make test` installs Debian's package (apt-get install chromium)")
    return path


@asynccontextmanager
async def logged_in_browser(browser_url: str, conn: ConnectionInfo, width: int = 1400, height: int = 1000,
                            landing: str | None = None, prefilled: list[str] | None = None) -> AsyncIterator[Page]:
    """A Browser page past its login form (the credentials stay in the page's storage, as for a person).
    ``landing``: the link opened first (default the Browser with the server named); ``prefilled`` receives what
    its login form's user field held before the login typed into it."""
    async with async_playwright() as playwright:
        chromium = await playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS)
        try:
            page = await chromium.new_page(viewport={"width": width, "height": height})
            await page.goto(landing or f"{browser_url.rstrip('/')}/?preselectAuthMethod=NATIVE&dbms={conn.uri}",
                            wait_until="networkidle")
            if prefilled is not None:
                prefilled.append(await page.get_by_test_id("username").input_value())
            await page.get_by_test_id("username").fill(conn.username)
            await page.get_by_test_id("password").fill(conn.password)
            await page.get_by_test_id("connect").click()
            await _connected(page)
            # Browser stores the credentials once it has read the server's settings; a link opened before
            # that finds none and shows the login form again.
            await page.wait_for_function(_CREDENTIALS_STORED, timeout=BROWSER_WAIT_MS)
            yield page
        finally:
            await chromium.close()


async def _connected(page: Page) -> None:
    """Browser shows ``:server status`` once it is connected (after the login, and after a reload that
    reconnects with the stored credentials)."""
    await page.get_by_text("You are connected as user").wait_for(timeout=BROWSER_WAIT_MS)


async def run_link(page: Page, url: str) -> None:
    """Open a ``bookrag browse`` link and press the editor's Run button, as the link asks the user to."""
    await page.goto(url, wait_until="networkidle")
    await _connected(page)
    await page.get_by_test_id("editor-Run").click()


async def load_style(page: Page, url: str) -> None:
    """Run a ``bookrag browse --style`` link and wait until Browser has stored the style (a page opened
    earlier would still draw the default one)."""
    await run_link(page, url)
    await page.wait_for_function("() => (localStorage.getItem('neo4j.grass') || '').includes('node.Document')",
                                 timeout=BROWSER_WAIT_MS)


async def graph_result(page: Page) -> dict[str, tuple[int, str]]:
    """The newest result frame's graph as Browser's overview shows it: label -> (node count, colour)."""
    frame = page.get_by_test_id("frame").first
    await frame.locator("svg g.node").first.wait_for(timeout=BROWSER_WAIT_MS)
    await page.wait_for_timeout(3_000)  # the force layout settles
    chips = await frame.locator("[data-testid^='property-details-overview-node-label-']").evaluate_all(
        "cs => cs.map(c => [c.textContent, getComputedStyle(c).backgroundColor])")
    labels = {}
    for text, colour in chips:
        match = re.fullmatch(r"(.+) \((\d+)\)", text.strip())
        if match:
            labels[match.group(1)] = (int(match.group(2)), colour)
    return labels


async def screenshot(page: Page, out: Path) -> Path:
    """The newest frame (editor line, graph and overview), made full-screen, as a PNG."""
    out.parent.mkdir(parents=True, exist_ok=True)
    frame = page.get_by_test_id("frame").first
    await frame.get_by_title("Fullscreen").click()
    await frame.get_by_label("zoom-to-fit").click()
    await page.wait_for_timeout(1_500)
    await frame.screenshot(path=str(out))
    return out


async def _main(args: argparse.Namespace) -> None:
    from bookrag_neo4j.browse import browser_url, style_url
    from bookrag_neo4j.config import Settings
    from bookrag_neo4j.server import connection_info

    settings = Settings()
    base = f"http://localhost:{settings.neo4j.http_port}/browser/"
    params = {"doc": args.doc, "section": args.section} if args.section else {"doc": args.doc}
    query = "section_subtree" if args.section else "toc"
    async with logged_in_browser(base, connection_info(settings), args.width, args.height) as page:
        await load_style(page, style_url(base))
        await run_link(page, browser_url(base, query, params))
        print(await graph_result(page))
        print(await screenshot(page, args.out))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Screenshot a bookrag browse query in Neo4j Browser.")
    parser.add_argument("doc")
    parser.add_argument("--section")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--width", type=int, default=1400)
    parser.add_argument("--height", type=int, default=900)
    asyncio.run(_main(parser.parse_args()))
