"""``python -m maumau.accounts``: one Accounts replica; its variables are
:class:`maumau.accounts.settings.Settings`."""

from maumau.accounts.app import build
from maumau.accounts.settings import Settings
from maumau.common.lifecycle import run_service

if __name__ == "__main__":
    run_service(Settings, build)
