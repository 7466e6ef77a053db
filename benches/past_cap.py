"""Two clones of a memory whose archive is past what trilogy reads whole, meeting through git.

Usage: python3 benches/past_cap.py BINARY
(BENCH_PAST_CAP_ENTRIES=3300000 picks the entries: at the generator's 85 bytes an archived
entry, 3.3M make a 270 MB archive, past the 256 MiB cap.)

It writes a workspace as benches/volume_compare.py does (no store: a repository as pushed),
commits it to a bare repository, and clones it twice (A and B), each with trilogy's merge
driver installed. Then, each step spawned and reaped with wait4 (wall, CPU, peak RSS):

- each clone's first `status` (the store built from the Markdown);
- in each clone two sessions, then one more with the cap lowered to 1, which moves every other
  session (the 200 both clones share and their own) into the archive; each commits;
- A pushes; B pulls (git runs the merge driver on both session files) and runs `status`;
  B pushes; A pulls and runs `status`.

It checks that neither clone reports a file it cannot read, that both hold every session of
both, and that their memory files are byte for byte the same. Nothing about time is asserted;
the figures are printed (git's own peak RSS is part of a pull's).
"""
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import volume_compare  # noqa: E402  (the workspace writer the benches share)

ENTRIES = int(os.environ.get("BENCH_PAST_CAP_ENTRIES", "3300000"))
FILES = ["PROJECT.md", "DECISIONS.md", "SESSIONS.md", "SESSIONS-archive.md"]


def step(label, args, cwd, env=None):
    wall, cpu, rss, out = volume_compare.run(args, env=env or volume_compare.ENV, cwd=cwd)
    print(f"  {label}: wall {wall:.1f} s, CPU {cpu:.1f} s, peak RSS {rss:.0f} MiB")
    return out


def git(cwd, *args):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def digest(root):
    h = hashlib.sha1()
    for f in FILES:
        with open(os.path.join(root, "memory", f), "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    binary = os.path.abspath(sys.argv[1])
    top = tempfile.mkdtemp(prefix="pastcap-")
    src = volume_compare.workspace(ENTRIES, prefix="pastcap", project=True)
    size = os.path.getsize(os.path.join(src, "memory", "SESSIONS-archive.md"))
    print(f"{ENTRIES} entries, an archive of {size / (1 << 20):.0f} MiB")
    git(src, "init", "-q")
    git(src, "-c", "user.name=gen", "-c", "user.email=gen@team.invalid", "add", "-A")
    git(src, "-c", "user.name=gen", "-c", "user.email=gen@team.invalid", "commit", "-qm", "memory")
    bare = os.path.join(top, "shared.git")
    git(top, "clone", "-q", "--bare", src, bare)
    shutil.rmtree(src)
    clones = {}
    for name in ("A", "B"):
        root = os.path.join(top, name)
        git(top, "clone", "-q", bare, root)
        git(root, "config", "user.name", name)
        git(root, "config", "user.email", f"{name.lower()}@team.invalid")
        subprocess.run([binary, "install", "git", "--command", binary], cwd=root, check=True,
                       capture_output=True, env=volume_compare.ENV)
        clones[name] = root
    for name, root in clones.items():
        print(f"clone {name}")
        step("first status", [binary, "status"], root)
        for i in (1, 2):
            volume_compare.run([binary, "checkpoint", "--session-done", f"{name} session {i}; status"], cwd=root)
        step("checkpoint moving every session but one", [binary, "checkpoint", "--session-done",
             f"{name} session 3; status", "--set", "sessions_max_entries=1",
             "--set", "sessions_archive_batch=0"], root)
        git(root, "add", "-A", "memory")
        git(root, "commit", "-qm", f"{name} sessions")
    a, b = clones["A"], clones["B"]
    git(a, "push", "-q", "origin", "HEAD")
    print("clone B")
    step("pull (the merge driver on both session files)", ["git", "pull", "-q", "--no-rebase", "--no-edit", "origin", "HEAD"], b)
    step("status after the merge", [binary, "status"], b)
    git(b, "push", "-q", "origin", "HEAD")
    print("clone A")
    step("pull", ["git", "pull", "-q", "--no-rebase", "--no-edit", "origin", "HEAD"], a)
    step("status after the pull", [binary, "status"], a)
    for name, root in clones.items():
        status = volume_compare.run([binary, "status", "--json"], cwd=root)[3].decode()
        assert '"unparseable": []' in status, f"{name}: {status[:3000]}"
        with open(os.path.join(root, "memory", "SESSIONS-archive.md"), "rb") as fh:
            head = fh.read(200_000).decode(errors="replace")
        with open(os.path.join(root, "memory", "SESSIONS.md"), encoding="utf-8") as fh:
            live = fh.read()
        for other in clones:
            for i in (1, 2, 3):
                assert f"{other} session {i};" in head + live, f"{name} lacks {other} session {i}"
    same = digest(a) == digest(b)
    print(f"both clones hold every session of both; files the same: {same}")
    assert same
    shutil.rmtree(top)


if __name__ == "__main__":
    main()
