"""One report from the JSON of several bench runs (suites, shards, the gather benchmark, reruns of some cases)."""

from __future__ import annotations

import json
from pathlib import Path

from llgen.cases.suite import SUITES, suite_name
from llgen.core.errors import LlgenError


def read_reports(paths) -> list[dict]:
    parts = []
    for p in paths:
        try:
            parts.append(json.loads(Path(p).read_text()))
        except (OSError, ValueError) as e:
            raise LlgenError(f"cannot read the bench report {p}: {e.strerror if isinstance(e, OSError) else e}.") from None
    if not parts:
        raise LlgenError("no reports to merge.")
    return parts


def merge_mixed(parts: list[dict]) -> dict:
    """The mixed suite's shards as one report: the first shard's device, its cases and STREAM rows in the suite's
    order (a case run twice: the later run's), every shard listed under "runs"."""
    from llgen.cases.mixed import CASES

    if any("info" in p or "device" not in p for p in parts):
        raise LlgenError("merge joins mixed-suite reports only with each other, not with other suites' reports.")
    order = {c.id: i for i, c in enumerate(CASES)}
    merged = {k: parts[0][k] for k in ("device", "sms", "clock_ghz")}
    merged["runs"] = [{k: p.get(k) for k in ("shard", "date", "commit", "device")} for p in parts]
    merged["date"] = min(str(p.get("date", "")) for p in parts)
    devices = {p["device"] for p in parts}
    if len(devices) > 1:
        merged["warning"] = f"the runs were on different devices: {sorted(devices)}"
    for key in ("cases", "stream"):
        rows = {r["id"]: r for p in parts for r in p.get(key, [])}
        merged[key] = sorted(rows.values(), key=lambda r: order.get(r["id"], len(order)))
    return merged


def merge_reports(parts: list[dict]) -> dict:
    """Cases in their suite's order, suites in the order they first appear, the first run's device information with
    every run listed under info["runs"]; a case run twice is the later run's."""
    if any("info" not in p for p in parts):
        raise LlgenError("a report to merge has no run information ('info'): it is not a report of `llgen bench -o`.")
    parts = [_current_names(p) for p in parts]
    info = dict(parts[0]["info"])
    keep = ("suite", "shard", "date", "date_end", "seconds", "device", "commit", "nvidia_smi")
    by_key: dict = {}
    for i, p in enumerate(parts):
        for c in p.get("cases", []):
            by_key.pop((c.get("suite"), c["id"]), None)
            by_key[(c.get("suite"), c["id"])] = (i, c)  # a case run twice: the later run's
    kept_from: dict[int, set] = {}
    for (suite, _), (i, _) in by_key.items():
        kept_from.setdefault(i, set()).add(suite)
    info["runs"] = _runs(parts, keep, kept_from)
    info["date"] = min(p["info"].get("date", "") for p in parts)
    info["date_end"] = max(p["info"].get("date_end", "") for p in parts)
    devices = {p["info"].get("device") for p in parts}
    if len(devices) > 1:
        info["warning"] = f"the runs were on different devices: {sorted(map(str, devices))}"
    for k in ("suite", "shard", "seconds"):
        info.pop(k, None)
    merged = {"info": info, "measures": [], "cases": []}
    for p in parts:
        merged["measures"] += [m for m in p.get("measures", []) if m not in merged["measures"]]
    merged["cases"] = in_suite_order([c for _, c in by_key.values()])
    gathers = [g for p in parts for g in p.get("gather", [])]
    if gathers:
        merged["gather"] = gathers
    return merged


def _current_names(report: dict) -> dict:
    """The report with an older suite name (SUITE_ALIASES: smem) read as today's, in its cases and its runs."""

    def named(d: dict) -> dict:
        return {**d, "suite": suite_name(d["suite"])} if d.get("suite") else d

    info = named(report["info"])
    if info.get("runs"):
        info["runs"] = [named(r) for r in info["runs"]]
    return {**report, "info": info, "cases": [named(c) for c in report.get("cases", [])]}


def _runs(parts: list[dict], keep: tuple[str, ...], kept_from: dict[int, set]) -> list[dict]:
    """Every run behind ``parts`` that still gives the merge a case (``kept_from``: part index -> the suites of its
    cases that were not run again later): a merged report's own runs, by suite, so merging into one keeps their
    provenance; any other part as one run."""
    runs = []
    for i, p in enumerate(parts):
        inner = p["info"].get("runs")
        if inner:
            runs += [r for r in inner if r.get("suite") in kept_from.get(i, set())]
        elif kept_from.get(i) or not p.get("cases"):  # a run with no case is listed as it ran
            runs.append({k: p["info"].get(k) for k in keep} | {"cases": len(p.get("cases", []))})
    return runs


def in_suite_order(cases: list[dict]) -> list[dict]:
    """Cases grouped by suite (in the order suites first appear), each suite in llgen.cases.suite's order of its cases
    (cases it does not list, and suites it does not know, keep the order they came in)."""
    groups: dict = {}
    for c in cases:
        groups.setdefault(c.get("suite"), []).append(c)
    out = []
    for name, cs in groups.items():
        order = {}
        if name in SUITES:
            try:
                order = {c.id: i for i, c in enumerate(SUITES[name]())}
            except Exception:  # noqa: BLE001 - ordering only
                order = {}
        out += sorted(cs, key=lambda c, order=order: order.get(c["id"], len(order)))  # stable: unknown ones keep their order
    return out
