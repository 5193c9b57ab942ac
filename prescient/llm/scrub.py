"""Secret scrubbing: key values never reach a ledger, a log line or an error.

Keys are read from the environment variables the registry names (``api_key_env``) at
call time and handed to the transport alone. Error texts can still quote them (a
provider echoing a header, a URL with a token), so every error is scrubbed of the
values of those variables and of any variable whose name looks like a secret.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD")
MIN_SECRET_LEN = 6
"""Shorter values are not scrubbed: replacing every "1234" in an error would garble it."""


class Scrubber:
    """Replaces secret values with ``***``.

    Args:
        secrets: the values to hide.
    """

    def __init__(self, secrets: Iterable[str]) -> None:
        # Longest first, so a key that contains another is hidden whole.
        self.secrets = sorted({s for s in secrets if len(s) >= MIN_SECRET_LEN}, key=len)[::-1]

    @classmethod
    def from_env(
        cls, key_variables: Iterable[str], environ: Mapping[str, str] | None = None
    ) -> Scrubber:
        """The values of ``key_variables`` and of every secret-looking variable."""
        env = os.environ if environ is None else environ
        names = set(key_variables)
        names |= {var for var in env if any(word in var.upper() for word in SECRET_WORDS)}
        return cls(env.get(n, "") for n in names)

    def __call__(self, text: str) -> str:
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, "***")
        return text
