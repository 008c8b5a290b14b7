#!/usr/bin/env python3
"""Every relative Markdown link of README.md and docs/ names a file or
folder that exists, and a heading of that file where it has an anchor
(#heading, as a forge makes anchors from headings). TAP on stdout.
Usage: check-doc-links.py SOURCE_ROOT"""

import os
import re
import sys

LINK = re.compile(r"!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(([^()\s]+)\)")


def prose(text):
    """The text outside code blocks and code spans, lines kept in place."""
    out, fenced = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            out.append("")
        elif fenced or line.startswith("    ") or line.startswith("\t"):
            out.append("")
        else:
            out.append(line)
    return re.sub(r"`[^`\n]*`", "code", "\n".join(out))


def slug(heading):
    """The anchor a forge gives a heading: lower case, punctuation dropped,
    spaces made dashes."""
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    found, seen = set(), {}
    fenced = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.lstrip().startswith("```"):
                fenced = not fenced
            m = re.match(r"(#{1,6}) (.*?)#*\s*$", line)
            if m and not fenced:
                base = slug(m.group(2))
                n = seen.get(base, 0)
                seen[base] = n + 1
                found.add(base if n == 0 else f"{base}-{n}")
    return found


def main():
    root = os.path.realpath(sys.argv[1])
    pages = [os.path.join(root, "README.md")]
    for folder, _, files in os.walk(os.path.join(root, "docs")):
        pages += [os.path.join(folder, f) for f in sorted(files) if f.endswith(".md")]
    cache = {}
    tests = 0
    broken = 0
    for page in sorted(pages):
        name = os.path.relpath(page, root)
        with open(page, encoding="utf-8") as f:
            text = prose(f.read())
        bad = []
        links = 0
        for m in LINK.finditer(text):
            target = m.group(2)
            if re.match(r"[a-z][a-z0-9+.-]*:", target):
                continue  # http:, https:, mailto:
            links += 1
            line = text.count("\n", 0, m.start()) + 1
            file_part, _, anchor = target.partition("#")
            path = os.path.normpath(os.path.join(os.path.dirname(page), file_part)) if file_part else page
            if not os.path.realpath(path).startswith(root + os.sep) and os.path.realpath(path) != root:
                bad.append(f"{name}:{line}: {target}: outside the source tree")
            elif not os.path.exists(path):
                bad.append(f"{name}:{line}: {target}: no such file")
            elif anchor:
                if not path.endswith(".md") or os.path.isdir(path):
                    bad.append(f"{name}:{line}: {target}: an anchor into a file that is not Markdown")
                else:
                    if path not in cache:
                        cache[path] = anchors(path)
                    if anchor not in cache[path]:
                        bad.append(f"{name}:{line}: {target}: no heading #{anchor}")
        tests += 1
        broken += len(bad)
        if bad:
            print(f"not ok {tests} - {name}: {len(bad)} of {links} links broken")
            for b in bad:
                print(f"# {b}")
        else:
            print(f"ok {tests} - {name}: {links} links")
    print(f"1..{tests}")
    if len(pages) < 2:
        print("# README.md and docs/ not found")
        return 1
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
