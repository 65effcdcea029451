"""Headless Chromium through selenium for the HTML page tests (Debian's chromium and
chromium-driver; nothing is downloaded at run time)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1280,1000")


def chromium_paths() -> tuple[str, str] | None:
    """``(browser, driver)`` of the system's Chromium, or None when either is missing."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    return (browser, driver) if browser and driver else None


def start_browser():
    """A selenium Chrome driver on the system Chromium, with a fresh profile and the
    performance log (network events) enabled."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, driver = chromium_paths()  # type: ignore[misc]
    opts = webdriver.ChromeOptions()
    opts.binary_location = browser
    for flag in FLAGS:
        opts.add_argument(flag)
    profile = tempfile.mkdtemp(prefix="nf-chromium-")
    opts.add_argument(f"--user-data-dir={profile}")
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    d = webdriver.Chrome(service=Service(driver), options=opts)
    d._nf_profile = profile
    return d


def stop_browser(d) -> None:
    d.quit()
    shutil.rmtree(getattr(d, "_nf_profile", ""), ignore_errors=True)


def screenshot(d, url: str, path: str | Path, width: int = 1280) -> None:
    """A full-page PNG of ``url``."""
    d.set_window_size(width, 700)
    d.get(url)
    h = d.execute_script("return Math.min(document.documentElement.scrollHeight, 6000)")
    d.set_window_size(width, max(600, int(h) + 120))
    d.save_screenshot(str(path))
