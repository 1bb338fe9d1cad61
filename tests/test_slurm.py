"""A WMT metrics task set through a real one-node Slurm cluster (issue 61): the test starts munge and Slurm
(Debian's ``munge`` and ``slurm-wlm``, which ``.ci/run`` installs), runs ``mtsig meta --task wmt23 --dask slurm:2``,
and holds its JSON to the one-process run's, byte for byte. Marked ``slurm``: CI runs it (and fails if Slurm cannot
start there); elsewhere it is skipped, saying why, where Slurm is not installed or this is not root."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.data import DATA, need, unavailable

MTME = DATA / "mtme-wmt23-ende" / "wmt23"
pytestmark = pytest.mark.slurm


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cluster_conf(folder: Path) -> Path:
    host = socket.gethostname().split(".")[0]
    with open("/proc/meminfo", encoding="ascii") as f:
        mem = int(int(f.readline().split()[1]) / 1024 * 0.8)
    for sub in ("state", "spool", "log"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    conf = folder / "slurm.conf"
    conf.write_text(
        "\n".join([
            "ClusterName=mtsigtest", f"SlurmctldHost={host}", "SlurmUser=root", "SlurmdUser=root",
            "AuthType=auth/munge", "CredType=cred/munge", "MpiDefault=none", "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none", "SelectType=select/cons_tres", "SelectTypeParameters=CR_Core_Memory",
            "ReturnToService=2", f"StateSaveLocation={folder / 'state'}", f"SlurmdSpoolDir={folder / 'spool'}",
            f"SlurmctldPidFile={folder / 'slurmctld.pid'}", f"SlurmdPidFile={folder / 'slurmd.pid'}",
            f"SlurmctldLogFile={folder / 'log' / 'slurmctld.log'}", f"SlurmdLogFile={folder / 'log' / 'slurmd.log'}",
            f"SlurmctldPort={_free_port()}", f"SlurmdPort={_free_port()}", "JobCompType=jobcomp/none",
            "AccountingStorageType=accounting_storage/none", "JobAcctGatherType=jobacct_gather/none",
            f"NodeName={host} CPUs={os.cpu_count() or 1} RealMemory={mem} State=UNKNOWN",
            f"PartitionName=mtsig Nodes={host} Default=YES MaxTime=INFINITE State=UP",
        ]) + "\n",
        encoding="ascii",
    )  # fmt: skip
    return conf


def _munge_works() -> bool:
    if shutil.which("munge") is None:
        return False
    p = subprocess.run("munge -n | unmunge", shell=True, capture_output=True, text=True)
    return p.returncode == 0


def _start_munge() -> None:
    if _munge_works():
        return
    Path("/run/munge").mkdir(parents=True, exist_ok=True)
    shutil.chown("/run/munge", "munge", "munge")
    subprocess.run(["runuser", "-u", "munge", "--", "/usr/sbin/munged"], check=True, capture_output=True)
    for _ in range(50):
        if _munge_works():
            return
        time.sleep(0.1)
    unavailable("munged started but munge -n | unmunge does not work")


@pytest.fixture
def slurm(tmp_path):
    missing = [x for x in ("slurmctld", "slurmd", "sbatch", "munged") if shutil.which(x) is None
               and not Path(f"/usr/sbin/{x}").exists()]  # fmt: skip
    if missing:
        unavailable(f"Slurm cannot start here: {', '.join(missing)} not installed (Debian: slurm-wlm munge)")
    if os.geteuid() != 0:
        unavailable("Slurm cannot start here: its daemons need root (this test runs a one-node cluster itself)")
    try:
        import dask_jobqueue  # noqa: F401
    except ImportError:
        unavailable("dask-jobqueue is not installed (pip install 'mtsig[cluster]')")
    _start_munge()
    conf = _cluster_conf(tmp_path / "slurm")
    env = {**os.environ, "SLURM_CONF": str(conf)}
    for daemon in ("slurmctld", "slurmd"):
        p = subprocess.run([daemon, "-f", str(conf)], env=env, capture_output=True, text=True)
        assert p.returncode == 0, f"{daemon} did not start: {p.stderr[-1000:]}"
    try:
        for _ in range(100):
            p = subprocess.run(["sinfo", "-h", "-o", "%t"], env=env, capture_output=True, text=True)
            if p.returncode == 0 and p.stdout.strip() in ("idle", "mix", "alloc"):
                break
            time.sleep(0.2)
        else:
            log = (tmp_path / "slurm" / "log" / "slurmctld.log").read_text(errors="replace")[-2000:]
            unavailable(f"Slurm started but its node is not idle ({p.stdout.strip()} {p.stderr.strip()}): {log}")
        yield env
    finally:
        subprocess.run(["scancel", "-u", "root"], env=env, capture_output=True)
        for pid_file in ("slurmd.pid", "slurmctld.pid"):
            f = tmp_path / "slurm" / pid_file
            if f.exists():
                try:
                    os.kill(int(f.read_text().strip()), 15)
                except (ProcessLookupError, ValueError):
                    pass


def test_a_task_set_through_slurm_gives_the_one_process_json(slurm, tmp_path):
    need(MTME)
    base = [sys.executable, "-m", "mtsig", "meta", "--mtme", str(MTME), "--task", "wmt23", "--lps", "en-de",
            "--k", "200", "-f", "json", "-q"]  # fmt: skip
    one = subprocess.run(base, capture_output=True, text=True, timeout=600)
    assert one.returncode == 0, one.stderr
    t0 = time.monotonic()
    via = subprocess.run([*base, "--dask", "slurm:2", "--job-memory", "2GB", "--job-walltime", "00:10:00"],
                         capture_output=True, text=True, timeout=900, env=slurm, cwd=tmp_path)  # fmt: skip
    took = time.monotonic() - t0
    assert via.returncode == 0, via.stderr[-3000:]
    assert json.loads(via.stdout) == json.loads(one.stdout)
    jobs = sorted(tmp_path.glob("slurm-*.out"))
    assert len(jobs) >= 2, "the workers did not run as Slurm jobs"
    left = subprocess.run(["squeue", "-h"], env=slurm, capture_output=True, text=True).stdout.strip()
    assert not left, f"jobs left in the queue: {left}"
    print(f"wmt23 en-de at k = 200 through Slurm (2 jobs): {took:.1f} s, the same JSON as one process")
