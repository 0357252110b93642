"""`benches/run.py --quick` runs end to end and writes valid results (numbers printed, never
asserted: speed is reported in benches/, not tested), plus the harness's own helpers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benches"))

from measures import REGISTRY  # noqa: E402
from measures.common import alternate, config_home_env, environ, percentile, summary  # noqa: E402
from measures.projects import KINDS, policy_source, routed_count  # noqa: E402

STATUSES = {"ok", "not available", "failed"}


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, str, str]:
    out = tmp_path_factory.mktemp("bench")
    proc = subprocess.run([sys.executable, str(REPO / "benches/run.py"), "--quick", "--out-dir", str(out)],
                          capture_output=True, text=True, timeout=900, cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-3000:]
    # every in-process measure uses the run's cache dir with the key of the run's config home
    assert "MAC mismatch" not in proc.stderr, proc.stderr[-3000:]
    return json.loads((out / "results.json").read_text()), (out / "RESULTS.md").read_text(), proc.stdout


def test_quick_run_writes_valid_results(quick_run: tuple[dict, str, str], capsys: pytest.CaptureFixture[str]) -> None:
    results, markdown, stdout = quick_run
    with capsys.disabled():
        print("\n" + stdout)
    assert results["mode"] == "quick"
    assert list(results["measures"]) == list(REGISTRY)
    for key in ("nproc", "cpu_model", "memory_gib", "python", "wasmtime", "load_average_start"):
        assert key in results["machine"], key
    assert len(results["load_average_end"]) == 3
    assert set(results["run_goal"]) == {"issue", "goal", "measured", "met"}
    failed = {k: m["reason"] for k, m in results["measures"].items() if m["status"] == "failed"}
    assert not failed, f"measures crashed: {failed}"
    for key, m in results["measures"].items():
        assert m["status"] in STATUSES
        assert m["title"] == REGISTRY[key][0]
        assert m["title"] in markdown
        assert len(m["load_average"]["start"]) == 3
        if m["status"] != "ok":
            assert m["reason"], key
            continue
        assert m["headline"] in markdown
        for g in m["goals"]:
            assert set(g) == {"issue", "goal", "measured", "met"} and g["met"] in (True, False, None)
        for v in m.get("variants", {}).values():  # statistics are consistent (values are not judged)
            assert v["n"] >= 1 and v["min"] <= v["median"] <= v["p90"] <= v["max"]
    assert "## Goals from the issues" in markdown and "## Machine" in markdown


def test_environ_switches_the_cache_mac_key_with_the_config_home(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from cupcake_py.core import cache_mac

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "outer"))
    cache_mac.forget()
    try:
        outer = cache_mac.key()
        inner_env = {"XDG_CONFIG_HOME": str(tmp_path / "inner"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
        with environ(inner_env):
            inner = cache_mac.key()
            assert inner == (tmp_path / "inner/cupcake/cache.key").read_bytes()
        assert outer is not None and inner is not None and inner != outer
        assert cache_mac.key() == outer  # not the inner key memoised past the block
    finally:
        cache_mac.forget()


def test_config_home_env_gives_each_config_home_its_own_cache(tmp_path: Path) -> None:
    base = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env = config_home_env(base, tmp_path / "plugin-config")
    assert env["XDG_CONFIG_HOME"] == str(tmp_path / "plugin-config")
    assert env["XDG_CACHE_HOME"] not in (base["XDG_CACHE_HOME"], env["XDG_CONFIG_HOME"])


def test_statistics() -> None:
    xs = [0.001 * i for i in range(1, 11)]
    assert percentile(xs, 50) == pytest.approx(0.0055)
    assert percentile(xs, 90) == pytest.approx(0.0091)
    assert percentile([3.0], 90) == 3.0
    s = summary(xs, "ms")
    assert (s["median"], s["p90"], s["min"], s["max"], s["n"]) == (5.5, 9.1, 1.0, 10.0, 10)
    assert summary([2e-6], "us")["median"] == 2.0


def test_alternate_rotates_order_and_counts() -> None:
    calls: list[str] = []
    variants = {n: (lambda n=n: calls.append(n)) for n in "abc"}
    samples = alternate(variants, rounds=3, warmup=1)
    assert calls == list("abc") + list("abc") + list("bca") + list("cab")
    assert {k: len(v) for k, v in samples.items()} == {"a": 3, "b": 3, "c": 3}


def test_alternate_budget_keeps_min_rounds() -> None:
    samples = alternate({"x": lambda: None}, rounds=1000, warmup=0, budget_s=0.0, min_rounds=4)
    assert len(samples["x"]) == 4


def test_generated_policies_are_distinct_and_routed_as_documented() -> None:
    sources = [policy_source(i) for i in range(2 * len(KINDS))]
    assert len(set(sources)) == len(sources)
    assert all(f"package cupcake.policies.opencode.bench.p{i:04d}\n" in s for i, s in enumerate(sources))
    assert routed_count(10) == 6 and routed_count(1000) == 600
