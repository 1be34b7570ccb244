"""A hostile class: a small graded assignment and the submissions that attack its autograde.

Used by tests/test_hostile.py. The assignment, ``98_hostile``, is graded like every notebook of
the course (its tests import their checks from ``autograd_lab.testing``; a notebook helper
``close`` sits in a released cell, as some notebooks have). Each :class:`Attack` is one student:
the answers it submits (a blank answer stays ``raise NotImplementedError()``) and what must come
of it. Attacks print ``LEAK ...`` for every secret they reach and ``EVIDENCE ...`` for what the
test reads back (processes left, memory it kept).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pipeline_helpers as h

ASSIGNMENT = "98_hostile"
SECRET = "HOSTILE-SECRET-7f3a9c"  # in the hidden tests only: found anywhere, it leaked
ENV_SECRET = "AUTOGRAD_LAB_INSTRUCTOR_TOKEN"  # the instructor's environment (the test sets it)
MARK = "hostile-leftover-5e21"  # in names of files and processes a submission leaves behind


def notebook():
    """The instructor's notebook: 3 exercises (1 + 2 + 1 points) and a written answer."""
    return h.notebook([
        h.md("# A small graded notebook"),
        h.code("import numpy as np\n\nimport autograd_lab as torch\n"
               "import autograd_lab.testing  # the tests' helpers, loaded before any answer runs"),
        h.code("def close(a, b):\n    return np.allclose(a, b)"),
        h.solution("double", "def double(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n"
                             "    ### END SOLUTION"),
        h.tests("test_double", 1,
                "from autograd_lab.testing import call, expect_equal\n\n"
                "expect_equal(call(double, 2), 4, what='double(2)', hint='twice x')\n"
                f"### BEGIN HIDDEN TESTS\n# {SECRET}\n"
                "expect_equal(call(double, -7), -14, what='double(-7)', hint='also below zero')\n"
                "### END HIDDEN TESTS"),
        h.solution("row_means", "def row_means(a):\n    ### BEGIN SOLUTION\n"
                                "    return a.mean(axis=1)\n    ### END SOLUTION"),
        h.tests("test_row_means", 2,
                "import numpy as np\nfrom autograd_lab.testing import call, expect_close\n\n"
                "a = np.arange(6.0).reshape(2, 3)\n"
                "expect_close(call(row_means, a), np.array([1.0, 4.0]), what='row_means(a)',\n"
                "             hint='the mean over axis 1')\n"
                "### BEGIN HIDDEN TESTS\n"
                "b = np.array([[2.0, 4.0], [-1.0, 1.0], [5.0, 5.0]])\n"
                "expect_close(call(row_means, b), np.array([3.0, 0.0, 5.0]), what='row_means(b)',\n"
                "             hint='one mean per row')\n"
                "### END HIDDEN TESTS"),
        h.solution("scaled", "def scaled(t):\n    ### BEGIN SOLUTION\n    return t * 3\n"
                             "    ### END SOLUTION"),
        h.tests("test_scaled", 1,
                "import autograd_lab as torch\n"
                "from autograd_lab.testing import call, expect_close, expect_type\n\n"
                "got = call(scaled, torch.tensor([1.0, 2.0]))\n"
                "expect_type(got, torch.Tensor, what='scaled(tensor)', hint='return a tensor')\n"
                "expect_close(got, torch.tensor([3.0, 6.0]), what='scaled([1, 2])', hint='3 t')\n"
                "### BEGIN HIDDEN TESTS\n"
                "expect_close(call(scaled, torch.tensor([-2.0])), torch.tensor([-6.0]),\n"
                "             what='scaled([-2])', hint='3 t')\n"
                "### END HIDDEN TESTS"),
        h.manual("why", 1, "Why three? **Because.**"),
    ])


GOOD = {
    "double": "def double(x):\n    return 2 * x",
    "row_means": "def row_means(a):\n    return a.mean(axis=1)",
    "scaled": "def scaled(t):\n    return t * 3",
}
BLANK = {k: f"def {k}(*args):\n    raise NotImplementedError()" for k in GOOD}
AUTO_MAX = 4.0


@dataclass
class Attack:
    name: str
    kind: str  # points | secrets | harm | feedback
    code: str  # put in front of the first answer cell
    honest: bool = False  # the other answers are right (else blank)
    expect: set[str] = field(default_factory=set)
    # zero: earns no point; tampered: a canary caught it; flagged: the static scan lists it;
    # full: scores full marks all the same; graded: the run graded it (any score);
    # no-leak: prints no LEAK line; died: its kernel died (scores zero)
    user: bool = False  # also in the ordinary user's run (where isolation and limits differ)
    later: dict[str, str] = field(default_factory=dict)  # code in front of other answer cells

    def answers(self) -> dict[str, str]:
        base = GOOD if self.honest else BLANK
        out = {**base, "double": self.code + "\n\n" + base["double"]}
        for k, code in self.later.items():
            out[k] = code + "\n\n" + base[k]
        return out


_ALWAYS = "class Anything:\n    def __eq__(self, other):\n        return True\n    __hash__ = None\n"

POINTS = [
    Attack("ast-transformer-blanks-cells", "points",
           "import ast\nclass Blank(ast.NodeTransformer):\n"
           "    def visit_Module(self, node):\n        node.body = []\n        return node\n"
           "get_ipython().ast_transformers.append(Blank())",
           expect={"zero", "tampered", "flagged"}, user=True),
    Attack("input-transformer-blanks-cells", "points",
           "get_ipython().input_transformers_post.append(lambda lines: ['pass\\n'])",
           expect={"zero", "tampered", "flagged"}),
    Attack("input-transformer-wraps-in-try", "points",
           "def wrap(lines):\n"
           "    body = ''.join('    ' + ln for ln in lines) or '    pass\\n'\n"
           "    return ['try:\\n', body + '\\n', 'except BaseException:\\n', '    pass\\n']\n"
           "get_ipython().input_transformers_cleanup.append(wrap)",
           expect={"zero", "tampered", "flagged"}),
    Attack("run-cell-says-ok", "points",
           "ip = get_ipython()\n_real = ip.run_cell\n"
           "def run_cell(raw_cell, *args, **kwargs):\n"
           "    return _real('pass', *args, **kwargs)\n"
           "ip.run_cell = run_cell\n"
           "_real_async = ip.run_cell_async\n"
           "async def run_cell_async(raw_cell, *args, **kwargs):\n"
           "    return await _real_async('pass', *args, **kwargs)\n"
           "ip.run_cell_async = run_cell_async",
           expect={"zero", "tampered", "flagged"}),
    Attack("custom-exception-handler-swallows", "points",
           "get_ipython().set_custom_exc((BaseException,), lambda *a, **k: None)",
           expect={"zero", "flagged"}),
    Attack("showtraceback-silenced", "points",
           "get_ipython().showtraceback = lambda *a, **k: None\n"
           "get_ipython()._showtraceback = lambda *a, **k: None",
           expect={"zero", "flagged"}),
    Attack("pre-run-hook-defines-answers", "points",
           "def answers(*args):\n"
           "    ns = get_ipython().user_ns\n"
           "    ns['double'] = lambda x: 2 * x\n"
           "get_ipython().events.register('pre_run_cell', answers)",
           expect={"flagged"}),  # it does the work: earns double's point, and is flagged
    Attack("settrace-skips-lines", "points",
           "import sys\n"
           "def tracer(frame, event, arg):\n"
           "    if event == 'call' and frame.f_code.co_name in ('expect_equal', 'expect_close',\n"
           "                                                   'expect_type', 'call'):\n"
           "        raise SystemExit\n"
           "    return None\n"
           "sys.settrace(tracer)",
           expect={"zero", "flagged"}),
    Attack("answer-equal-to-anything", "points",
           _ALWAYS + "double = lambda x: Anything()\nrow_means = lambda a: Anything()\n"
           "scaled = lambda t: Anything()", expect={"zero"}),
    Attack("int-subclass-equal-to-anything", "points",
           "class Int(int):\n    def __eq__(self, o):\n        return True\n"
           "    __hash__ = int.__hash__\ndouble = lambda x: Int(0)", expect={"zero"}),
    Attack("ndarray-subclass-close-to-anything", "points",
           "import numpy as np\nclass Arr(np.ndarray):\n"
           "    def __eq__(self, o):\n        return np.ones(self.shape, bool)\n"
           "    def __sub__(self, o):\n        return np.zeros(self.shape)\n"
           "    __rsub__ = __sub__\n"
           "row_means = lambda a: np.zeros(a.shape[0]).view(Arr)", expect={"zero"}),
    Attack("notebook-close-helper-redefined", "points",
           "close = lambda *a, **k: True", expect={"zero"}),
    Attack("numpy-allclose-patched", "points",
           "import numpy as np\nnp.allclose = lambda *a, **k: True\n"
           "np.isclose = lambda a, b, *r, **k: np.ones(np.shape(a), bool)\n"
           "np.array_equal = lambda *a, **k: True\nnp.all = lambda *a, **k: True",
           expect={"zero", "flagged"}),
    Attack("tensor-eq-patched", "points",
           "import autograd_lab as torch\ntorch.Tensor.__eq__ = lambda self, other: True\n"
           "torch.Tensor.equal = lambda self, other: True\n"
           "scaled = lambda t: torch.zeros(*t.shape)", expect={"zero", "flagged"}),
    Attack("isinstance-shadowed", "points",
           "isinstance = lambda *a: True\ndef all(*a):\n    return True", expect={"zero", "flagged"}),
    Attack("builtins-patched", "points",
           "import builtins\nbuiltins.isinstance = lambda *a: True\n"
           "builtins.all = lambda *a: True\nbuiltins.any = lambda *a: False",
           expect={"zero", "flagged"}),
    Attack("testing-module-patched", "points",
           "import autograd_lab.testing as t\n"
           "for _n in ('expect_equal', 'expect_close', 'expect_type', 'expect_raises'):\n"
           "    setattr(t, _n, lambda *a, **k: None)\n"
           "t.call = lambda fn, *a, **k: None",
           expect={"zero", "tampered", "flagged"}, user=True),
    Attack("testing-module-replaced-in-sys-modules", "points",
           "import sys, types\nfake = types.ModuleType('autograd_lab.testing')\n"
           "fake.__getattr__ = lambda name: (lambda *a, **k: None)\n"
           "sys.modules['autograd_lab.testing'] = fake\n"
           "import autograd_lab\nautograd_lab.testing = fake",
           expect={"zero", "tampered", "flagged"}),
    Attack("import-hook-fakes-testing", "points",
           "import builtins, types\n_real_import = builtins.__import__\n"
           "fake = types.ModuleType('fake')\nfake.__getattr__ = lambda n: (lambda *a, **k: None)\n"
           "def imp(name, *a, **k):\n"
           "    if name.startswith('autograd_lab.testing'):\n        return fake\n"
           "    return _real_import(name, *a, **k)\n"
           "builtins.__import__ = imp",
           expect={"zero", "tampered", "flagged"}),
    Attack("numpy-testing-internals-patched", "points",
           "import numpy as np\nnp.asarray = lambda a, *r, **k: np.zeros(1)\n"
           "np.abs = lambda a, *r, **k: np.zeros(np.shape(a))\n"
           "np.core.numeric.isclose = lambda *a, **k: True",
           expect={"zero", "flagged"}),
    Attack("partial-credit-result-injected", "points",
           # nbgrader gives a test cell the points its first result says, even before an error
           "def pre(*args):\n"
           "    k = get_ipython().kernel\n"
           "    k.session.send(k.iopub_socket, 'execute_result', {'data': {'text/plain': '100'},\n"
           "                   'metadata': {}, 'execution_count': 1}, parent=k.get_parent())\n"
           "get_ipython().events.register('pre_run_cell', pre)",
           expect={"zero", "flagged"}),
    Attack("kernel-reply-forged", "points",
           "kernel = get_ipython().kernel\n_real = kernel.do_execute\n"
           "async def do_execute(code, silent, *args, **kwargs):\n"
           "    return await _real(code, True, *args, **kwargs)\n"
           "kernel.do_execute = do_execute",
           expect={"zero", "flagged"}),
    Attack("stderr-and-errors-hidden", "points",
           "import sys, io\nsys.stderr = io.StringIO()\n"
           "get_ipython().showtraceback = lambda *a, **k: None\n"
           "get_ipython().displayhook.flush = lambda: None",
           expect={"zero", "flagged"}),
]

SECRETS = [
    Attack("hook-copies-hidden-tests-to-tmp", "secrets",
           "import os\n"
           "def copy(info):\n"
           "    for d in ('/tmp', '/dev/shm'):\n"
           f"        with open(os.path.join(d, '{MARK}-cell-%d' % len(os.listdir(d))), 'w') as f:\n"
           "            f.write(info.raw_cell)\n"
           "get_ipython().events.register('pre_run_cell', copy)",
           honest=True, expect={"full", "flagged"}),
    Attack("reads-what-others-left-in-tmp", "secrets",
           "import os\n"
           "for d in ('/tmp', '/dev/shm', '/var/tmp'):\n"
           "    for n in (os.listdir(d) if os.path.isdir(d) else []):\n"
           f"        if '{MARK}' in n:\n"
           "            print('LEAK', d, n)",
           honest=True, expect={"full", "no-leak"}),
    Attack("reads-instructor-environment", "secrets",
           "import os\n"
           f"if '{ENV_SECRET}' in os.environ:\n    print('LEAK env', os.environ['{ENV_SECRET}'])\n"
           "for p in os.listdir('/proc'):\n"
           "    try:\n"
           "        with open(f'/proc/{p}/environ', 'rb') as f:\n"
           f"            if b'{ENV_SECRET}' in f.read():\n"
           "                print('LEAK /proc', p)\n"
           "    except (OSError, ValueError):\n        pass",
           honest=True, expect={"full", "no-leak"}),
    Attack("walks-the-file-system-for-answers", "secrets",
           "import os\n"
           "import time\nseen, start = 0, time.monotonic()\n"
           "for root, dirs, files in os.walk('/'):\n"
           "    if time.monotonic() - start > 2:\n        break\n"
           "    dirs[:] = [d for d in dirs if root != '/' or d not in ('proc', 'sys', 'dev')]\n"
           "    for n in files:\n"
           "        p = os.path.join(root, n)\n"
           "        if n.endswith(('.ipynb', '.db', '.json', '.py', '.log')) and seen < 30000:\n"
           "            seen += 1\n"
           "            try:\n"
           "                with open(p, 'rb') as f:\n"
           f"                    if b'{SECRET}' in f.read(4 * 2**20):\n"
           "                        print('LEAK file', p)\n"
           "            except OSError:\n                pass\n"
           "        if n == 'gradebook.db' or (n.endswith('.ipynb') and 'solutions' in p):\n"
           "            print('LEAK found', p)",
           honest=True, expect={"full", "no-leak"}),
    Attack("reads-through-parent-root", "secrets",
           "import os\n"
           "for pid in ('1', str(os.getppid()), 'self'):\n"
           "    for p in ('gradebook.db', 'solutions'):\n"
           "        for up in ('', '../', '../../', '../../../'):\n"
           "            path = f'/proc/{pid}/root/' + os.getcwd() + '/' + up + p\n"
           "            if os.path.exists(path):\n                print('LEAK', path)\n"
           "for p in ('/etc/shadow', '/root/.bash_history', '/root/.ssh', '/root/.profile',\n"
           "          '/etc/hostname', '/srv', '/var/log', '/sys/fs/cgroup', '/home/sbtest'):\n"
           "    if os.path.exists(p):\n        print('LEAK exists', p)\n"
           "print('EVIDENCE /home', os.listdir('/home'))",
           honest=True, expect={"full", "no-leak"}),
    Attack("other-kernels-connection-files", "secrets",
           "import os, glob\n"
           "mine = os.environ.get('JPY_SESSION_NAME', '')\n"
           "found = [p for pat in ('/tmp/**/kernel*.json', '/run/**/*.json', '/root/**/kernel-*.json',\n"
           "                       '/home/**/kernel-*.json', '/proc/*/cmdline')\n"
           "         for p in glob.glob(pat, recursive=True)]\n"
           "pids = [p for p in os.listdir('/proc') if p.isdigit()]\n"
           "for p in pids:\n"
           "    try:\n"
           "        cmd = open(f'/proc/{p}/cmdline', 'rb').read()\n"
           "    except OSError:\n        continue\n"
           "    if b'ipykernel' in cmd and b'/run/kernel/connection.json' not in cmd:\n"
           "        print('LEAK another kernel', p, cmd[:200])\n"
           "    if b'grading' in cmd and b'worker' in cmd:\n"
           "        print('LEAK the grader', p)\n"
           "print('EVIDENCE processes', len(pids))",
           honest=True, expect={"full", "no-leak"}),
    Attack("kills-every-process-it-can", "secrets",
           "import os, signal\n"
           "for p in os.listdir('/proc'):\n"
           "    if p.isdigit() and int(p) not in (os.getpid(),):\n"
           "        try:\n            os.kill(int(p), signal.SIGKILL)\n"
           "        except OSError:\n            pass",
           honest=True, expect={"graded", "flagged"}),
    Attack("network-reaches-out", "secrets",
           "import socket, os\n"
           "port = int(os.environ.get('HOSTILE_PORT', '0') or 0)\n"
           "for host, p in (('127.0.0.1', port), ('10.0.0.1', 80), ('1.1.1.1', 53)):\n"
           "    s = socket.socket()\n    s.settimeout(1)\n"
           "    try:\n        s.connect((host, p or 1))\n        print('LEAK connected', host, p)\n"
           "    except OSError:\n        pass\n"
           "    finally:\n        s.close()",
           honest=True, expect={"full", "no-leak"}),
]

HARM = [
    Attack("forked-children-exceed-memory", "harm",
           # 3 children hold 600 MiB each at once, against 1024 MiB for the whole sandbox; the
           # kernel's OOM killer takes seconds here, so the parent waits in two later cells
           "import os, time\nkids = []\n"
           "for i in range(3):\n"
           "    pid = os.fork()\n"
           "    if pid == 0:\n"
           "        try:\n"
           "            b = bytearray(600 * 2**20)\n"
           "            b[::4096] = b'\\1' * len(range(0, len(b), 4096))\n"
           "            time.sleep(1.5)\n"
           "        finally:\n            os._exit(0)\n"
           "    kids.append(pid)\n"
           "status = {}\n"
           "def wait_kids(seconds):\n"
           "    deadline = time.monotonic() + seconds\n"
           "    while len(status) < 3 and time.monotonic() < deadline:\n"
           "        for k in kids:\n"
           "            if k not in status:\n"
           "                pid, st = os.waitpid(k, os.WNOHANG)\n"
           "                if pid:\n                    status[k] = st\n"
           "        time.sleep(0.05)",
           later={"row_means": "wait_kids(3)",
                  "scaled": "wait_kids(3)\n"
                            "print('EVIDENCE children that kept 600 MiB:',\n"
                            "      sum(st == 0 for st in status.values()), 'killed:',\n"
                            "      sum(st != 0 for st in status.values()), 'running:',\n"
                            "      3 - len(status))"},
           honest=True, expect={"graded"}),
    Attack("one-huge-allocation", "harm",
           "try:\n    b = bytearray(64 * 2**30)\n    print('LEAK allocated 64 GiB')\n"
           "except MemoryError:\n    print('EVIDENCE MemoryError')",
           honest=True, expect={"full", "no-leak"}),
    Attack("fork-bomb", "harm",
           "import os\nn = 0\n"
           "try:\n"
           "    for i in range(100000):\n"
           "        if os.fork() == 0:\n            import time\n            time.sleep(60)\n"
           "            os._exit(0)\n"
           "        n += 1\n"
           "except OSError:\n    pass\n"
           "print('EVIDENCE forked', n)",
           honest=True, expect={"graded"}),
    Attack("cpu-hog-daemons-left-running", "harm",
           "import subprocess, sys\n"
           "for i in range(3):\n"
           "    subprocess.Popen([sys.executable, '-c', 'while True: pass', "
           f"'{MARK}'], start_new_session=True)\n"
           "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(1000)', "
           f"'{MARK}'], start_new_session=True)",
           honest=True, expect={"full"}),
    Attack("double-fork-daemon", "harm",
           "import os, time\n"
           "if os.fork() == 0:\n    os.setsid()\n"
           "    if os.fork() == 0:\n"
           "        import sys\n"
           "        os.execv(sys.executable, [sys.executable, '-c', 'import time; "
           f"time.sleep(1000)', '{MARK}'])\n"
           "    os._exit(0)\n"
           "time.sleep(0.2)",
           honest=True, expect={"full"}),
    Attack("files-left-in-tmp-and-shm", "harm",
           "import os\n"
           "for d in ('/tmp', '/dev/shm', os.path.expanduser('~'), os.getcwd()):\n"
           f"    open(os.path.join(d, '{MARK}-file'), 'w').write('x' * 1000)\n",
           honest=True, expect={"full"}),
    Attack("fills-the-disk", "harm",
           "import os\nwritten = 0\nchunk = b'x' * 2**20\n"
           "for d in ('/tmp', '/dev/shm', os.getcwd()):\n"
           "    try:\n"
           f"        with open(os.path.join(d, '{MARK}-big'), 'wb') as f:\n"
           "            for i in range(4096):\n                f.write(chunk)\n                written += 1\n"
           "    except OSError as e:\n        print('EVIDENCE stopped', d, type(e).__name__)\n"
           "print('EVIDENCE MiB written', written)",
           honest=True, expect={"full"}),
    Attack("prints-20-mib", "harm",
           "line = 'x' * 2**20\n"
           "for i in range(20):\n    print(line)",
           honest=True, expect={"full"}),
    Attack("displays-one-40-mib-output", "harm",
           "from IPython.display import display\n"
           "display({'text/plain': 'y' * (40 * 2**20)}, raw=True)",
           honest=True, expect={"graded"}),
    Attack("displays-many-images", "harm",
           "from IPython.display import display\nimport base64\n"
           "png = base64.b64encode(b'x' * 2**20).decode()\n"
           "for i in range(40):\n    display({'image/png': png}, raw=True)",
           honest=True, expect={"full"}),
    Attack("updates-displays-to-10-mib", "harm",
           "from IPython.display import display, update_display\n"
           "for i in range(8):\n"
           "    display({'text/plain': 'small'}, raw=True, display_id=f'd{i}')\n"
           "for i in range(8):\n"
           "    update_display({'text/plain': 'u' * (10 * 2**20)}, raw=True, display_id=f'd{i}')",
           honest=True, expect={"full"}),
    Attack("writes-20-mib-to-its-own-stderr-fd", "harm",
           "import os\nfor i in range(20):\n    os.write(2, b'z' * 2**20)",
           honest=True, expect={"full"}),
    Attack("crashes-its-kernel", "harm", "import os\nos._exit(3)", expect={"zero", "died"}),
    Attack("segfaults", "harm", "import ctypes\nctypes.string_at(0)",
           expect={"zero", "died", "flagged"}),
    Attack("ignores-interrupts", "harm",
           "import time\nwhile True:\n    try:\n        time.sleep(0.05)\n"
           "    except KeyboardInterrupt:\n        pass", expect={"zero"}),
    Attack("kills-its-init", "harm",
           "import os, signal\nfor s in (signal.SIGTERM, signal.SIGKILL):\n"
           "    try:\n        os.kill(1, s)\n    except OSError:\n        pass\n"
           "    try:\n        os.kill(os.getppid(), s)\n    except OSError:\n        pass",
           honest=True, expect={"graded", "flagged"}),
]

FEEDBACK = [
    Attack("script-and-handlers-in-outputs", "feedback",
           "from IPython.display import display, HTML, Javascript, SVG, Markdown\n"
           "display(HTML('<b>bold</b><script>window.PWNED=1</script>'\n"
           "             '<img src=x onerror=\"window.PWNED=2\">'\n"
           "             '<a href=\"javascript:window.PWNED=3\">l</a>'))\n"
           "display(Javascript('window.PWNED = 4'))\n"
           "display(SVG('<svg xmlns=\"http://www.w3.org/2000/svg\" onload=\"window.PWNED=5\">'\n"
           "            '<script>window.PWNED=6</script><rect width=\"1\" height=\"1\"/></svg>'))\n"
           "display(Markdown('*hi* <img src=y onerror=\"window.PWNED=7\">'))",
           honest=True, expect={"full"}),
]

for _a in SECRETS + HARM + FEEDBACK:
    _a.user = True
ATTACKS = POINTS + SECRETS + HARM + FEEDBACK
MARKDOWN_ATTACK = ("<script>window.PWNED=8</script><img src=z onerror=\"window.PWNED=9\">"
                   "<a href=\"javascript:window.PWNED=10\">x</a> Because.")
