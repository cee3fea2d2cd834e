"""Where a student's code runs when make grade-NN builds and runs it.

Every step of a student's grading (a compile, a build, a run, compute-
sanitizer) runs as a process tree of its own:

- in a fresh mount, PID, network and IPC namespace made by bubblewrap
  (`bwrap`, Debian's `bubblewrap`) where it can make one: the file system
  read-only but for the student's own copy (mounted at JAIL) and a private
  /tmp; the repository, the submissions, the gradebook's folder, the other
  students' copies and $HOME hidden behind empty folders; no network. The
  namespace's processes all end when the step ends, however they were
  started;
- as an unprivileged user of its own (a numeric uid per student, when the
  grader runs as root), through `setpriv`, with no new privileges;
- with a clean environment (PATH, HOME, LANG, TMPDIR and what the step
  names: no MAKEFLAGS, no path to the gradebook), and with limits on CPU
  time, file size, open files and processes (`prlimit`), address space for
  the steps that use no GPU, and wall time (the grader kills it, at a
  limit it sets from the lesson's own time for the same step);
- with room of a fixed size: the private /tmp is a tmpfs of TMP_LIMIT
  bytes, and the student's copy, where its builds, dumps and whatever its
  program writes go, a tmpfs of COPY_LIMIT bytes mounted for it (as root;
  elsewhere a watcher ends the step whose copy grows past that).

Without bwrap (or where it cannot make a namespace) the step still gets
its own session, the environment, the limits and, as root, the user; the
grader says that the copy was not isolated (Jail.describe()).
"""

import os
import shutil
import subprocess
import tempfile

JAIL = "/tmp/grade"  # where the student's copy is inside the namespace

LIMITS = {  # prlimit's options
    "cpu": 900,          # seconds of CPU time per process
    "fsize": 2 << 30,    # bytes per file written
    "nofile": 4096,
    "core": 0,
}
CPU_ONLY_AS = 16 << 30   # address space of steps that use no GPU (a GPU context maps far more)
COPY_LIMIT = 2 << 30     # bytes a student's copy may hold: its builds (about 100 MB each) and dumps (at most 256 MB a run)
TMP_LIMIT = 512 << 20    # bytes of a step's private /tmp, and of its /dev/shm
GPU_DATA = 16 << 30      # bytes of data (heap and private memory) of a GPU step, where the lesson runs under it


def _works(argv):
    try:
        return subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


class Jail:
    """How this machine can isolate a step: in a namespace (bwrap) or, where
    it cannot make one, with limits alone (own session, clean environment);
    as a uid of its own per student when the grader runs as root."""

    def __init__(self, hide, base_uid=None):
        self.hide = sorted({os.path.realpath(h) for h in hide if h})
        self.ro_binds = []  # folders under a hidden one that every step may read (read-only)
        self.root = os.geteuid() == 0
        # a block of uids of this run's own (10,000 students), so that two gradings
        # at once never share one: a step's end kills every process of its uid
        self.base_uid = base_uid if base_uid is not None else 1_000_000_000 + (os.getpid() % 100_000) * 10_000
        self.bwrap = shutil.which("bwrap") or next(
            (p for p in ("/usr/bin/bwrap",) if os.access(p, os.X_OK)), None)
        self.setpriv = shutil.which("setpriv")
        self.prlimit = shutil.which("prlimit")
        self.gpu_data = None  # GPU_DATA once probe_gpu_data() saw the lesson run under it
        self.ns = False
        if self.bwrap:
            probe = tempfile.mkdtemp(prefix="tutorial-jail-probe-")
            self.ns = _works(self._bwrap_argv(probe, [], None) + ["true"])
            shutil.rmtree(probe, ignore_errors=True)
        # a copy of COPY_LIMIT bytes: a tmpfs of that size, where this process may mount one
        probe = tempfile.mkdtemp(prefix="tutorial-jail-quota-")
        self.quota = self.root and _works(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", probe]) and \
            _works(["umount", probe])
        shutil.rmtree(probe, ignore_errors=True)

    def describe(self):
        room = (f"; their copy a tmpfs of {COPY_LIMIT >> 20} MiB" if self.quota else
                f"; their copy watched, a step ended when it passes {COPY_LIMIT >> 20} MiB")
        if self.ns and self.root:
            return ("each student's steps ran in a namespace of their own (bubblewrap): read-only files but their "
                    "own copy, no network, the repository, submissions and gradebook hidden, a /tmp of "
                    f"{TMP_LIMIT >> 20} MiB; as a uid of their own" + room)
        if self.ns:
            return ("each student's steps ran in a namespace of their own (bubblewrap): read-only files but their "
                    "own copy, no network, the repository, submissions and gradebook hidden, a /tmp of "
                    f"{TMP_LIMIT >> 20} MiB; as your own user" + room)
        return ("NOT ISOLATED: no bubblewrap namespace here (apt-get install bubblewrap), so each student's "
                "code ran with a clean environment and limits" + (" as a uid of its own" if self.root else
                                                                   ", as YOUR user: it could read your files") + room)

    def probe_gpu_data(self, argv, env):
        """GPU_DATA if the lesson's program (argv) runs under that data limit
        (a GPU context reserves address space, which the limit must leave
        it), else None: then a GPU step's memory has no limit but the machine's."""
        if not self.prlimit:
            return None
        try:
            ok = subprocess.run([self.prlimit, f"--data={GPU_DATA}", "--"] + argv, env=env, timeout=300,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
        except subprocess.TimeoutExpired:
            ok = False
        return GPU_DATA if ok else None

    def make_room(self, path):
        """The folder a student's copy goes in: a tmpfs of COPY_LIMIT bytes
        mounted there where this process can mount one, else a plain folder
        (whose steps copy_size() then watches)."""
        os.makedirs(path, mode=0o700)
        if self.quota and subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={COPY_LIMIT},mode=0700", "tmpfs", path],
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode != 0:
            raise OSError(f"cannot mount a tmpfs at {path}")

    def drop_room(self, path):
        """The copy gone, and its tmpfs unmounted (lazily: a process the step left would hold it)."""
        if self.quota:
            subprocess.run(["umount", "-l", path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(path, ignore_errors=True)

    def over_room(self, path):
        """Why the copy at path is over its room, or None: where no tmpfs
        bounds it, the bytes its files hold (the watcher's test)."""
        if self.quota:
            return None
        total = 0
        for d, dirs, files in os.walk(path):
            for f in files:
                try:
                    total += os.lstat(os.path.join(d, f)).st_blocks * 512
                except OSError:
                    pass
            if total > COPY_LIMIT:
                return f"its copy grew past {COPY_LIMIT >> 20} MiB (the room a student's copy has)"
        return None

    def uid(self, index):
        return self.base_uid + index if self.root and self.setpriv else None

    def own(self, path, index):
        """Give the student's copy to the student's uid (as root)."""
        uid = self.uid(index)
        if uid is None:
            return
        for d, dirs, files in os.walk(path):
            os.lchown(d, uid, uid)
            for f in dirs + files:
                os.lchown(os.path.join(d, f), uid, uid)

    def disown(self, path):
        """Take the copy back (as root): no later student's uid can read it."""
        if not self.root:
            return
        for d, dirs, files in os.walk(path):
            os.lchown(d, 0, 0)
            os.chmod(d, 0o700)
            for f in dirs + files:
                os.lchown(os.path.join(d, f), 0, 0)

    def _bwrap_argv(self, copy, hide, env):
        argv = [self.bwrap, "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
                "--die-with-parent", "--new-session", "--ro-bind", "/", "/", "--dev-bind", "/dev", "/dev",
                "--proc", "/proc", "--perms", "1777", "--size", str(TMP_LIMIT), "--tmpfs", "/dev/shm"]
        for h in hide:
            if os.path.isdir(h):
                argv += ["--tmpfs", h]
        argv += ["--perms", "1777", "--size", str(TMP_LIMIT), "--tmpfs", "/tmp", "--bind", copy, JAIL]
        for r in self.ro_binds:
            parts = os.path.dirname(r).strip("/").split("/")
            for i in range(1, len(parts) + 1):  # its folders, which bwrap would make 0700 under a tmpfs
                argv += ["--perms", "0755", "--dir", "/" + "/".join(parts[:i])]
            argv += ["--ro-bind", r, r]
        if env is not None:
            argv += ["--clearenv"]
            for k, v in env.items():
                argv += ["--setenv", k, v]
        return argv

    def argv(self, argv, copy, cwd, index, env, gpu):
        """The command line that runs `argv` in the student's jail: `cwd`
        is a folder of `copy` (the real path), as the step sees it."""
        inner = []
        uid = self.uid(index)
        if uid is not None:
            inner += [self.setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--no-new-privs", "--"]
        if self.prlimit:
            lim = [f"--{k}={v}" for k, v in LIMITS.items()]
            if uid is not None:
                lim.append("--nproc=1024")
            if not gpu:
                lim.append(f"--as={CPU_ONLY_AS}")
            elif self.gpu_data:
                lim.append(f"--data={self.gpu_data}")
            inner += [self.prlimit] + lim + ["--"]
        if self.ns:
            rel = os.path.relpath(cwd, copy)
            inside = os.path.normpath(os.path.join(JAIL, rel))
            env = dict(env, HOME=JAIL, TMPDIR="/tmp")
            return self._bwrap_argv(copy, self.hide, env) + ["--chdir", inside] + inner + argv, None, None
        return inner + argv, cwd, dict(env, HOME=copy, TMPDIR=os.path.join(copy, ".tmp"))

    def path(self, copy, real):
        """A real path in the copy as the step sees it."""
        if not self.ns:
            return real
        return os.path.normpath(os.path.join(JAIL, os.path.relpath(real, copy)))


def clean_env(extra=None):
    """The environment a student's step starts from (extra: CUDA_HOME among them)."""
    cuda = (extra or {}).get("CUDA_HOME") or os.path.dirname(os.path.dirname(os.path.realpath(
        shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")))
    env = {"PATH": f"{cuda}/bin:/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
    env.update(extra or {})
    return env
