#!/usr/bin/env python3
"""nvcc for the test suite, with a cache: no compile is done twice in one run.

The suite builds every chapter, the starters, the wrong solutions, the
handout and the graded copies, and most of those builds compile files that
an earlier build compiled already with the same flags: a parent chapter's
kernel in each later chapter, the unchanged files of a student's copy, a
header-only change that leaves most objects alone. make's timestamps cannot
see that across folders; a cache keyed by content can.

    NVCC=tests/nvcc_cache.py TUTORIAL_NVCC_CACHE=dir make ...

Each call's key is the real nvcc's version, its arguments (the output and
dependency-file names left out, the input file by its name and content) and
the content of every file the compile read: for -c and -ptx the files the
compiler's own dependency output lists (recorded the first time, checked
each time after, as ccache's direct mode does), for -E every source of the
tree the input is in (nvcc -E cannot list its dependencies), for a link the
objects it links. A hit writes the stored output, dependency file, standard
output and error (warnings are replayed, so warning-free checks still see
them) and exit status, without running nvcc. The compiler's own embedded
paths (line information, __FILE__) are those of the first compile: the code
is the same.

Without TUTORIAL_NVCC_CACHE it is nvcc itself. Every call is logged to
dir/calls.log ("hit" or "run", then the arguments): tests/conftest.py
counts them at the end of a run (a compile's line has its seconds). With TUTORIAL_NVCC_CACHE_RO=1 it only
reads the cache (make grade-NN's students, whose compiles must not write
what another student's build would read).
"""

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

SOURCE_EXT = (".cu", ".cuh", ".h", ".c", ".hpp")


def real_nvcc():
    r = os.environ.get("TUTORIAL_NVCC_REAL")
    if r:
        return r
    me = os.path.realpath(__file__)
    for d in os.environ.get("PATH", "").split(os.pathsep):
        p = os.path.join(d, "nvcc")
        if os.access(p, os.X_OK) and os.path.realpath(p) != me:
            return p
    return "/usr/local/cuda/bin/nvcc"


def sha(data):
    return hashlib.sha256(data).hexdigest()


def file_hash(path, memo={}):
    if path not in memo:
        try:
            with open(path, "rb") as f:
                memo[path] = sha(f.read())
        except OSError:
            memo[path] = "missing"
    return memo[path]


def parse(argv):
    """(mode, input, output, depfile, wants_deps, rest) of an nvcc command line."""
    mode, inp, out, dep, wants = "link", None, None, None, False
    rest, i = [], 0
    while i < len(argv):
        a = argv[i]
        if a in ("-o", "-MF") and i + 1 < len(argv):
            if a == "-o":
                out = argv[i + 1]
            else:
                dep = argv[i + 1]
            i += 2
            continue
        if a in ("-c", "-ptx", "-E", "-cubin"):
            mode = a[1:]
        if a in ("-MMD", "-MD"):
            wants = True
        if not a.startswith("-") and a.endswith(SOURCE_EXT) and os.path.isfile(a):
            inp = a
        rest.append(a)
        i += 1
    if mode == "link":
        inp = None
    return mode, inp, out, dep, wants, rest


def tree_of(path):
    """The repository (or copy) a source is in: the nearest folder above it with common/common.mk."""
    d = os.path.dirname(os.path.abspath(path))
    while d != "/":
        if os.path.isfile(os.path.join(d, "common", "common.mk")):
            return d
        d = os.path.dirname(d)
    return os.path.dirname(os.path.abspath(path))


def tree_hash(root):
    h = hashlib.sha256()
    for d, dirs, files in os.walk(root, followlinks=True):
        dirs[:] = sorted(x for x in dirs if x not in ("build", ".git", "html", "exercises"))
        for f in sorted(files):
            if f.endswith(SOURCE_EXT):
                p = os.path.join(d, f)
                h.update(os.path.relpath(p, root).encode() + b"\0" + file_hash(p).encode())
    return h.hexdigest()


def read_deps(depfile, cwd):
    """The files a make-style dependency file lists, as absolute paths."""
    try:
        text = open(depfile).read()
    except OSError:
        return []
    text = text.replace("\\\n", " ")
    out = []
    for line in text.splitlines():
        if ":" not in line:
            continue
        target, _, deps = line.partition(": ")
        if not deps and line.endswith(":"):
            continue
        for d in deps.split():
            p = os.path.normpath(os.path.join(cwd, d))
            if p not in out:
                out.append(p)
    return out


def main(argv):
    nvcc = real_nvcc()
    cache = os.environ.get("TUTORIAL_NVCC_CACHE")
    mode, inp, out, dep, wants, rest = parse(argv)
    cacheable = cache and (out or mode == "E") and (inp or mode == "link") and "--version" not in argv
    if not cacheable:
        return subprocess.call([nvcc] + argv)
    cwd = os.getcwd()
    ver = version(nvcc, cache)
    words = [ver, mode] + [os.path.basename(a) if a == inp else a for a in rest]
    if inp:
        words.append(file_hash(inp))
        base = os.path.dirname(os.path.abspath(inp))
    else:  # a link: the objects it links, by content
        base = cwd
        words = [ver, mode] + [("file:" + file_hash(a)) if not a.startswith("-") and os.path.isfile(a) else a
                               for a in rest]
    if mode == "E":
        words.append(tree_hash(tree_of(inp)))
    key0 = sha("\0".join(words).encode())
    entries = os.path.join(cache, key0[:2], key0)
    if os.environ.get("TUTORIAL_NVCC_CACHE_RO") == "1":  # make grade-NN's students: read, never write
        hit = lookup(entries, base)
        if hit:
            return replay(hit, out, dep or (os.path.splitext(out)[0] + ".d" if wants and out else None), cwd, base)
        return subprocess.call([nvcc] + argv)
    os.makedirs(os.path.dirname(entries), exist_ok=True)
    # one compile of a key at a time: a second, identical one waits for the first and replays it
    with open(entries + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        hit = lookup(entries, base)
        if hit:
            log(cache, "hit", argv)
            return replay(hit, out, dep or (os.path.splitext(out)[0] + ".d" if wants and out else None), cwd, base)
        t0 = time.monotonic()
        tmpdep = None
        run = [nvcc] + argv
        if mode in ("c", "ptx", "cubin") and not dep and not wants:
            fd, tmpdep = tempfile.mkstemp(suffix=".d")
            os.close(fd)
            run = [nvcc] + argv + ["-MMD", "-MF", tmpdep]
        p = subprocess.run(run, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        sys.stdout.buffer.write(p.stdout)
        sys.stderr.buffer.write(p.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        deps = []
        if mode in ("c", "ptx", "cubin"):
            deps = read_deps(dep or tmpdep or os.path.splitext(out)[0] + ".d", cwd)
        if tmpdep:
            os.unlink(tmpdep)
        # a compile that failed before its headers were known (an #include of
        # a file not there yet) is not stored: no dependency would renew it
        if deps or mode not in ("c", "ptx", "cubin"):
            store(entries, p, out, deps, base)
        log(cache, "run", argv, time.monotonic() - t0)
        return p.returncode


def version(nvcc, cache):
    """nvcc's version and the host compilers it calls (and the variables
    nvcc reads for flags and for its host compiler): part of every key."""
    tools = [os.path.realpath(t) for t in [nvcc] + [shutil.which(c) or c for c in ("gcc", "g++")]]
    stats = [f"{t}:{os.stat(t).st_size}:{os.stat(t).st_mtime_ns}" if os.path.exists(t) else t for t in tools]
    env = [f"{v}={os.environ.get(v, '')}" for v in ("NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS", "NVCC_CCBIN")]
    tag = sha("\0".join(stats + env).encode())[:16]
    p = os.path.join(cache, "version-" + tag)
    if not os.path.exists(p):
        os.makedirs(cache, exist_ok=True)
        v = subprocess.run([nvcc, "--version"], stdout=subprocess.PIPE).stdout.decode()
        atomic_write(p, (v + "\n".join(stats + env)).encode())
    return open(p).read()


def rel(p, base):
    return p if p.startswith(("/usr/", "/opt/")) else os.path.relpath(p, base)


def lookup(entries, base):
    try:
        names = sorted(os.listdir(entries))
    except OSError:
        return None
    for n in names:
        d = os.path.join(entries, n)
        try:
            meta = json.load(open(os.path.join(d, "meta.json")))
        except (OSError, ValueError):
            continue
        if all(file_hash(os.path.normpath(os.path.join(base, p))) == h for p, h in meta["deps"]):
            return d
    return None


def store(entries, p, out, deps, base):
    meta = {"rc": p.returncode, "deps": [(rel(d, base), file_hash(d)) for d in deps], "has_out": False}
    key = sha(json.dumps(meta["deps"]).encode())
    final = os.path.join(entries, key)
    if os.path.isdir(final):
        return
    os.makedirs(entries, exist_ok=True)
    tmp = tempfile.mkdtemp(dir=entries, prefix=".tmp-")
    with open(os.path.join(tmp, "stdout"), "wb") as f:
        f.write(p.stdout)
    with open(os.path.join(tmp, "stderr"), "wb") as f:
        f.write(p.stderr)
    if out and out != "-" and os.path.isfile(out) and p.returncode == 0:
        shutil.copyfile(out, os.path.join(tmp, "out"))
        shutil.copymode(out, os.path.join(tmp, "out"))  # a linked program stays executable when replayed
        meta["has_out"] = True
    with open(os.path.join(tmp, "meta.json"), "w") as f:
        json.dump(meta, f)
    try:
        os.rename(tmp, final)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)


def replay(d, out, depfile, cwd, base):
    meta = json.load(open(os.path.join(d, "meta.json")))
    if meta["has_out"] and out:
        os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
        tmp = out + ".cache-tmp"
        shutil.copyfile(os.path.join(d, "out"), tmp)
        shutil.copymode(os.path.join(d, "out"), tmp)
        os.replace(tmp, out)
    if depfile and out:
        paths = [os.path.normpath(os.path.join(base, p)) for p, _ in meta["deps"]]
        lines = [f"{out} : " + " ".join(paths)] + [f"{p}:" for p in paths[1:]]
        atomic_write(depfile, ("\n".join(lines) + "\n").encode())
    sys.stdout.buffer.write(open(os.path.join(d, "stdout"), "rb").read())
    sys.stderr.buffer.write(open(os.path.join(d, "stderr"), "rb").read())
    return meta["rc"]


def atomic_write(path, data):
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)) or ".")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def log(cache, what, argv, seconds=0.0):
    with open(os.path.join(cache, "calls.log"), "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        f.write(f"{what}\t{seconds:.2f}\t{os.getcwd()}\t{' '.join(argv)}\n")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
