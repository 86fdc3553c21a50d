"""The Accounts service: a player keeps their name, history and ratings on every device.

A player starts anonymous (``PlayersService.Register``) and may claim a unique username
(:mod:`~maumau.accounts.names`), then sign in anywhere with a passkey
(:mod:`~maumau.accounts.passkeys`), a password (:mod:`~maumau.accounts.passwords`) or an
operator's OpenID Connect provider (:mod:`~maumau.accounts.providers`). Every sign-in answers
the platform's signed player tokens (``maumau.common.tokens``) for a session, which the player
directory lets every service check (``maumau.common.players``); personal access tokens are the
same tokens with a scope. Its keys are listed in :mod:`~maumau.accounts.store`.
"""
