"""The REST service and its web page: ``veracity serve`` (extra ``[server]``).

``create_app(Settings(index=...))`` is a FastAPI app whose models load once when it starts;
its JSON bodies are the ``to_dict()`` shapes the CLI prints with ``--json``, and ``ask`` and
``verify`` also stream Server-Sent Events. See :mod:`veracity.server.app` for the endpoints,
:class:`~veracity.server.settings.Limits` for the limits and :mod:`veracity.server.gate` for how
requests share the models.
"""

from veracity.server.settings import Limits, Settings

__all__ = ["Limits", "Settings", "create_app"]


def __getattr__(name: str) -> object:
    if name == "create_app":  # imports FastAPI, which is an extra
        from veracity.server.app import create_app

        return create_app
    raise AttributeError(name)
