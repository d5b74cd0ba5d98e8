"""What the release carries: the wheel and sdist ``python -m build`` makes from this checkout.

The wheel holds the package and nothing else (every module and ``py.typed``; no tests, no cache),
with the metadata a package index shows: the version written once in ``hmyframe/_version.py``,
the MIT license and its file, the project URLs, the README (links made absolute), the
``hmyframe`` command. The sdist holds what a
source build and its tests need, and never ``data/`` (the cache), builds or environments.
(``.ci/run`` builds them again, checks them with ``twine`` and smoke-tests the installed wheel.)
"""

from __future__ import annotations

import email.parser
import importlib.metadata
import re
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

import hmyframe

ROOT = Path(__file__).resolve().parent.parent
URLS = {"Homepage", "Documentation", "Changelog", "Issues"}


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sdist, and the wheel built from it (what ``python -m build`` does), in a fresh folder."""
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return out


def _package_files() -> set[str]:
    """The files of the package in this source tree (no byte code), as wheel paths."""
    return {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "hmyframe").rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix not in (".pyc", ".pyo")
    }


@pytest.mark.slow
def test_the_wheel_holds_the_package_and_its_metadata(dist: Path) -> None:
    (wheel,) = dist.glob("*.whl")
    assert wheel.name == f"hmyframe-{hmyframe.__version__}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        info = f"hmyframe-{hmyframe.__version__}.dist-info"
        metadata = email.parser.Parser().parsestr(archive.read(f"{info}/METADATA").decode())
        entry_points = archive.read(f"{info}/entry_points.txt").decode()
        license_text = archive.read(f"{info}/licenses/LICENSE").decode()
    package = {n for n in names if not n.startswith(f"{info}/")}
    assert package == _package_files()  # every module and py.typed; nothing else (no tests, data/)
    assert "hmyframe/py.typed" in package
    assert {n.split("/")[0] for n in names} == {"hmyframe", info}

    assert metadata["Name"] == "hmyframe"
    assert metadata["Version"] == hmyframe.__version__
    assert metadata["License-Expression"] == "MIT"
    assert metadata.get_all("License-File") == ["LICENSE"]
    assert license_text == (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "MIT License" in license_text
    urls = dict(u.split(", ", 1) for u in metadata.get_all("Project-URL") or [])
    assert set(urls) == URLS
    assert all(u.startswith("https://github.com/hmyframe/hmyframe") for u in urls.values())
    assert metadata["Requires-Python"] == ">=3.11"
    # the README, its relative links made absolute (they would be dead on the package index)
    description = metadata.get_payload()
    assert metadata["Description-Content-Type"] == "text/markdown"
    assert re.findall(r"\]\((?!https://|#)[^)]*\)", description) == []
    assert "](https://github.com/hmyframe/hmyframe/blob/main/docs/cli.md)" in description
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert description.replace("](https://github.com/hmyframe/hmyframe/blob/main/", "](") == readme
    assert re.search(r"^hmyframe = hmyframe\.cli:main$", entry_points, re.M)


@pytest.mark.slow
def test_the_sdist_holds_the_sources_and_tests_but_no_cache_or_build(dist: Path) -> None:
    (sdist,) = dist.glob("*.tar.gz")
    top = f"hmyframe-{hmyframe.__version__}"
    assert sdist.name == f"{top}.tar.gz"
    with tarfile.open(sdist) as archive:
        names = {n.removeprefix(f"{top}/") for n in archive.getnames()}
    for needed in (
        "README.md",
        "LICENSE",
        "CHANGELOG.md",
        "pyproject.toml",
        "PKG-INFO",
        "mkdocs.yml",
        "hmyframe/_version.py",
        "hmyframe/py.typed",
        "tests/conftest.py",
        "docs/index.md",
        ".ci/run",
    ):
        assert needed in names, needed
    assert _package_files() <= names
    for name in names:
        assert not name.startswith(("data/", "build/", "dist/", ".venv", ".git/")), name
        assert "__pycache__" not in name, name


def test_the_version_is_written_once() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"]
    assert "version" in project["project"]["dynamic"]
    assert project["tool"]["hatch"]["version"]["path"] == "hmyframe/_version.py"
    written = [
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "hmyframe").rglob("*.py")
        if re.search(r"^__version__\s*=", path.read_text(encoding="utf-8"), re.M)
    ]
    assert written == ["hmyframe/_version.py"]
    # the installed metadata (what pip and the index see) says the same
    assert importlib.metadata.version("hmyframe") == hmyframe.__version__


def test_the_changelog_keeps_a_changelog_form() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    versions = re.findall(r"^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$", text, re.M)
    assert versions[0] == ("Unreleased", "")
    released = [v for v, _ in versions[1:]]
    assert hmyframe.__version__ in released
    assert all(date for _, date in versions[1:])  # every release is dated
    for version, _ in versions:
        assert re.search(rf"^\[{re.escape(version)}\]: https://", text, re.M), version
    for heading in re.findall(r"^### (.+)$", text, re.M):
        assert heading in {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}, heading
