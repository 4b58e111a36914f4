"""Helpers for the Space tests: serve a metric folder's app.py on 127.0.0.1 and drive it in Debian's
headless Chromium through selenium and /usr/bin/chromedriver (no browser download, no network).

Tests skip, naming what is missing, where gradio, selenium, chromium or chromedriver is absent.
"""

import contextlib
import importlib.util
import os
import pathlib
import shutil
import socket
import tempfile
import time

import pytest

from conftest import METRICS
from conftest import REPO

ARTIFACTS = REPO / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
# Everything the browser must not do on its own: no network of its own, no first-run UI, no sandbox (root in CI).
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",  # containers often have a tiny /dev/shm, where Chromium's tabs crash
    "--window-size=1280,1600",
)
WAIT = 30  # seconds for a page or a result to appear (a cold server on a busy 2-core machine)

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")  # gradio must not phone home from tests


def require_spaces_stack():
    """Skips (with the reason) unless gradio, selenium, chromium and chromedriver are all there."""
    for module, hint in (("gradio", "pip install gradio"), ("selenium", "pip install selenium")):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed ({hint}; CI installs the spaces extra)")
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.access(path, os.X_OK):
            pytest.skip(f"{path} is missing (apt-get install -y chromium chromium-driver; .ci/run does this)")


def load_app(folder):
    """The folder's app.py as a fresh module, loaded by file path as a Space would run it."""
    path = METRICS / folder / "app.py"
    spec = importlib.util.spec_from_file_location(f"{folder}_app", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve(app):
    """Serves `app` (a loaded app.py module) on 127.0.0.1 at a free port; yields the URL, then stops it."""
    port = free_port()
    demo = app.space.launch(app.build_demo, server_name="127.0.0.1", server_port=port, prevent_thread_lock=True,
                            quiet=True, ssr_mode=False)
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        demo.close()


@contextlib.contextmanager
def chromium():
    """A headless Chromium with a fresh profile, closed (and the profile removed) at the end."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="benchscore-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS + (f"--user-data-dir={profile}",):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


class Page:
    """The few interactions the Space tests need, each waiting until the page has reacted."""

    def __init__(self, driver, url, ready="#results"):
        """Opens `url` and waits for the element `ready` (every app has a #results table)."""
        self.driver = driver
        self.driver.get(url)
        self.wait_for(lambda: self.find_all(ready), f"{ready} on {url}")

    def wait_for(self, condition, what="the page", timeout=WAIT):
        deadline = time.monotonic() + timeout
        while True:
            value = condition()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout} s waiting for {what}")
            time.sleep(0.1)

    def find(self, css):
        return self.driver.find_element("css selector", css)

    def find_all(self, css):
        return self.driver.find_elements("css selector", css)

    def click_text(self, text, css="button"):
        """Clicks the first visible element matching `css` whose text contains `text`."""
        def candidates():
            return [e for e in self.find_all(css) if text in e.text and e.is_displayed()]

        element = self.wait_for(candidates, f"a {css} showing {text!r}")[0]
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", element)
        element.click()

    def upload(self, elem_id, path):
        """Sets the file of the gr.File with this elem_id (its hidden file input takes the path)."""
        self.find(f"#{elem_id} input[type=file]").send_keys(str(path))
        name = pathlib.Path(path).name
        # The name is shown split over lines (stem, suffix).
        self.wait_for(lambda: name in "".join(self.find(f"#{elem_id}").text.split()), f"{name} shown as uploaded")

    def table(self, elem_id):
        """A gr.Dataframe's column names and body cell texts: (headers, rows)."""
        return self.driver.execute_script(
            """
            const frame = document.getElementById(arguments[0]);
            const texts = (nodes) => Array.from(nodes, (node) => node.textContent.trim());
            return [texts(frame.querySelectorAll('th[role=columnheader] .header')),
                    Array.from(frame.querySelectorAll('[role=row][data-index]'),
                               (row) => texts(row.querySelectorAll('[role=gridcell]')))];
            """,
            elem_id,
        )

    def wait_for_table(self, elem_id, n_rows):
        """Waits until the gr.Dataframe shows `n_rows` body rows; returns (headers, rows)."""
        def ready():
            headers, rows = self.table(elem_id)
            return (headers, rows) if len(rows) == n_rows else None

        return self.wait_for(ready, f"{n_rows} rows in the {elem_id} table")

    def error_text(self):
        """The text of the error toast, once one is shown."""
        def toast():
            texts = [e.text for e in self.find_all(".toast-body") if e.is_displayed() and e.text.strip()]
            return "\n".join(texts)

        return self.wait_for(toast, "an error message")

    def close_errors(self):
        for button in self.find_all(".toast-close"):
            with contextlib.suppress(Exception):
                button.click()

    def value(self, elem_id):
        """The value of a gr.Textbox."""
        return self.find(f"#{elem_id} textarea, #{elem_id} input").get_attribute("value")

    def screenshot(self, name):
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / name
        # The whole page: set the window as tall as the document first.
        height = self.driver.execute_script("return document.documentElement.scrollHeight")
        self.driver.set_window_size(1280, max(900, min(int(height) + 100, 6000)))
        self.driver.save_screenshot(str(path))
        return path
