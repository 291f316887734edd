"""The REST service and its web page: ``veracity serve`` (extra ``[server]``).

``create_app(Settings(index=...))`` is a FastAPI app whose models load once when it starts;
its JSON bodies are the ``to_dict()`` shapes the CLI prints with ``--json``, and ``ask`` and
``verify`` also stream Server-Sent Events. See :mod:`veracity.server.app` for the endpoints,
:class:`~veracity.server.settings.Limits` for the limits and budgets, :mod:`veracity.server.gate`
for the lanes (how requests share the models, admitted by :mod:`veracity.server.clock`'s
estimate), :mod:`veracity.server.stop` for how work nobody waits for stops,
:mod:`veracity.server.connections` for slow and numerous clients, :mod:`veracity.server.live`
for re-indexing while serving, :mod:`veracity.server.visible` for invisible characters, and
:mod:`veracity.server.public` for what a response may show of the server's files.
"""

from veracity.server.settings import Limits, Settings

__all__ = ["Limits", "Settings", "create_app"]


def __getattr__(name: str) -> object:
    if name == "create_app":  # imports FastAPI, which is an extra
        from veracity.server.app import create_app

        return create_app
    raise AttributeError(name)
