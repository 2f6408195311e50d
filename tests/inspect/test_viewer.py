"""``inspect view`` browses exported veriplan runs: the viewer is started on
127.0.0.1, opened in headless Chromium (Debian's, driven by Playwright), and a
known sample's transcript and verdict must be on the page. A screenshot is
saved under the test's tmp dir. Without a browser the test says so and skips
(under CI=true it fails: CI installs chromium)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from veriplan.methods.records import Entry

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def no_browser(reason: str) -> None:
    msg = f"no usable browser for the log-viewer test: {reason}"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(msg + " (CI must install Debian's chromium: see the Makefile)")
    pytest.skip(msg)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(url: str, proc: subprocess.Popen, seconds: float = 60) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise AssertionError(f"inspect view exited ({proc.returncode}): "
                                 f"{proc.stdout.read() if proc.stdout else ''}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise AssertionError(f"inspect view did not answer at {url} within {seconds} s")


def test_inspect_view_shows_a_known_sample(exported, tmp_path):
    playwright = pytest.importorskip("playwright.sync_api", reason="playwright not installed")
    chromium = next((p for b in BROWSERS if (p := shutil.which(b))), None)
    if chromium is None:
        no_browser(f"none of {', '.join(BROWSERS)} is on PATH")
    # the sample to find: direct generation's first unit (a failed plan)
    rec = next(r for r in exported.records if r.method == "direct" and r.status == "done")
    entry = Entry.from_dict(rec.result_dict()["transcript"][0])
    task = f"veriplan/{rec.method}/{rec.dataset}"

    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "inspect_ai", "view", "--log-dir", str(exported.logs),
         "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    shot = tmp_path / "inspect-view-sample.png"
    try:
        url = f"http://127.0.0.1:{port}/"
        wait_for(url, proc)
        with playwright.sync_playwright() as pw:
            try:
                browser = pw.chromium.launch(executable_path=chromium, headless=True)
            except Exception as exc:  # a browser that cannot start
                no_browser(f"{chromium} did not launch: {exc}")
            try:
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.goto(url)
                page.get_by_text(task, exact=True).first.click()   # the log
                page.get_by_text(rec.instance, exact=True).first.click()  # its first sample
                page.get_by_text("(stack a a)").first.wait_for(timeout=30_000)
                body = page.inner_text("body")
                page.screenshot(path=str(shot), full_page=True)
            finally:
                browser.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    print(f"screenshot of the sample page: {shot}")
    assert shot.stat().st_size > 10_000
    assert f"Sample {rec.instance} (Epoch 1)" in body
    assert entry.response.splitlines()[0] in body  # the model's answer, from the transcript
    assert "Here is a planning problem written in PDDL." in body  # its prompt
    assert entry.verdict in body  # the verifier's verdict on the answer
    assert "SCORE" in body.upper() and "\nI\n" in body  # the unit's score: not verified
