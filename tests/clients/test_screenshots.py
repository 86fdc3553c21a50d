"""The web client's screenshots: clients/web/screenshots.py lists them (SHOTS), the folder holds
exactly those PNGs, each at its size and device scale 1 (a full-page summary or account page is
taller), and the docs' playing page shows every one of them."""

from __future__ import annotations

import importlib.util
import struct
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "clients" / "web" / "screenshots"


def script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("screenshots", FOLDER.parent / "screenshots.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("screenshots", module)  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path.name} is no PNG"
    width, height = struct.unpack(">II", head[16:24])
    return width, height


def test_the_folder_holds_the_scripts_shots_and_no_other_file() -> None:
    shots = script().SHOTS
    assert len(shots) == 24
    assert sorted(p.name for p in FOLDER.iterdir()) == sorted(s.file for s in shots)


def test_each_shot_has_its_size_at_device_scale_1() -> None:
    module = script()
    for shot in module.SHOTS:
        width, height = png_size(FOLDER / shot.file)
        expected_width, expected_height = module.SIZES[shot.size]
        assert width == expected_width, shot.file
        if shot.what in module.TALL:
            assert height >= expected_height, shot.file
        else:
            assert height == expected_height, shot.file
        assert (FOLDER / shot.file).stat().st_size < 400_000, f"{shot.file} is large"


def test_the_playing_page_shows_every_shot() -> None:
    page = (ROOT / "docs" / "playing.md").read_text()
    assert (ROOT / "docs" / "screenshots").resolve() == FOLDER
    for shot in script().SHOTS:
        assert f"](screenshots/{shot.file})" in page, shot.file
