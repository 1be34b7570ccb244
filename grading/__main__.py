"""``python -m grading``: the instructor's command line. See docs/instructor-guide.md.

    python -m grading release [ASSIGNMENT ...] [--check]
    python -m grading strip [PATH ...] [--check]
    python -m grading collect INBOX [--assignment A]
    python -m grading autograde [ASSIGNMENT ...] [--student S ...] [--jobs N] [--timeout S] [--force]
    python -m grading feedback [ASSIGNMENT ...] [--student S ...] [--no-progress]
    python -m grading export [--out grades.csv]
    python -m grading sandbox
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import pipeline


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m grading", description=__doc__.split("\n")[0])
    p.add_argument("--root", default=".", help="course root (holds nbgrader_config.py); "
                   "default: the current directory")
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("release", help="generate_assignment: solutions/<a>/ -> course/<a>/")
    r.add_argument("assignments", nargs="*", help="default: every folder of solutions/")
    r.add_argument("--check", action="store_true",
                   help="change nothing; fail if course/ differs from a fresh release")

    s = sub.add_parser("strip", help="remove outputs from notebooks")
    s.add_argument("paths", nargs="*", help="files or folders; default: solutions/ and course/")
    s.add_argument("--check", action="store_true", help="change nothing; fail if any has outputs")

    c = sub.add_parser("collect", help="copy INBOX/<student>/**/*.ipynb into submitted/")
    c.add_argument("inbox", type=Path)
    c.add_argument("--assignment", help="only notebooks of this assignment")

    a = sub.add_parser("autograde", help="execute and score submissions, in parallel")
    a.add_argument("assignments", nargs="*", help="default: every assignment")
    a.add_argument("--student", action="append", dest="students", help="only these students")
    a.add_argument("--jobs", "-j", type=int, default=None, help="parallel students (default: "
                   "the number of cores)")
    a.add_argument("--timeout", type=float, default=None,
                   help="seconds per cell (default: nbgrader_config.py's Execute.timeout)")
    a.add_argument("--force", action="store_true", help="grade again what is already graded")
    a.add_argument("--sandbox", choices=["auto", "strict", "off"], default=None,
                   help="isolation of students' code (default auto; off is for debugging)")
    a.add_argument("--canaries", type=int, default=None, help="canary tests per notebook "
                   "(default: nbgrader_config.py's SafeExecute.canaries, 2; 0 turns them off, "
                   "for debugging only)")
    a.add_argument("--no-progress", action="store_true", help="no progress bar")

    f = sub.add_parser("feedback", help="generate_feedback: HTML in feedback/")
    f.add_argument("assignments", nargs="*")
    f.add_argument("--student", action="append", dest="students", help="only these students")
    f.add_argument("--no-progress", action="store_true", help="no progress bar")

    sub.add_parser("sandbox", help="what the autograde sandbox guarantees on this machine, "
                   "for this user")

    e = sub.add_parser("export", help="grades as CSV")
    e.add_argument("--out", type=Path, default=Path("grades.csv"))
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    course = pipeline.Course(args.root)
    if args.command == "release":
        if args.check:
            diffs = pipeline.release_differences(course, args.assignments or None)
            for d in diffs:
                print(d)
            print("course/ is up to date" if not diffs else
                  f"{len(diffs)} difference(s): run `python -m grading release`")
            return 1 if diffs else 0
        return 1 if pipeline.release(course, args.assignments or None) else 0
    if args.command == "strip":
        paths = args.paths or [course.source, course.release]
        changed = pipeline.strip([Path(p) for p in paths], check=args.check)
        if args.check and changed:
            print(f"{len(changed)} notebook(s) not stripped (outputs, or not the metadata JupyterLab "
                  "keeps): run `python -m grading strip`")
            return 1
        return 0
    if args.command == "collect":
        pipeline.collect(course, args.inbox, args.assignment)
        return 0
    if args.command == "sandbox":
        return _print_guarantees(args.root, verbose=True)
    if args.command == "autograde":
        if args.sandbox != "off":
            _print_guarantees(args.root, verbose=False)
        subs = pipeline.autograde(course, args.assignments or None, args.students, args.jobs,
                                  args.timeout, args.force, args.sandbox,
                                  progress=not args.no_progress, canaries=args.canaries)
        failed = [s for s in subs if s.status in ("invalid", "error")]
        tampered = [s.student for s in subs if s.status == "tampered"]
        if tampered:
            print(f"TAMPERED: {', '.join(sorted(tampered))}: a canary test passed in the "
                  "kernel (scored zero; evidence in report.json)", file=sys.stderr)
        if failed:
            print(f"{len(failed)} submission(s) could not be graded normally (see above); "
                  "all others are graded", file=sys.stderr)
        return 1 if failed else 0
    if args.command == "feedback":
        return 1 if pipeline.feedback(course, args.assignments or None,
                                         progress=not args.no_progress,
                                         students=args.students) else 0
    if args.command == "export":
        pipeline.export(course, args.out if args.out.is_absolute() else course.root / args.out)
        return 0
    return 2


def _print_guarantees(root: str, verbose: bool) -> int:
    """What the sandbox guarantees here (grading/sandbox.py); 1 if students' code would not be
    isolated."""
    from . import sandbox

    summary, strong, weak = sandbox.guarantees(pipeline.sandbox_limits(pipeline.Course(root)))
    print(f"sandbox: {summary}")
    for line in strong if verbose else []:
        print(f"  + {line}")
    for line in weak:
        print(f"  WEAKER HERE: {line}")
    return 1 if summary.startswith("NOT") else 0


if __name__ == "__main__":
    sys.exit(main())
