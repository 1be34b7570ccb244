"""``python -m grading.worker ROOT CONFIG_JSON``: an autograde worker, one submission at a time.

``grading.pipeline.autograde`` starts one worker per core and feeds each, on standard input, one
JSON line per job ``{"assignment": ..., "student": ..., "notebook": "*"}``; the worker runs
nbgrader's Autograde on it (in-process, as formgrader does: nbgrader is imported once, not once
per student) and answers one JSON line ``{"success": bool, "log": str}`` on standard output. A job
``{"verify": path}`` instead runs the canary candidates of a solution notebook against it
(grading.tamper.verify) and answers ``{"success", "log", "verified"}``.
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
        if "verify" in job:  # canaries of one notebook, against the instructor's solution
            replies.write(json.dumps(verify_canaries(api, job["verify"])) + "\n")
            continue
        with temp_attrs(api.coursedir, assignment_id=job["assignment"],
                        student_id=job["student"], notebook_id=job.get("notebook") or "*"):
            app = Autograde(coursedir=api.coursedir, parent=api)
            app.force = True
            app.create_student = True
            result = capture_log(app)
        log = (result.get("log") or "") + (result.get("error") or "")
        replies.write(json.dumps({"success": bool(result["success"]), "log": log}) + "\n")


def verify_canaries(api, path: str) -> dict:
    """{"success", "log", "verified"}: grading.tamper.verify on the solution notebook `path`,
    each run in the sandbox like a submission (no canaries of its own)."""
    import logging

    import nbformat

    from grading import tamper
    from grading.execute import SafeExecute

    stream = logging.StreamHandler(sys.stderr)

    def run(nb):
        ex = SafeExecute(config=api.config, canaries=0)
        ex.log.addHandler(stream)
        out, _ = ex.preprocess(nb, {"metadata": {"path": os.path.dirname(path)},
                                    "unique_key": os.path.basename(path)})
        return out

    try:
        nb = nbformat.read(path, as_version=4)
        return {"success": True, "log": "", "verified": tamper.verify(nb, run)}
    except Exception as e:  # reported by the pipeline; grading goes on without these canaries
        return {"success": False, "log": f"{type(e).__name__}: {e}", "verified": {}}


if __name__ == "__main__":
    main()
