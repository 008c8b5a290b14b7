#!/usr/bin/env python3
"""Validates lbsim's JSON documents against docs/reference/lbsim-result.schema.json.
Usage: validate.py SCHEMA FILE... (exit 1, with the first errors of each
file that does not validate).

A --detail run at 1024 ranks writes millions of transfers, which the
schema checks item by item, and jsonschema takes minutes over them: an
array longer than LONG is validated on its first and last LONG / 2 items
(every member and every other array whole), which a writer that goes
wrong for some items only would still have to get past at both ends."""
import json
import sys

import jsonschema


def validator(schema_path):
    with open(schema_path) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


LONG = 200


def trimmed(node):
    """The document with every array longer than LONG cut to its two ends."""
    if isinstance(node, list):
        if len(node) > LONG:
            node = node[:LONG // 2] + node[-(LONG // 2):]
        return [trimmed(x) for x in node]
    if isinstance(node, dict):
        return {k: trimmed(x) for k, x in node.items()}
    return node


def deepest(error):
    """Of a oneOf's failure, the reason deepest in the document (the branch
    that matched best), rather than the whole document quoted."""
    while error.context:
        error = max(error.context, key=lambda e: len(e.absolute_path))
    return error


def errors(v, doc):
    doc = trimmed(doc)
    found = [deepest(e) for e in v.iter_errors(doc)]
    return [f"{'/'.join(str(p) for p in e.absolute_path) or '(top)'}: {e.message[:300]}"
            for e in sorted(found, key=lambda e: list(e.absolute_path))[:5]]


def main():
    v = validator(sys.argv[1])
    bad = 0
    for path in sys.argv[2:]:
        with open(path) as f:
            doc = json.load(f)
        errs = errors(v, doc)
        if errs:
            bad += 1
            print(f"{path}: does not follow the schema")
            for e in errs:
                print(f"  {e}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
