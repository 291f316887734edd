"""Serving beyond loopback (`--host 0.0.0.0 --token T`): answered through the machine's own
addresses, start-up URLs that work, hints that are valid options."""

from __future__ import annotations

import dataclasses
import socket
from pathlib import Path

import httpx
import pytest

from veracity.cli.serve import free_port, urls_of
from veracity.errors import OptionError
from veracity.server.app import create_app
from veracity.server.settings import Settings

from .conftest import LiveServer, settings_for

TOKEN = "s3cret-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


async def _get(settings: Settings, url: str, **headers: str) -> httpx.Response:
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)  # the request arrives on the URL's address
        async with httpx.AsyncClient(transport=transport) as client:
            return await client.get(url, headers=headers)


@pytest.mark.unit
def test_a_wildcard_server_answers_through_the_address_a_request_arrives_on(
    index_dir: Path,
) -> None:
    """Before, `--host 0.0.0.0 --token T` answered every request through 192.0.2.2 with 400
    "does not answer to the name '192.0.2.2'" unless --allowed-host was added."""
    import asyncio

    settings = settings_for(index_dir, token=TOKEN)
    settings = dataclasses.replace(settings, host="0.0.0.0")
    own = asyncio.run(_get(settings, "http://192.0.2.2:8701/v1/version", **AUTH))
    assert own.status_code == 200, own.text
    other = asyncio.run(
        _get(settings, "http://192.0.2.2:8701/v1/version", Host="192.0.2.9", **AUTH)
    )
    assert other.status_code == 400  # a name the connection did not arrive on


@pytest.mark.unit
@pytest.mark.parametrize("given", ["evil@127.0.0.1", "a b", "x/y"])
def test_a_host_that_is_no_name_gets_no_allowed_host_hint(index_dir: Path, given: str) -> None:
    """Before, the 400 suggested `--allowed-host evil@127.0.0.1`, which the server refuses."""
    import asyncio

    response = asyncio.run(
        _get(settings_for(index_dir), "http://127.0.0.1:8000/v1/health", Host=given)
    )
    assert response.status_code == 400
    assert "--allowed-host" not in response.json()["error"]["message"]
    assert "is not a host name" in response.json()["error"]["message"]


@pytest.mark.unit
def test_the_start_up_line_names_urls_that_work() -> None:
    """Before: http://0.0.0.0:8701/, which no browser can open."""
    urls = urls_of(Settings(index="i", host="0.0.0.0", port=8701, token=TOKEN))
    assert urls[0] == "http://127.0.0.1:8701/"
    assert not any("0.0.0.0" in url for url in urls)
    assert urls_of(Settings(index="i", host="::1", port=8701)) == ["http://[::1]:8701/"]


@pytest.mark.unit
def test_a_port_in_use_is_an_option_error_before_anything_serves() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(OptionError, match="another process listens on it"):
            free_port("127.0.0.1", port)


def _own_address() -> str | None:
    """A non-loopback address of this machine (no packet is sent), or None."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))
            address = str(probe.getsockname()[0])
    except OSError:
        return None
    return None if address.startswith("127.") else address


@pytest.mark.integration
def test_serving_on_every_address_answers_through_the_machine_s_own(index_dir: Path) -> None:
    address = _own_address()
    if address is None:
        pytest.skip("this machine has no address but loopback")
    settings = settings_for(index_dir, token=TOKEN)
    settings = dataclasses.replace(settings, host="0.0.0.0")
    with LiveServer(settings) as live:
        url = f"http://{address}:{live.port}/v1/version"
        assert httpx.get(url, headers=AUTH, timeout=10).status_code == 200
        assert httpx.get(url, timeout=10).status_code == 401
