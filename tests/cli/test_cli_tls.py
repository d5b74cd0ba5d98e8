"""The ``hmyframe`` command over ``https``.

The command owns its process (``hmyframe.cli.main`` without ``argv``), so it imports aiohttp without the CA
certificates aiohttp loads at import for its default TLS contexts (~35 ms of every start), and
each ``https`` request carries hmyframe's own verified context instead. Against the devnet
behind a TLS front whose certificate a test CA (trustme) signed: the command works when that CA
is the system's (``SSL_CERT_FILE``), and refuses the server when it is not, so verification is
on; aiohttp's own contexts hold no certificate in such a process, and keep theirs in a caller's.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import trustme
from hostile import Proxy

from hmyframe.devnet import Devnet

SCRIPT = Path(sys.executable).with_name("hmyframe")


@pytest.fixture
def tls_devnet(devnet: Devnet, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The devnet behind an https front, and the PEM file of the CA that signed its certificate."""
    ca = trustme.CA()
    server = ca.issue_cert("127.0.0.1")
    import ssl

    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server.configure_cert(context)
    pem = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(pem))
    front = Proxy(devnet.url, lambda body: None, tls=context)
    try:
        yield front.url, pem
    finally:
        front.close()


def _command(argv: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k not in ("SSL_CERT_FILE", "SSL_CERT_DIR")}
    return subprocess.run(
        [str(SCRIPT), *argv], capture_output=True, text=True, timeout=120, env={**environ, **env}
    )


def test_the_command_verifies_https_nodes_with_its_own_context(tls_devnet: tuple[str, Path]) -> None:
    url, ca = tls_devnet
    trusted = _command(["shards", "--rpc", url], SSL_CERT_FILE=str(ca))
    assert trusted.returncode == 0, trusted.stderr
    assert "shard" in trusted.stdout
    untrusted = _command(["shards", "--rpc", url, "--retries", "0"])
    assert untrusted.returncode == 1
    assert "certificate verify failed" in untrusted.stderr
    assert "\n" not in untrusted.stderr.strip()


CONTEXTS = """
import sys
from hmyframe._lazy import aiohttp_without_default_certificates, tls_for
if sys.argv[1] == "owned":
    aiohttp_without_default_certificates()
import aiohttp.connector as connector
mine = tls_for("https://node.example")
print(connector._SSL_CONTEXT_VERIFIED.cert_store_stats()["x509_ca"],
      "own" if mine is not True else "aiohttp's",
      mine is not True and mine.cert_store_stats()["x509_ca"],
      tls_for("http://node.example"), tls_for("wss://node.example") is mine)
"""


@pytest.mark.parametrize(
    ("process", "expected"), [("owned", "0 own 1 True True"), ("caller", "1 aiohttp's False True True")]
)
def test_aiohttp_keeps_its_certificates_unless_the_command_owns_the_process(
    tls_devnet: tuple[str, Path], process: str, expected: str
) -> None:
    _, ca = tls_devnet
    done = subprocess.run(
        [sys.executable, "-c", CONTEXTS, process],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "SSL_CERT_FILE": str(ca)},
        check=True,
    )
    assert done.stdout.split() == expected.split()
