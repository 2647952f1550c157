#!/usr/bin/env python3
# SPDX-License-Identifier: AGPL-3.0-or-later
"""The German catalogue is complete: lupdate over the app's sources (a copy of the .ts, never the file itself) finds
no new, unfinished or vanished message, and every translation keeps the placeholders of its source (%1, %L1; %n in
plural forms) and has both German plural forms. Run by CTest as translations_complete; to fix a failure, run
`cmake --build build --target marquee_ui_lupdate` and translate what it added in resources/translations/marquee_de.ts."""
import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

PLACEHOLDER = re.compile(r"%L?\d+")


def placeholders(text):
    return sorted(set(PLACEHOLDER.findall(text or "")))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lupdate", required=True)
    parser.add_argument("--ts", required=True)
    parser.add_argument("sources", nargs="+", help="folders and files lupdate scans")
    args = parser.parse_args()

    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / Path(args.ts).name
        shutil.copyfile(args.ts, copy)
        # Without -no-obsolete: a message whose source is gone stays, marked vanished, and is reported.
        run = subprocess.run([args.lupdate, "-locations", "none", *args.sources, "-ts", str(copy)],
                             capture_output=True, text=True)
        if run.returncode != 0:
            print(run.stdout, run.stderr, sep="\n")
            print("lupdate failed")
            return 1
        root = ET.parse(copy).getroot()

    count = 0
    for context in root.iter("context"):
        name = context.findtext("name")
        for message in context.iter("message"):
            count += 1
            source = message.findtext("source") or ""
            translation = message.find("translation")
            where = f"{name}: {source!r}"
            kind = translation.get("type") if translation is not None else "missing"
            if kind in ("unfinished", "missing"):
                problems.append(f"not translated: {where}")
                continue
            if kind in ("vanished", "obsolete"):
                problems.append(f"no longer in the sources (remove it): {where}")
                continue
            if message.get("numerus") == "yes":
                forms = [f.text or "" for f in translation.iter("numerusform")]
                if len(forms) != 2 or not all(f.strip() for f in forms):
                    problems.append(f"needs both German plural forms: {where}")
                    continue
                if "%n" in source and "%n" not in forms[1]:
                    problems.append(f"the plural form lacks %n: {where}")
            else:
                forms = [translation.text or ""]
                if not forms[0].strip():
                    problems.append(f"empty translation: {where}")
                    continue
            for form in forms:
                if placeholders(form) != placeholders(source):
                    problems.append(f"placeholders {placeholders(form)} instead of {placeholders(source)}: {where} -> {form!r}")

    for problem in problems:
        print(problem)
    print(f"{count} messages, {len(problems)} problems")
    return 1 if problems or count == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
