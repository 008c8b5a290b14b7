"""TAP for the Python tests: ok() prints a numbered result line (a failed
one followed by the last lines of its detail as comments), done() the plan
and the exit status."""

_count = 0
_failed = 0


def ok(cond, what, detail=""):
    global _count, _failed
    _count += 1
    print(f"{'ok' if cond else 'not ok'} {_count} {what}")
    if not cond:
        _failed += 1
        for line in str(detail).splitlines()[-30:]:
            print(f"# {line}")
    return cond


def done():
    print(f"1..{_count}")
    return 1 if _failed else 0
