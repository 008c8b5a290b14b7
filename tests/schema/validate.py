#!/usr/bin/env python3
"""Validates lbsim's JSON documents against docs/reference/lbsim-result.schema.json.
Usage: validate.py SCHEMA FILE... (exit 1, with the first errors of each
file that does not validate)."""
import json
import sys

import jsonschema


def validator(schema_path):
    with open(schema_path) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def errors(v, doc):
    return [f"{'/'.join(str(p) for p in e.absolute_path) or '(top)'}: {e.message[:300]}"
            for e in sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))[:5]]


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
