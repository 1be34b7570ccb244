"""JupyterHub for an Autograd Lab class on one machine (see docs/instructor-guide.md).

``deploy/hub.py setup`` copies this file to ``PREFIX/etc/`` and ``deploy/hub.py start`` runs
``jupyterhub -f PREFIX/etc/jupyterhub_config.py`` as root, with ``AUTOGRAD_LAB_HUB_PREFIX`` set.
The class's settings come from ``PREFIX/hub.ini``; local additions (another authenticator, a
service, ...) go in ``PREFIX/etc/jupyterhub_config.d/*.py``, loaded last, in name order.

* Users log in with their system account and password (PAM). Who may: the members of the
  students' Unix group and the instructor, who is the hub's admin.
* Each user's JupyterLab runs as that user (LocalProcessSpawner), from the shared virtualenv:
  its Python 3 kernel has autograd_lab, its terminal has ``nbgrader`` and ``python`` on PATH.
* ``JUPYTER_CONFIG_PATH`` gives every server nbgrader's course id and exchange; students' servers
  also hide the instructor's tools (formgrader, Create Assignment, Course List); the instructor's
  points nbgrader at the course directory.
"""

import configparser
import grp
import ipaddress
import os
from pathlib import Path

c = get_config()  # noqa: F821  (provided by traitlets when it loads this file)

PREFIX = Path(os.environ.get("AUTOGRAD_LAB_HUB_PREFIX", "/srv/autograd-lab"))
ini = configparser.ConfigParser(interpolation=None)
if not ini.read(PREFIX / "hub.ini"):
    raise SystemExit(f"no {PREFIX / 'hub.ini'}: run `deploy/hub.py setup` first")
hub, course, users = ini["hub"], ini["course"], ini["users"]
VENV = Path(course.get("venv") or PREFIX / "venv")
STATE = PREFIX / "hub"
INSTRUCTOR = course["instructor"]

# --- network: one public port (the proxy); the hub's API and the proxy's API on loopback -------
ip, ssl_cert, ssl_key = hub["ip"], hub.get("ssl_cert", ""), hub.get("ssl_key", "")
if not ssl_cert and not ipaddress.ip_address(ip).is_loopback and hub.get("insecure_http") != "yes":
    raise SystemExit(
        f"hub.ini: ip = {ip} without ssl_cert/ssl_key would send the users' system passwords over "
        "the network unencrypted. Give a certificate (hub.py setup --ssl-cert F --ssl-key F), or "
        "keep ip = 127.0.0.1 behind a TLS reverse proxy (nginx, Caddy), or set insecure_http = yes "
        "for a closed lab network.")
c.JupyterHub.bind_url = f"{'https' if ssl_cert else 'http'}://{ip}:{hub['port']}"
if ssl_cert:
    c.JupyterHub.ssl_cert = ssl_cert
    c.JupyterHub.ssl_key = ssl_key
c.JupyterHub.hub_bind_url = f"http://127.0.0.1:{hub['hub_port']}"
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{hub['proxy_api_port']}"
if hub.get("proxy"):
    c.ConfigurableHTTPProxy.command = [hub["proxy"]]

# --- the hub's own state: root only ----------------------------------------------------------
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(STATE / "jupyterhub.pid")
c.ConfigurableHTTPProxy.pid_file = str(STATE / "jupyterhub-proxy.pid")

# --- who may log in: system users, by password ----------------------------------------------
c.JupyterHub.authenticator_class = "pam"
c.PAMAuthenticator.allowed_groups = {users["students_group"]}
# The group's members at start-up are listed too, so the admin page shows the whole class before
# anyone logs in; a student added later may log in at once (the group), and is listed from then.
try:
    members = set(grp.getgrnam(users["students_group"]).gr_mem)
except KeyError:
    members = set()
c.Authenticator.allowed_users = {INSTRUCTOR} | members
# The instructor may start, stop and open the students' servers (to help them).
c.Authenticator.admin_users = {INSTRUCTOR}

# --- each user's JupyterLab, as that user, from the shared venv ------------------------------
c.JupyterHub.spawner_class = "jupyterhub.spawner.LocalProcessSpawner"
c.Spawner.cmd = [str(VENV / "bin" / "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
c.Spawner.notebook_dir = "~"
# A 2-core machine starting a class's servers at once is slow; the default 30 s is too short.
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120


def jupyter_config_path(spawner) -> str:
    """The instructor's server finds the course directory; students' hide the grading tools; all
    read the course's grading/jupyter/ (terminals with the venv on PATH, Validate's settings)."""
    role = "instructor" if spawner.user.name == INSTRUCTOR else "student"
    etc, course = PREFIX / "etc", PREFIX / "share" / "course" / "grading" / "jupyter"
    return f"{etc / f'jupyter-{role}'}:{etc / 'jupyter'}:{course}"


c.Spawner.environment = {
    "PATH": f"{VENV / 'bin'}:/usr/local/bin:/usr/bin:/bin",
    "JUPYTER_CONFIG_PATH": jupyter_config_path,
    # The course's lab extensions (deploy/hub.py setup puts them there).
    "JUPYTER_PATH": str(PREFIX / "share" / "jupyter"),
    # Read by the course's nbgrader_config.py and grading/jupyter/ (its terminals).
    "AUTOGRAD_LAB_EXCHANGE": str(PREFIX / "exchange"),
    "AUTOGRAD_LAB_VENV": str(VENV),
    "PYDEVD_DISABLE_FILE_VALIDATION": "1",
}

# --- local additions ------------------------------------------------------------------------
for extra in sorted((PREFIX / "etc" / "jupyterhub_config.d").glob("*.py")):
    load_subconfig(str(extra))  # noqa: F821
