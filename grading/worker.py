"""``python -m grading.worker ROOT CONFIG_JSON``: an autograde worker, one submission at a time.

``grading.pipeline.autograde`` starts one worker per core and feeds each, on standard input, one
JSON line per job ``{"assignment": ..., "student": ..., "notebook": "*"}``; the worker runs
nbgrader's Autograde on it (in-process, as formgrader does: nbgrader is imported once, not once
per student) and answers one JSON line ``{"success": bool, "log": str}`` on standard output.
Everything else the worker or its kernels print goes to standard error.

Every use of the gradebook takes :mod:`grading.gradebook_lock`, so workers can share it. A
worker that hangs or dies is killed and replaced by the parent; the kernels that ran students'
code are separate processes (see grading.execute).
"""

from __future__ import annotations

import json
import os
import sys


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    root, overrides = argv[0], json.loads(argv[1]) if len(argv) > 1 else {}
    # Replies go to the real stdout; anything else printed (nbgrader, kernels) to stderr.
    replies = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    os.chdir(root)
    sys.path.insert(0, root)

    from nbgrader.converters import Autograde
    from nbgrader.utils import capture_log, temp_attrs

    from grading import gradebook_lock, pipeline

    gradebook_lock.install()
    api = pipeline.nbgrader_api(root, overrides)
    for line in sys.stdin:
        job = json.loads(line)
        with temp_attrs(api.coursedir, assignment_id=job["assignment"],
                        student_id=job["student"], notebook_id=job.get("notebook") or "*"):
            app = Autograde(coursedir=api.coursedir, parent=api)
            app.force = True
            app.create_student = True
            result = capture_log(app)
        log = (result.get("log") or "") + (result.get("error") or "")
        replies.write(json.dumps({"success": bool(result["success"]), "log": log}) + "\n")


if __name__ == "__main__":
    main()
