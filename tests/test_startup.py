"""Start-up: what ``import hmyframe`` and the start of a command load (each in a fresh interpreter).

Heavy modules (pandas, matplotlib, pyarrow, numpy, aiohttp) load only where they are used: an
export never builds a DataFrame, so it never imports pandas. Checked from ``sys.modules`` of a
subprocess, not by timing (``bench/startup.py`` measures the time).
"""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
from pathlib import Path

from hmyframe.devnet import Devnet

HEAVY = ("pandas", "matplotlib", "pyarrow", "numpy", "aiohttp")


def _loaded_after(code: str) -> dict[str, object]:
    """Run ``code`` in a fresh interpreter; it sets ``out`` (a dict); add which HEAVY modules are loaded."""
    script = (
        "import json, sys\nout = {}\n"
        + code
        + f"\nout['loaded'] = [m for m in {HEAVY!r} if m in sys.modules]\nprint(json.dumps(out))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_import_hmyframe_loads_no_heavy_module() -> None:
    out = _loaded_after("import hmyframe\nout['version'] = hmyframe.__version__")
    assert out["version"] == importlib.metadata.version("hmyframe")  # written once: hmyframe/_version.py
    assert out["loaded"] == []


def test_the_export_command_starts_without_pandas_pyarrow_numpy_or_matplotlib() -> None:
    # what `hmyframe export ...` imports before its first request: its parser and the export
    out = _loaded_after(
        "from hmyframe.cli import build_parser\n"
        "args = build_parser('export').parse_args(['export', 'blocks', '--start', '0', '--end', '9'])\n"
        "import hmyframe.exporting\n"
        "out['datasets'] = args.datasets"
    )
    assert out["datasets"] == "blocks"
    assert out["loaded"] == ["aiohttp"]


def test_naming_a_fetcher_or_the_public_api_loads_neither_pandas_nor_matplotlib() -> None:
    out = _loaded_after(
        "import hmyframe\n"
        "names = [hmyframe.transactions, hmyframe.aio.traces, hmyframe.export, hmyframe.read, hmyframe.Cache]\n"
        "out['all'] = len(hmyframe.__all__)"
    )
    loaded = out["loaded"]
    assert isinstance(loaded, list)
    assert "pandas" not in loaded
    assert "matplotlib" not in loaded
    assert isinstance(out["all"], int)
    assert out["all"] > 20


def test_fetching_and_exporting_load_no_matplotlib_until_a_plot_is_asked_for(
    devnet: Devnet, tmp_path: Path
) -> None:
    # (pandas does load during conversion: pyarrow imports it on its first pa.array() of a list)
    out = _loaded_after(
        "import hmyframe\n"
        f"rpc = {devnet.url!r}\n"
        "table = hmyframe.blocks(0, 19, rpc=rpc, cache=False, output='arrow')\n"
        f"summary = hmyframe.export(['transactions'], 0, 49, rpc=rpc, out={str(tmp_path)!r})\n"
        "out['arrow_rows'] = table.num_rows\n"
        "out['exported'] = summary.datasets['transactions'].rows\n"
        "out['before'] = 'matplotlib' in sys.modules\n"
        "import hmyframe.plot\n"
    )
    assert out["arrow_rows"] == 20
    assert isinstance(out["exported"], int)
    assert out["exported"] > 0
    assert out["before"] is False
    loaded = out["loaded"]
    assert isinstance(loaded, list)
    assert "matplotlib" in loaded


def test_the_export_command_never_imports_pandas_and_leaves_pyarrow_able_to(
    devnet: Devnet, tmp_path: Path
) -> None:
    # pyarrow imports pandas (0.3-0.6 s) on its first array unless told pandas is absent; the
    # export command tells it so, and pyarrow's own pandas conversions still work afterwards
    out = _loaded_after(
        "from hmyframe.cli import main\n"
        f"code = main(['export', 'blocks,transactions', '--rpc', {devnet.url!r}, '--start', '0', "
        f"'--end', '59', '--out', {str(tmp_path)!r}, '--no-progress'])\n"
        "out['code'] = code\n"
        "out['pandas_after_export'] = 'pandas' in sys.modules\n"
        "import pyarrow as pa, pyarrow.parquet as pq\n"
        f"files = sorted(__import__('pathlib').Path({str(tmp_path)!r}).rglob('transactions/**/*.parquet'))\n"
        "table = pa.concat_tables([pq.read_table(f) for f in files])\n"
        "frame = table.to_pandas()\n"
        "out['rows'] = [table.num_rows, len(frame)]\n"
        "out['values_equal'] = [int(v) for v in frame['value']] == [v.as_py() for v in table['value']]\n"
    )
    assert out["code"] == 0
    assert out["pandas_after_export"] is False
    rows = out["rows"]
    assert isinstance(rows, list)
    assert rows[0] == rows[1] > 0
    assert out["values_equal"] is True
    loaded = out["loaded"]
    assert isinstance(loaded, list)
    assert "pandas" in loaded  # imported by to_pandas() when asked
