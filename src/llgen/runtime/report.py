"""Reports of a check: a Markdown page and a JSON record with the device, date, driver and counts.

Both files are written through a temporary file and renamed, so a reader never sees half a report; a
long run rewrites them as it goes, so an interrupted run still leaves what it finished.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

from llgen.core.files import write_atomic


@dataclass(frozen=True)
class ReportHead:
    """What heads a report, in both files: its title, the device (its to_json, or None) and the date (None: now)."""

    title: str
    device: dict | None
    date: str | None = None


def now() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S %Z")


def counts(results) -> dict:
    """Totals over CheckResults: kernels, slots and output elements compared (all runs), mismatches, errors."""
    return {
        "kernels": len(results),
        "ok": sum(r.ok for r in results),
        "failed": sum(not r.ok for r in results),
        "slots_compared": sum(r.slots * r.runs for r in results),
        "replica_slots_compared": sum(r.replicas * r.runs for r in results),
        "slot_mismatches": sum(r.slot_bad for r in results),
        "elements_compared": sum(r.elems * r.runs for r in results),
        "element_mismatches": sum(r.tile_bad for r in results),
        "errors": sum(r.error is not None for r in results),
    }


def table(results, *, limit: int | None = None) -> list[str]:
    """Fixed-width rows: one per result (or the first ``limit`` plus every failure)."""
    rows = [
        f"{'kernel':34} {'path':8} {'dtype':7} {'slots':>6} {'repl':>5} {'bad':>4} {'tiles':>5} {'elems':>8} {'bad':>4}  status"
    ]
    shown = results if limit is None else [r for i, r in enumerate(results) if i < limit or not r.ok]
    for r in shown:
        status = "ok" if r.ok else (r.error or "MISMATCH")
        rows.append(
            f"{r.label[:34]:34} {r.path:8} {r.dtype:7} {r.slots:>6} {r.replicas:>5} {r.slot_bad:>4} {r.tiles:>5} "
            f"{r.elems:>8} {r.tile_bad:>4}  {status[:200]}"
        )
    if limit is not None and len(shown) < len(results):
        rows.append(f"... {len(results) - len(shown)} more, all ok")
    return rows


def first_failures(results, n: int = 10) -> list[str]:
    out = []
    for r in results:
        if r.ok:
            continue
        if r.error:
            out.append(f"{r.label}: {r.error}")
        if r.first_bad:
            out.append(f"{r.label}: first bad slot: {r.first_bad}")
        if r.first_bad_tile:
            out.append(f"{r.label}: first bad output element: {r.first_bad_tile}")
        if len(out) >= n:
            break
    return out


def markdown(title: str, device: dict | None, date: str, results, sections=(), *, limit: int | None = None) -> str:
    dev = device or {}
    c = counts(results)
    lines = [
        f"# {title}",
        "",
        (
            f"Device: {dev.get('name', 'unknown')} ({dev.get('arch', '?')}, {dev.get('sms', '?')} SMs), driver "
            f"{dev.get('driver', '?')}, {dev.get('runtime', '?')}. Date: {date}."
        ),
        "",
        (
            f"**{c['kernels']} kernels, {c['slot_mismatches']} slot mismatches over {c['slots_compared']} slots "
            f"({c['replica_slots_compared']} of them replicas), {c['element_mismatches']} output mismatches over "
            f"{c['elements_compared']} elements, {c['errors']} errors.**"
        ),
        "",
    ]
    fails = first_failures(results)
    if fails:
        lines += ["First failures:", ""] + [f"- {f}" for f in fails] + [""]
    for heading, body in sections:
        lines += [f"## {heading}", "", body.rstrip(), ""]
    if results:
        lines += ["## Kernels", "", "```"] + table(results, limit=limit) + ["```", ""]
    return "\n".join(lines)


def write_report(
    prefix, *, head: ReportHead, results, extra: dict | None = None, sections=(), limit: int | None = None
) -> tuple[Path, Path]:
    """Write PREFIX.md and PREFIX.json, both headed by ``head``; returns both paths."""
    prefix = Path(prefix)
    title, device, date = head.title, head.device, head.date or now()
    md, js = prefix.with_name(prefix.name + ".md"), prefix.with_name(prefix.name + ".json")
    record = {
        "title": title,
        "date": date,
        "device": device,
        "counts": counts(results),
        **(extra or {}),
        "results": [r.to_json() for r in results],
    }
    write_atomic(js, json.dumps(record, indent=1, default=str) + "\n", make_dirs=True)
    write_atomic(md, markdown(title, device, date, results, sections, limit=limit), make_dirs=True)
    return md, js
