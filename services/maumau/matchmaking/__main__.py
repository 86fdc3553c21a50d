"""``python -m maumau.matchmaking``: one matchmaker replica; its variables are
:class:`maumau.matchmaking.settings.Settings`."""

from maumau.common.lifecycle import run_service
from maumau.matchmaking.app import build
from maumau.matchmaking.settings import Settings

if __name__ == "__main__":
    run_service(Settings, build)
