"""``python -m maumau.engine``: one engine replica; its variables are
:class:`maumau.engine.settings.Settings`."""

from maumau.common.lifecycle import run_service
from maumau.engine.app import build
from maumau.engine.settings import Settings

if __name__ == "__main__":
    run_service(Settings, build)
