"""The protos' comments as tests read them: what a client author reads beside each field."""

from __future__ import annotations

import re
from pathlib import Path

PROTOS = Path(__file__).resolve().parents[2] / "protos" / "maumau" / "v1"


def comment(file: str, message: str, field: str, *, with_message: bool = True) -> str:
    """The text of the comments on a field of ``file`` (e.g. "engine.proto"): the message's own
    comment (unless ``with_message`` is false), the lines above the field and the ones beside
    and under it, without the ``//``."""
    lines = (PROTOS / file).read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(rf"\s*message {message} \{{", line))
    at = next(
        i
        for i in range(start, len(lines))
        if re.search(rf"(^|\{{)\s*(optional |repeated )?[\w.<>, ]+ {field} = \d+;", lines[i])
    )
    texts = (_above(lines, start) if with_message else []) + _above(lines, at)
    texts.append(lines[at].partition("//")[2])
    indent = len(lines[at]) - len(lines[at].lstrip())
    for line in lines[at + 1 :]:
        stripped = line.lstrip()
        if not stripped.startswith("//") or len(line) - len(stripped) <= indent:
            break
        texts.append(stripped[2:])
    return " ".join(text.strip() for text in texts)


def _above(lines: list[str], at: int) -> list[str]:
    texts: list[str] = []
    for line in reversed(lines[:at]):
        stripped = line.strip()
        if not stripped.startswith("//"):
            break
        texts.insert(0, stripped[2:])
    return texts
