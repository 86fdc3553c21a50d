"""``python -m maumau.rating``: one rating replica; its variables are
:class:`maumau.rating.settings.Settings`."""

from maumau.common.lifecycle import run_service
from maumau.rating.app import build
from maumau.rating.settings import Settings

if __name__ == "__main__":
    run_service(Settings, build)
