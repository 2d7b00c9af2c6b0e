#!/usr/bin/env python3
"""Draws the SVG plots of BENCHMARKS.md from committed data files.

Why a script of its own: every figure in a plot must be one that
BENCHMARKS.md records, with its source beside it. So the figures live in
data files (docs/img/data/NAME.json, each panel with the command, date,
commit and machine it came from), and this script only draws them: running
it again after a data file changes gives the same SVG byte for byte, which
`--check` verifies. It also plots a fresh demo run (`./scripts/demo.sh
--json`), one chart per system.

Only the standard library is used, and the SVGs are hand-written: plain
horizontal bar charts (one bar per figure, optional min-max whiskers, an
optional reference line; on a log scale a dot per figure instead of a
bar) and line charts on log-log axes. Colours come from a <style> with a
dark variant (prefers-color-scheme), over a background of their own, so a
plot reads the same in a light and a dark page.

Usage:
    scripts/plot-benchmarks.py                  every docs/img/data/*.json -> docs/img/*.svg
    scripts/plot-benchmarks.py FILE.json...     only those
    scripts/plot-benchmarks.py --check          fail if a committed SVG is stale
    scripts/plot-benchmarks.py --demo demo.json [--out DIR] [--recorded "DATE, COMMIT, MACHINE"]
                                                the demo's JSON -> DIR/SYSTEM.svg

A data file:
    {"title": "...", "panels": [PANEL, ...]}
A bar panel:
    {"kind": "bars", "title": "...", "unit": "wall seconds, lower is better",
     "scale": "linear" | "log", "reference": 1.0, "reference_label": "..." (optional),
     "groups": [{"label": "..." (optional),
                 "bars": [{"label": "...", "value": 1.9, "low": 1.6, "high": 2.1,
                           "role": "spool" | "peer" | "floor",
                           "text": "..." (optional: the label at the bar's end)}]}],
     "source": {"command": "...", "recorded": "YYYY-MM-DD", "commit": "...",
                "machine": "...", "table": "BENCHMARKS.md#..."}}
A line panel:
    {"kind": "lines", "title": "...", "x": {"label": "...", "values": [...]},
     "unit": "...", "series": [{"name": "...", "values": [...]}],
     "source": {...}}    (x and y on log scales; null leaves a point out)
"""

import argparse
import json
import math
import sys
from decimal import Decimal
from pathlib import Path
from xml.sax.saxutils import escape

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "docs" / "img" / "data"
IMG = ROOT / "docs" / "img"

WIDTH = 760
FONT = 12
CHAR = 6.6  # average width of a character at FONT, for laying out labels
BAR = 14
BAR_GAP = 4
GROUP_GAP = 10

STYLE = """
  .bg { fill: #ffffff; }
  text { fill: #1f2328; font-family: -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif; font-size: 12px; }
  .title { font-size: 15px; font-weight: 600; }
  .panel { font-size: 13px; font-weight: 600; }
  .group { font-weight: 600; }
  .muted { fill: #59636e; font-size: 11px; }
  .axis { stroke: #59636e; stroke-width: 1; }
  .grid { stroke: #d1d9e0; stroke-width: 1; }
  .ref { stroke: #1f2328; stroke-width: 1; stroke-dasharray: 4 3; }
  .whisker { stroke: #1f2328; stroke-width: 1.2; }
  .spool { fill: #0969da; stroke: #0969da; }
  .peer { fill: #818b98; stroke: #818b98; }
  .floor { fill: #d4a72c; stroke: #d4a72c; }
  .s0 { stroke: #0969da; fill: #0969da; } .s1 { stroke: #bc4c00; fill: #bc4c00; }
  .s2 { stroke: #1a7f37; fill: #1a7f37; } .s3 { stroke: #8250df; fill: #8250df; }
  .s4 { stroke: #d4a72c; fill: #d4a72c; } .s5 { stroke: #818b98; fill: #818b98; }
  .line { fill: none; stroke-width: 2; }
  @media (prefers-color-scheme: dark) {
    .bg { fill: #0d1117; }
    text { fill: #e6edf3; }
    .muted { fill: #9198a1; }
    .axis { stroke: #9198a1; }
    .grid { stroke: #3d444d; }
    .ref, .whisker { stroke: #e6edf3; }
    .spool, .s0 { fill: #4493f8; stroke: #4493f8; }
    .peer, .s5 { fill: #9198a1; stroke: #9198a1; }
    .s1 { stroke: #f0883e; fill: #f0883e; } .s2 { stroke: #3fb950; fill: #3fb950; }
    .s3 { stroke: #ab7df8; fill: #ab7df8; }
  }
"""


def number(v):
    """A figure exactly as the data file writes it (data files are read with
    decimals kept as written, so 7.00 stays 7.00: nothing is rounded)."""
    return str(v)


def demo_number(v):
    """A figure from a demo run, shown as the demo's own table shows it."""
    if v >= 100:
        return f"{v:.0f}"
    return f"{v:.2f}" if v >= 1 else f"{v:.3f}"


def wrap(text, width):
    """Splits `text` into lines of at most `width` characters at spaces."""
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return lines + [line] if line else lines


class Axis:
    """Maps figures onto [x0, x1] pixels, linearly or on a log scale."""

    def __init__(self, lo, hi, x0, x1, log):
        self.log, self.x0, self.x1 = log, x0, x1
        if log:
            self.lo = 10 ** math.floor(math.log10(lo))
            self.hi = 10 ** math.ceil(math.log10(hi))
        else:
            self.lo, step = 0.0, nice_step(hi)
            self.hi = step * math.ceil(hi / step)
            self.step = step

    def __call__(self, v):
        if self.log:
            f = (math.log10(v) - math.log10(self.lo)) / (math.log10(self.hi) - math.log10(self.lo))
        else:
            f = (v - self.lo) / (self.hi - self.lo)
        return self.x0 + f * (self.x1 - self.x0)

    def ticks(self):
        if self.log:
            return [10.0 ** e for e in range(round(math.log10(self.lo)), round(math.log10(self.hi)) + 1)]
        n = round((self.hi - self.lo) / self.step)
        return [self.lo + i * self.step for i in range(n + 1)]


def nice_step(hi):
    """A round tick step giving four to eight ticks up to `hi`."""
    raw = hi / 5
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if m * mag >= raw:
            return m * mag
    return 10 * mag


def tick_label(v):
    if v >= 1e6 and v.is_integer():
        return f"{v / 1e6:g}M" if v < 1e9 else f"{v / 1e9:g}G"
    if v >= 1e3 and v.is_integer():
        return f"{v / 1e3:g}k"
    return f"{v:g}"


def source_lines(src, width):
    """The panel's source, wrapped: command first, then date, commit, machine."""
    parts = []
    if src.get("command"):
        parts.append(f"Command: {src['command']}")
    meta = [src.get(k) for k in ("recorded", "commit", "machine") if src.get(k)]
    if src.get("commit"):
        meta[meta.index(src["commit"])] = f"commit {src['commit']}"
    if meta:
        parts.append("Recorded " + ", ".join(meta) + ".")
    if src.get("table"):
        parts.append(f"Table: {src['table']}")
    return [line for part in parts for line in wrap(part, width)]


def bars_panel(panel, y, fmt):
    """SVG elements of a bar panel starting at height `y`; returns (elements, new y)."""
    out = []
    bars = [b for g in panel["groups"] for b in g["bars"]]
    label_w = max(len(b["label"]) for b in bars) * CHAR + 16
    text_w = max(len(b.get("text") or fmt(b["value"])) for b in bars) * CHAR + 14
    x0, x1 = 12 + label_w, WIDTH - max(text_w, 60) - 12
    values = [float(b[k]) for b in bars for k in ("value", "low", "high") if b.get(k) is not None]
    if panel.get("reference") is not None:
        values.append(float(panel["reference"]))
    axis = Axis(min(values), max(values), x0, x1, panel.get("scale") == "log")
    top = y
    for g in panel["groups"]:
        if g.get("label"):
            y += FONT + 4
            out.append(f'<text class="group" x="12" y="{y:.1f}">{escape(g["label"])}</text>')
            y += 4
        for b in g["bars"]:
            role = b.get("role", "peer")
            left = axis(axis.lo) if axis.log else axis(0)
            right = axis(float(b["value"]))
            mid = y + BAR / 2
            out.append(f'<text x="{x0 - 8:.1f}" y="{mid + 4:.1f}" text-anchor="end">{escape(b["label"])}</text>')
            if axis.log:
                # A bar's length on a log scale says nothing; a dot on a
                # faint line to the axis does not pretend to.
                out.append(f'<line class="grid" x1="{left:.1f}" y1="{mid:.1f}" x2="{right:.1f}" y2="{mid:.1f}"/>')
                out.append(f'<circle class="{role}" cx="{right:.1f}" cy="{mid:.1f}" r="5"/>')
                right += 5
            else:
                out.append(f'<rect class="{role}" x="{left:.1f}" y="{y:.1f}" width="{max(right - left, 1):.1f}" height="{BAR}"/>')
            end = right
            if b.get("low") is not None and b.get("high") is not None:
                lo, hi = axis(float(b["low"])), axis(float(b["high"]))
                out.append(f'<line class="whisker" x1="{lo:.1f}" y1="{mid:.1f}" x2="{hi:.1f}" y2="{mid:.1f}"/>')
                for x in (lo, hi):
                    out.append(f'<line class="whisker" x1="{x:.1f}" y1="{y + 3:.1f}" x2="{x:.1f}" y2="{y + BAR - 3:.1f}"/>')
                end = max(end, hi)
            text = b.get("text") or fmt(b["value"])
            out.append(f'<text x="{end + 5:.1f}" y="{mid + 4:.1f}">{escape(text)}</text>')
            y += BAR + BAR_GAP
        y += GROUP_GAP - BAR_GAP
    bottom = y
    grid = []
    for t in axis.ticks():
        x = axis(t)
        grid.append(f'<line class="grid" x1="{x:.1f}" y1="{top:.1f}" x2="{x:.1f}" y2="{bottom:.1f}"/>')
        out.append(f'<text class="muted" x="{x:.1f}" y="{bottom + 14:.1f}" text-anchor="middle">{tick_label(t)}</text>')
    out.insert(0, "\n".join(grid))
    out.append(f'<line class="axis" x1="{x0:.1f}" y1="{bottom:.1f}" x2="{x1:.1f}" y2="{bottom:.1f}"/>')
    if panel.get("reference") is not None:
        x = axis(float(panel["reference"]))
        out.append(f'<line class="ref" x1="{x:.1f}" y1="{top:.1f}" x2="{x:.1f}" y2="{bottom:.1f}"/>')
    y = bottom + 30
    out.append(f'<text class="muted" x="{(x0 + x1) / 2:.1f}" y="{y:.1f}" text-anchor="middle">{escape(panel["unit"])}</text>')
    return out, y


def lines_panel(panel, y):
    """SVG elements of a log-log line panel starting at `y`; returns (elements, new y)."""
    out, height = [], 260
    xs = [float(x) for x in panel["x"]["values"]]
    ys = [float(v) for s in panel["series"] for v in s["values"] if v is not None]
    legend_w = max(len(s["name"]) for s in panel["series"]) * CHAR + 40
    x0, x1 = 70, WIDTH - legend_w - 10
    top, bottom = y + 10, y + 10 + height
    ax = Axis(min(xs), max(xs), x0, x1, True)
    ay = Axis(min(ys), max(ys), bottom, top, True)
    for t in ax.ticks():
        x = ax(t)
        out.append(f'<line class="grid" x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{bottom}"/>')
        out.append(f'<text class="muted" x="{x:.1f}" y="{bottom + 14}" text-anchor="middle">{tick_label(t)}</text>')
    for t in ay.ticks():
        v = ay(t)
        out.append(f'<line class="grid" x1="{x0}" y1="{v:.1f}" x2="{x1}" y2="{v:.1f}"/>')
        out.append(f'<text class="muted" x="{x0 - 6}" y="{v + 4:.1f}" text-anchor="end">{tick_label(t)}</text>')
    out.append(f'<line class="axis" x1="{x0}" y1="{bottom}" x2="{x1}" y2="{bottom}"/>')
    out.append(f'<line class="axis" x1="{x0}" y1="{top}" x2="{x0}" y2="{bottom}"/>')
    for i, s in enumerate(panel["series"]):
        cls = f"s{i % 6}"
        points = [(ax(x), ay(float(v))) for x, v in zip(xs, s["values"]) if v is not None]
        path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
        out.append(f'<polyline class="line {cls}" points="{path}"/>')
        for px, py in points:
            out.append(f'<circle class="{cls}" cx="{px:.1f}" cy="{py:.1f}" r="3"/>')
        ly = top + 8 + i * 20
        out.append(f'<line class="line {cls}" x1="{x1 + 16}" y1="{ly}" x2="{x1 + 36}" y2="{ly}"/>')
        out.append(f'<text x="{x1 + 42}" y="{ly + 4}">{escape(s["name"])}</text>')
    y = bottom + 32
    out.append(f'<text class="muted" x="{(x0 + x1) / 2:.1f}" y="{y:.1f}" text-anchor="middle">{escape(panel["x"]["label"])}</text>')
    out.append(f'<text class="muted" x="14" y="{(top + bottom) / 2:.1f}" text-anchor="middle" '
               f'transform="rotate(-90 14 {(top + bottom) / 2:.1f})">{escape(panel["unit"])}</text>')
    return out, y


def render(doc, fmt=number):
    """The whole SVG of a data file (or of a demo system) as a string."""
    body, y = [], 30
    body.append(f'<text class="title" x="12" y="{y}">{escape(doc["title"])}</text>')
    y += 10
    roles, references = set(), []
    for panel in doc["panels"]:
        if panel.get("reference_label") and panel["reference_label"] not in references:
            references.append(panel["reference_label"])
        y += 26
        body.append(f'<text class="panel" x="12" y="{y}">{escape(panel["title"])}</text>')
        y += 8
        if panel["kind"] == "bars":
            roles |= {b.get("role", "peer") for g in panel["groups"] for b in g["bars"]}
            elements, y = bars_panel(panel, y, fmt)
        else:
            elements, y = lines_panel(panel, y)
        body += elements
        for line in source_lines(panel.get("source", {}), int((WIDTH - 24) / (CHAR * 0.92))):
            y += 15
            body.append(f'<text class="muted" x="12" y="{y}">{escape(line)}</text>')
    if roles or references:
        y += 24
        x = 12
        for name in references:
            body.append(f'<line class="ref" x1="{x}" y1="{y - 4}" x2="{x + 16}" y2="{y - 4}"/>')
            body.append(f'<text x="{x + 22}" y="{y}">{escape(name)}</text>')
            x += 44 + len(name) * CHAR
        for role, name in (("spool", "spool"), ("peer", "peer"), ("floor", "floor (not a library)")):
            if role in roles:
                body.append(f'<rect class="{role}" x="{x}" y="{y - 10}" width="12" height="12"/>')
                body.append(f'<text x="{x + 18}" y="{y}">{name}</text>')
                x += 40 + len(name) * CHAR
    height = y + 16
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
            f'viewBox="0 0 {WIDTH} {height}" role="img" aria-label="{escape(doc["title"])}">\n'
            f'<title>{escape(doc["title"])}</title>\n<style>{STYLE}</style>\n'
            f'<rect class="bg" x="0" y="0" width="{WIDTH}" height="{height}" rx="6"/>\n')
    return head + "\n".join(body) + "\n</svg>\n"


def demo_docs(demo, recorded):
    """One chart per system of a `spool-demo --json` run: each peer's figure
    against spool's as the demo's own ratio (above 1: spool is better)."""
    systems = {}
    for row in demo["rows"]:
        systems.setdefault(row["system"], []).append(row)
    for system, rows in systems.items():
        groups = []
        for row in rows:
            spool = row["spool"]["median"]
            bars = [{"label": p["name"], "value": p["spool_advantage"],
                     "role": "floor" if "floor" in p["name"] else "peer",
                     "text": f'{p["spool_advantage"]:.2f}x ({demo_number(p["figure"]["median"])} '
                             f'vs {demo_number(spool)})'}
                    for p in row["peers"]]
            if bars:
                groups.append({"label": f'{row["case"]} (peer vs spool, {row["unit"]})',
                               "bars": bars})
        if not groups:
            continue
        values = [b["value"] for g in groups for b in g["bars"]] + [1.0]
        panel = {"kind": "bars", "title": f"spool beside each peer, {demo['runs']} runs each, medians",
                 "unit": "how many times better spool's median is than the peer's (above 1: spool is better)",
                 "scale": "log" if min(values) > 0 and max(values) / min(values) > 20 else "linear",
                 "reference": 1.0, "reference_label": "spool (1x)", "groups": groups,
                 "source": {"command": "./scripts/demo.sh --json", "recorded": recorded}}
        yield system, {"title": f"spool-demo: {system}", "panels": [panel]}


def slug(name):
    """A file name for a system: "ByteStream + Reassembler" -> "bytestream-reassembler"."""
    return "-".join("".join(c if c.isalnum() else " " for c in name.lower()).split())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", type=Path, help="data files (default: docs/img/data/*.json)")
    ap.add_argument("--check", action="store_true", help="fail if a committed SVG differs")
    ap.add_argument("--demo", type=Path, help="a spool-demo --json output to plot")
    ap.add_argument("--out", type=Path, help="output folder (default: docs/img, or docs/img/demo)")
    ap.add_argument("--recorded", help="with --demo: when, on which commit and machine the run was made")
    args = ap.parse_args()

    if args.demo:
        out = args.out or IMG / "demo"
        out.mkdir(parents=True, exist_ok=True)
        for system, doc in demo_docs(json.loads(args.demo.read_text()), args.recorded):
            path = out / f"{slug(system)}.svg"
            path.write_text(render(doc, demo_number))
            print(path)
        return 0

    stale = []
    for data in args.files or sorted(DATA.glob("*.json")):
        svg = render(json.loads(data.read_text(), parse_float=Decimal))
        path = (args.out or IMG) / f"{data.stem}.svg"
        if args.check:
            if not path.exists() or path.read_text() != svg:
                stale.append(path)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(svg)
        print(path)
    for path in stale:
        print(f"stale: {path} (run scripts/plot-benchmarks.py)", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
