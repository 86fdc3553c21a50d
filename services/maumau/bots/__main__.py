"""``python -m maumau.bots``: the bot-decision service; its variables are
:class:`maumau.bots.settings.Settings`."""

from maumau.bots.app import build
from maumau.bots.settings import Settings
from maumau.common.lifecycle import run_service

if __name__ == "__main__":
    run_service(Settings, build)
