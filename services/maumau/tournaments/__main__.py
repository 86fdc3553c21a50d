"""``python -m maumau.tournaments``: one tournaments replica; its variables are
:class:`maumau.tournaments.settings.Settings`."""

from maumau.common.lifecycle import run_service
from maumau.tournaments.app import build
from maumau.tournaments.settings import Settings

if __name__ == "__main__":
    run_service(Settings, build)
