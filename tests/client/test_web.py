"""``uno web``: the TUI in a browser (textual-serve), one ``uno play`` per tab.

Each test starts ``uno web`` as a child process in a process group of its own
(its tabs' ``uno play`` processes join that group), on an ephemeral loopback
port read back from the line it prints, and kills the whole group afterwards,
passed or failed. The browser tests drive headless Chromium with Selenium;
they are skipped, with the reason in the summary, only when chromium,
chromedriver or selenium is missing (.ci/run installs the Debian packages).

Reading the page: textual-serve's xterm.js draws the terminal into a canvas
(WebGL or 2D), so there is no text in the DOM. textual.js keeps its xterm
``Terminal`` in ``this.terminal`` of an object private to the page; a setter
for ``terminal`` on ``Object.prototype``, installed before any script of the
page runs (CDP ``Page.addScriptToEvaluateOnNewDocument``), hands it to the
test, which reads xterm's public buffer API: the cells the canvas shows.

No sleeps as synchronisation: every wait polls a condition under a timeout.
"""

from __future__ import annotations

import asyncio
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from unoplay.client.cli import build_parser
from unoplay.client.sdk import Connection
from unoplay.client.tui.render import COLOUR, colour_word, rank_short
from unoplay.client.tui.seats import MemorySeatStore
from unoplay.client.web import session_command
from unoplay.game.cards import DECK_SIZE, card_name

#: seconds: upper bound of any single wait (a loaded 2-core machine starts a
#: ``uno play`` in a few seconds; one alone, unloaded, in under one)
WAIT = 60.0
ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1100,720",
)
#: where the screenshot is copied for people (the pytest tmp dir has one too)
ARTIFACTS = Path(
    os.environ.get("UNOPLAY_ARTIFACTS") or Path(tempfile.gettempdir()) / "unoplay-artifacts"
)


def _missing() -> str | None:
    if CHROMIUM is None or CHROMEDRIVER is None:
        return (
            "chromium or chromedriver is not on PATH: uno web is NOT tested in a browser; "
            "apt-get install chromium chromium-driver (as .ci/run does)"
        )
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed: uno web is NOT tested in a browser; run `make install`"
    return None


MISSING = _missing()
if MISSING:  # shown in the warnings summary as well as in the skip reason
    warnings.warn(MISSING, pytest.PytestWarning, stacklevel=1)
needs_browser = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")

# Catches textual.js's xterm Terminal (see the module's docstring).
HOOK = """
window.__unoTerminals = [];
Object.defineProperty(Object.prototype, "terminal", {
  configurable: true,
  set(value) {
    Object.defineProperty(this, "terminal",
                          {value, writable: true, configurable: true, enumerable: true});
    if (value && value.buffer && value.buffer.active) window.__unoTerminals.push(value);
  },
});
"""
READ_SCREEN = """
const t = window.__unoTerminals && window.__unoTerminals[0];
if (!t) return null;
const buffer = t.buffer.active, rows = [];
for (let y = 0; y < t.rows; y++) {
  const line = buffer.getLine(buffer.viewportY + y);
  rows.push(line ? line.translateToString(true, 0, t.cols) : "");
}
return rows.join("\\n");
"""
#: what a card's box shows (rank, colour word) -> the name the log writes
NAMES = {(rank_short(c), colour_word(COLOUR[c])): card_name(c) for c in range(DECK_SIZE)}


# ---------------------------------------------------------------- processes


@dataclass
class WebRun:
    """A running ``uno web``."""

    process: subprocess.Popen
    url: str
    stderr: Path
    pgid: int  #: its process group: it and every tab's session

    def log(self) -> str:
        return self.stderr.read_text(encoding="utf-8", errors="replace")

    def game_server(self) -> str:
        """The embedded game server's address, from the log line ``uno web`` writes."""
        line = r"game server for the tabs on (\S+)"
        poll(
            lambda: re.search(line, self.log()), lambda: f"no game server in the log:\n{self.log()}"
        )
        found = re.search(line, self.log())
        assert found is not None
        return found.group(1)

    def sessions(self) -> list[str]:
        """Command lines of this run's ``uno play`` processes (its process group)."""
        pgid = self.pgid
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
                if os.getpgid(int(entry.name)) != pgid:
                    continue
            except (OSError, ProcessLookupError):
                continue
            words = [a.decode(errors="replace") for a in argv if a]
            if words and "play" in words and words[0] not in ("/bin/sh", "sh"):
                found.append(" ".join(words))
        return found


def _stop_group(process: subprocess.Popen) -> None:
    """SIGTERM to the process group, SIGKILL after 10 s, reap."""
    try:
        pgid = os.getpgid(process.pid)
    except ProcessLookupError:
        process.wait(timeout=WAIT)
        return
    for sig, grace in ((signal.SIGTERM, 10.0), (signal.SIGKILL, WAIT)):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            break
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            continue
        break
    try:  # tabs' sessions left behind by a failure
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def poll(predicate: Callable[[], object], what: Callable[[], str], timeout: float = WAIT) -> None:
    """Poll ``predicate()`` every 50 ms until it holds; fail with ``what()``
    (said when the ``timeout`` seconds are up) if it does not in time."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"after {timeout:.0f}s: {what()}"
        time.sleep(0.05)


@pytest.fixture
def uno_web(tmp_path):
    """Start ``uno web ARGS`` on an ephemeral loopback port; returns a WebRun."""
    runs: list[subprocess.Popen] = []
    env = {
        **os.environ,
        "UNOPLAY_DATA_DIR": str(tmp_path / "data"),
        "XDG_DATA_HOME": str(tmp_path / "xdg"),
        "UNOPLAY_MDNS": "0",
    }

    def start(*args: str) -> WebRun:
        stderr = tmp_path / f"uno-web-{len(runs)}.log"
        with open(stderr, "wb") as err:
            process = subprocess.Popen(
                [sys.executable, "-m", "unoplay.client.cli", "web", "--port", "0", *args],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=err,
                env=env,
                cwd=tmp_path,
                start_new_session=True,
            )
        runs.append(process)
        lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(
            target=lambda: [lines.put(line) for line in process.stdout], daemon=True
        ).start()
        deadline = time.monotonic() + WAIT
        while True:
            try:
                line = lines.get(timeout=max(0.0, deadline - time.monotonic())).decode()
            except queue.Empty:
                raise AssertionError(
                    f"uno web printed no URL in {WAIT:.0f}s; its log:\n"
                    + stderr.read_text(errors="replace")
                ) from None
            if found := re.search(r"open (http://\S+/) in a browser", line):
                return WebRun(process, found.group(1), stderr, process.pid)

    yield start
    for process in runs:
        _stop_group(process)


@pytest.fixture
def browser(tmp_path):
    """Headless Chromium driven by chromedriver, with a fresh profile; quit (and its
    process group killed) afterwards."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path / 'chromium-profile'}")
    service = Service(
        CHROMEDRIVER,
        log_output=str(tmp_path / "chromedriver.log"),
        popen_kw={"start_new_session": True},
    )
    driver = webdriver.Chrome(service=service, options=options)
    try:
        driver.set_page_load_timeout(WAIT)
        driver.set_script_timeout(WAIT)
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": HOOK})
        yield driver
    finally:
        try:
            driver.quit()
        finally:
            process = service.process
            if process is not None:
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass


# ---------------------------------------------------------------- the page


def screen(driver) -> str:
    """The terminal's rows as text ("" before the terminal exists)."""
    return driver.execute_script(READ_SCREEN) or ""


def wait_for(driver, predicate: Callable[[str], object], what: str, timeout: float = WAIT) -> str:
    """Poll the page's text until ``predicate(text)``; returns that text."""
    deadline = time.monotonic() + timeout
    while True:
        text = screen(driver)
        if predicate(text):
            return text
        if time.monotonic() > deadline:
            raise AssertionError(
                f"timed out after {timeout:.0f}s waiting for {what}; the page shows:\n{text}"
            )
        time.sleep(0.05)


@dataclass
class Card:
    key: str  #: its number key
    face: tuple[str, str]  #: (rank, colour word) as the box shows them
    playable: bool
    selected: bool

    @property
    def name(self) -> str:
        return NAMES[self.face]


def hand(text: str) -> list[Card]:
    """Your cards, read off the boxes at the bottom of the table screen."""
    lines = text.splitlines()
    tops = [i for i, line in enumerate(lines) if re.search(r"[╭┏]\d[─━]", line)]
    assert tops and tops[-1] + 3 < len(lines), f"no hand on the page:\n{text}"
    top = tops[-1]
    cards = []
    for found in re.finditer(r"[╭┏](\d)[─━]", lines[top]):
        x = found.start()
        rank = lines[top + 1][x + 1 : x + 7].strip()
        colour = lines[top + 2][x + 1 : x + 7].strip()
        bottom = lines[top + 3][x : x + 8]
        cards.append(Card(found.group(1), (rank, colour), "play" in bottom, lines[top][x] == "┏"))
    return cards


def cards_held(text: str) -> int:
    """How many cards you hold, from the Players panel (the hand row shows at
    most as many boxes as fit the width, so it cannot be counted there)."""
    found = re.search(r"\(you\)\s+(\d+)", text)
    assert found, f"no Players panel on the page:\n{text}"
    return int(found.group(1))


def selected(text: str) -> str:
    return next((card.key for card in hand(text) if card.selected), "")


def press(driver, *keys: str) -> None:
    """Type ``keys`` into the focused page (the terminal has the focus from the start)."""
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).send_keys(*keys).perform()


def table_page(driver, url: str) -> str:
    """Open ``url``; returns the page's text once it is your turn at the table."""
    driver.get(url)
    return wait_for(
        driver, lambda t: "YOUR TURN" in t and "What happened" in t, "your turn at the table"
    )


# ---------------------------------------------------------------- tests


@needs_browser
def test_a_tab_plays_a_card_by_keyboard(uno_web, browser, tmp_path, capsys):
    """`uno web` (an embedded server): the page named UNO shows a table with a
    bot at once; number keys and arrows select a card, Enter plays it, and the
    log on the page says so. A screenshot of the page is kept."""
    from selenium.webdriver.common.keys import Keys

    web = uno_web("--bot-delay", "0", "--target", "0", "--seed", "3")  # three bots
    assert web.url.startswith("http://127.0.0.1:"), web.url  # loopback unless --host
    text = table_page(browser, web.url)
    assert browser.title == "UNO"
    assert browser.execute_script(
        "return document.activeElement.classList.contains('xterm-helper-textarea')"
    ), "the terminal should have the keyboard focus without a click"
    # The app starts blurred under textual-serve and hides its footer of keys until
    # the page's "focus" reaches it (client/web.py focuses the terminal for that).
    text = wait_for(
        browser,
        lambda t: "Draw" in t.rstrip().splitlines()[-1],
        "the footer of keys (the app has the focus)",
    )

    for _ in range(10):  # draw (and keep) until a card fits; with this seed one fits at once
        playable = [c for c in hand(text) if c.playable]
        if playable:
            break
        held = cards_held(text)
        press(browser, "d")
        text = wait_for(
            browser,
            lambda t: "it can be played" in t or ("YOUR TURN" in t and cards_held(t) > held),
            "a drawn card",
        )
        if "it can be played" in text:
            press(browser, "k")
            text = wait_for(
                browser,
                lambda t: "YOUR TURN" in t and cards_held(t) > held and "it can be played" not in t,
                "your next turn",
            )
    else:
        raise AssertionError(f"no playable card after ten draws:\n{text}")
    card = next((c for c in playable if c.face[1] != "wild"), playable[0])

    press(browser, card.key)  # a number key selects
    text = wait_for(browser, lambda t: selected(t) == card.key, f"card {card.key} selected")
    index = [c.key for c in hand(text)].index(card.key)
    there, back = (
        (Keys.ARROW_LEFT, Keys.ARROW_RIGHT) if index else (Keys.ARROW_RIGHT, Keys.ARROW_LEFT)
    )
    press(browser, there)  # arrows move the selection, and back
    wait_for(browser, lambda t: selected(t) not in ("", card.key), "the selection moved")
    press(browser, back)
    wait_for(browser, lambda t: selected(t) == card.key, "the selection back")
    press(browser, Keys.ENTER)
    if card.face[1] == "wild":
        wait_for(browser, lambda t: "Name the colour" in t, "the colour prompt")
        press(browser, "r")
    line = f"You played {card.name}"
    wait_for(browser, lambda t: line in t, f"{line!r} in the log")

    shot = tmp_path / "uno-web.png"
    assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    kept = ARTIFACTS / "uno-web.png"
    shutil.copyfile(shot, kept)
    with capsys.disabled():
        print(f"\nuno web screenshot (after {line!r}): {kept}")


@needs_browser
def test_every_tab_has_its_own_session_and_table_on_one_server(uno_web, browser):
    """Two tabs: two `uno play` processes (seat tokens in memory only), two
    tables on the one embedded server; closing a tab ends its process, and
    the end of `uno web`, even by SIGKILL, the others'."""
    web = uno_web("--bots", "1", "--bot-delay", "0", "--target", "0")
    table_page(browser, web.url)
    first = browser.current_window_handle
    browser.switch_to.new_window("tab")
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": HOOK})  # per tab
    table_page(browser, web.url)

    poll(lambda: len(web.sessions()) == 2, lambda: f"sessions: {web.sessions()}")
    for command in web.sessions():
        assert "--memory-seats" in command and "--new-table" in command, command

    async def tables() -> list:
        async with Connection(web.game_server()) as conn:
            return await conn.list_tables()

    found = asyncio.run(tables())
    assert len(found) == 2 and all(len(t.seats) == 2 for t in found), found

    browser.close()  # the second tab
    browser.switch_to.window(first)
    poll(
        lambda: len(web.sessions()) == 1,
        lambda: f"the closed tab's session lives on: {web.sessions()}",
    )
    assert "What happened" in screen(browser)

    web.process.kill()  # no clean shutdown: the session sees its parent go and quits
    web.process.wait(timeout=WAIT)
    poll(lambda: not web.sessions(), lambda: f"orphaned sessions: {web.sessions()}")


def test_the_page_is_named_offline_and_refuses_other_origins(uno_web):
    """The page has the game's title and asks nothing of the internet; a page
    of another origin cannot open a session (its websocket is refused)."""
    import aiohttp

    web = uno_web("--bots", "1")
    with urllib.request.urlopen(web.url, timeout=WAIT) as response:
        page = response.read().decode()
    assert "<title>UNO</title>" in page
    assert "googleapis" not in page
    host = web.url.split("/")[2]
    assert f"ws://{host}/ws" in page  # the URL the browser came by

    async def connect(origin: str) -> int:
        async with aiohttp.ClientSession() as http:
            try:
                async with http.ws_connect(
                    f"ws://{host}/ws", origin=origin, timeout=aiohttp.ClientWSTimeout(ws_close=WAIT)
                ):
                    return 101
            except aiohttp.WSServerHandshakeError as err:
                return err.status

    assert asyncio.run(connect("http://evil.example")) == 403


def test_web_options_are_checked_before_serving(tmp_path):
    """A bad option stops `uno web` at once, with its own name in the message."""
    result = subprocess.run(
        [sys.executable, "-m", "unoplay.client.cli", "web", "--port", "0", "--bots", "0"],
        capture_output=True,
        text=True,
        timeout=WAIT,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "UNOPLAY_DATA_DIR": str(tmp_path)},
    )
    assert result.returncode != 0
    assert "uno web: --bots must be 1..9" in result.stderr
    args = build_parser().parse_args(["web"])
    assert (args.host, args.port, args.server) == ("127.0.0.1", 8000, None)


def test_web_sessions_keep_seat_tokens_in_memory(tmp_path, monkeypatch):
    """Each tab's `uno play` gets --memory-seats: its tokens never reach seats.json."""
    monkeypatch.setenv("UNOPLAY_DATA_DIR", str(tmp_path))
    command = session_command("127.0.0.1:5", ["--new-table"])
    assert command.startswith("exec ")  # the session is uno web's own child
    assert "play --server 127.0.0.1:5 --memory-seats --new-table" in command
    one, other = MemorySeatStore(), MemorySeatStore()
    one.put("127.0.0.1:5", "t1", "player", "secret", 0)
    assert one.get("127.0.0.1:5", "t1", "player") == "secret"
    assert other.get("127.0.0.1:5", "t1", "player") is None
    one.forget("127.0.0.1:5", "t1", "player")
    assert one.get("127.0.0.1:5", "t1", "player") is None
    assert not (tmp_path / "seats.json").exists()


async def page_ws_url(http, host: str, query: str = "") -> str:
    """The websocket URL of the page ``http`` gets from ``host``: with the
    page's one-time token (client/web.py, PageTokens)."""
    async with http.get(f"http://{host}/") as page:
        text = await page.text()
    found = re.search(r'data-session-websocket-url="[^"]*/ws/([^"/]+)"', text)
    assert found, text[:200]
    return f"ws://{host}/ws/{found.group(1)}?{query}"


async def test_tabs_beyond_the_limit_are_refused(monkeypatch):
    """Every tab is a process of its own: past MAX_SESSIONS a new one is refused (503)."""
    import aiohttp

    from unoplay.client import web

    monkeypatch.setattr(web, "MAX_SESSIONS", 0)
    site = web.WebSite(session_command("127.0.0.1:1"))
    port = await site.start("127.0.0.1", 0)
    try:
        async with aiohttp.ClientSession() as http:
            url = await page_ws_url(http, f"127.0.0.1:{port}")
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await http.ws_connect(url, timeout=aiohttp.ClientWSTimeout(ws_close=WAIT))
        assert refused.value.status == 503
    finally:
        await site.stop()


def test_every_tab_is_a_player_of_its_own_after_open_close_cycles(uno_web):
    """Tabs opened and closed at once leave no process behind and lock
    nobody out; then MAX_SESSIONS tabs (from 127.0.0.1 to 127.0.0.4, each
    address its share, all named "player") each get a table of their own
    at once: the embedded server counts every tab as a client of its own
    (its tag), not as one address and one name (16 seats, 16 waiting
    tables)."""
    import aiohttp

    from unoplay.client.web import MAX_SESSIONS, tabs_per_address
    from unoplay.game.messages import TableState

    web = uno_web("--bots", "1", "--target", "0")
    host = web.url.split("/")[2]
    query = "width=40&height=12"
    timeout = aiohttp.ClientWSTimeout(ws_close=WAIT)

    async def main() -> list:
        sources = [f"127.0.0.{i + 1}" for i in range(MAX_SESSIONS // tabs_per_address())]
        https = [
            aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(source, 0)))
            for source in sources
        ]
        try:
            return await open_tabs(https)
        finally:
            for http in https:
                await http.close()

    async def open_tabs(https: list) -> list:
        http = https[0]
        for _ in range(10):
            url = await page_ws_url(http, host, query)
            async with http.ws_connect(url, timeout=timeout) as ws:
                await ws.receive(timeout=WAIT)  # its process runs
        async with asyncio.timeout(WAIT):
            while web.sessions():
                await asyncio.sleep(0.05)
        tabs = [
            await http.ws_connect(await page_ws_url(http, host, query), timeout=timeout)
            for http in https
            for _ in range(tabs_per_address())
        ]

        async def read(ws) -> None:
            async for _ in ws:
                pass

        readers = [asyncio.create_task(read(ws)) for ws in tabs]
        conn = Connection(web.game_server(), timeout=WAIT)
        playing: list = []
        try:
            # 32 `uno play` processes start at once: ~25 s on 2 idle cores,
            # ~45 s beside two CPU hogs; the bound is ten times that.
            async with asyncio.timeout(WAIT + MAX_SESSIONS * 12):
                while True:
                    tables = await conn.list_tables()
                    playing = [
                        t
                        for t in tables
                        if t.state is TableState.PLAYING
                        and any(s.name == "player" and s.connected and not s.bot for s in t.seats)
                    ]
                    if len(playing) >= MAX_SESSIONS:
                        break
                    await asyncio.sleep(0.2)
        except TimeoutError:
            raise AssertionError(
                f"{len(playing)} of {MAX_SESSIONS} tabs at a table of their own in time; "
                f"sessions: {len(web.sessions())}; uno web's log ends:\n{web.log()[-3000:]}"
            ) from None
        finally:
            await conn.close()
            for ws in tabs:
                await ws.close()
            for task in readers:
                task.cancel()
        return playing

    playing = asyncio.run(main())
    assert len({t.table_id for t in playing}) == MAX_SESSIONS
    assert "already holds" not in web.log() and "tables waiting" not in web.log()
    # 32 processes quit at once: each has WAIT, as one would
    poll(
        lambda: not web.sessions(),
        lambda: f"sessions left: {len(web.sessions())}",
        timeout=WAIT + MAX_SESSIONS,
    )

    async def people_seated() -> list[str]:
        async with Connection(web.game_server()) as conn:
            tables = await conn.list_tables()
        return [
            f"{t.table_id} {t.state.name} {s.name}"
            for t in tables
            for s in t.seats
            if s.occupied and not s.bot
        ]

    # Every closed tab gave its seat up: no table waits for a person who is gone.
    assert asyncio.run(people_seated()) == []
