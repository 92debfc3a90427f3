#!/usr/bin/env python3
"""Prints the README's configuration table from Sources/PassServer/Configuration/Configuration+Settings.swift."""
import pathlib
import re

source = pathlib.Path(__file__).resolve().parent.parent / "Sources/PassServer/Configuration/Configuration+Settings.swift"
text = source.read_text()
rows = re.findall(r'(?:Setting|\.[a-zA-Z]+)\(\s*"([A-Z_0-9]+)",\s*"((?:[^"\\]|\\.)*)",\s*default:\s*(nil|"((?:[^"\\]|\\.)*)")', text)
print("| Variable | Flag | Default | Meaning |")
print("|---|---|---|---|")
for key, summary, default, value in rows:
    flag = "--" + key.lower().replace("_", "-")
    shown = "—" if default == "nil" else f"`{value}`"
    print(f"| `{key}` | `{flag}` | {shown} | {summary} |")
