"""A team of clones that meets through git: real processes, a real git, one shared bare repository.

Usage: python3 benches/team.py --bin TRILOGY [--clones 12] [--seconds 600] [--writers 2]
       [--entries 0] [--seed 1] [--json REPORT.json]

Each clone has `--writers` writer processes (agents recording a session with `trilogy
checkpoint`, a short random pause between two) and a person: a loop that, at random intervals,
commits the memory files, pulls (with trilogy's merge driver, `trilogy install git`) and pushes
(a push refused as not a fast-forward waits for the next round). `--entries N` starts the
repository with N generated entries (5% decisions, the rest sessions, 200 live).

After `--seconds` the writers stop and the clones settle as people would: in each clone
`trilogy doctor --fix` writes what the store holds and the files lack yet (what an agent's next
write would do), its person commits, pulls and pushes, round after round until a round changes
nothing; then every clone pulls once more. The report:

- acknowledged entries missing from any clone (must be 0), clones whose memory files differ from
  the first clone's (must be 0), conflicts left for a person (unmerged paths or conflict markers
  in a memory file; must be 0);
- per clone: acknowledged writes, busy refusals, pulls, pushes, disk use of `.git` and `.trilogy`;
- p50/p95 of a pull's absorb: the first trilogy command after a pull that changed the memory
  files, timed;
- who wrote each entry: `trilogy read --json` in the first clone names, per entry that arrived by
  a pull, the author of the commit that added it (`arrived_from`), counted by clone.

Exit status 1 when a must-be-0 figure is not 0 or a clone acknowledged fewer than
`--min-acked` writes (a run where clones mostly time out fails). It measures and reports; the CI
variant (`tests/git/team.rs`) runs it with 3 clones for 60 seconds.
"""
import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HEADING = re.compile(r"^## ", re.M)
# what a writer records (see `Team.writer`), as it stands in a memory file
ACKED = re.compile(r"clone\d+ writer \d+ step \d+; tested")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bin", required=True)
    p.add_argument("--clones", type=int, default=12)
    p.add_argument("--seconds", type=float, default=600)
    p.add_argument("--writers", type=int, default=2)
    p.add_argument("--entries", type=int, default=0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--min-acked", type=int, default=None,
                   help="fewest acknowledged writes a clone must make (default: one per 6 s)")
    p.add_argument("--json", default=None, help="write the report here too")
    p.add_argument("--keep", action="store_true", help="leave the clones in place")
    return p.parse_args()


class Team:
    def __init__(self, a):
        self.a = a
        self.bin = os.path.abspath(a.bin)
        self.root = tempfile.mkdtemp(prefix="trilogy-team-")
        home = os.path.join(self.root, "home")
        os.makedirs(home)
        self.env = dict(os.environ, HOME=home, XDG_CONFIG_HOME=home + "/.config",
                        XDG_DATA_HOME=home + "/.data", XDG_STATE_HOME=home + "/.state",
                        XDG_CACHE_HOME=home + "/.cache", TRILOGY_CONFIG=home + "/none.toml",
                        GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=home + "/gitconfig",
                        GIT_TERMINAL_PROMPT="0", LC_ALL="C")
        self.origin = os.path.join(self.root, "origin.git")
        self.clones = []
        self.lock = threading.Lock()
        self.acked = {}  # text -> clone
        self.stats = {}
        self.absorbs = []
        self.stop = threading.Event()

    def run(self, cwd, args, check=False):
        p = subprocess.run(args, cwd=cwd, env=self.env, capture_output=True)
        if check and p.returncode != 0:
            raise SystemExit(f"{args} in {cwd}: {p.stderr.decode(errors='replace')}")
        return p

    def git(self, cwd, *args, check=False):
        return self.run(cwd, ["git", *args], check)

    def tri(self, cwd, *args, check=False):
        return self.run(cwd, [self.bin, "--root", cwd, *args], check)

    def setup(self):
        self.git(self.root, "init", "-q", "--bare", "-b", "main", self.origin, check=True)
        seed = os.path.join(self.root, "seed")
        os.makedirs(seed)
        self.git(seed, "init", "-q", "-b", "main", check=True)
        self.identify(seed, "seed")
        self.tri(seed, "init", check=True)
        if self.a.entries:
            generate(seed, self.a.entries)
        self.tri(seed, "install", "git", check=True)
        self.tri(seed, "status", check=True)
        self.git(seed, "add", "-A", check=True)
        self.git(seed, "commit", "-qm", "memory", check=True)
        self.git(seed, "push", "-q", self.origin, "main", check=True)
        for k in range(self.a.clones):
            c = os.path.join(self.root, f"clone{k:02}")
            self.git(self.root, "clone", "-q", self.origin, c, check=True)
            self.identify(c, f"clone{k:02}")
            self.tri(c, "install", "git", check=True)
            self.tri(c, "status", check=True)
            self.clones.append(c)
            self.stats[c] = dict(acked=0, busy=0, failed=0, pulls=0, pushes=0, commits=0,
                                 conflicts=0, refused=0)
        shutil.rmtree(seed)

    def identify(self, cwd, name):
        self.git(cwd, "config", "user.name", name, check=True)
        self.git(cwd, "config", "user.email", f"{name}@team.invalid", check=True)

    def writer(self, c, w):
        rng = random.Random(f"{self.a.seed}-{c}-{w}")
        i = 0
        while not self.stop.is_set():
            text = f"{os.path.basename(c)} writer {w} step {i}; tested"
            p = self.tri(c, "checkpoint", "--session-done", text, "--area", "team")
            with self.lock:
                if p.returncode == 0:
                    self.acked[text] = c
                    self.stats[c]["acked"] += 1
                elif p.returncode == 6:
                    self.stats[c]["busy"] += 1
                else:
                    self.stats[c]["failed"] += 1
                    sys.stderr.write(f"checkpoint failed in {c}: {p.stderr.decode(errors='replace')}\n")
            i += 1
            time.sleep(rng.uniform(0.05, 0.6))

    def person(self, c):
        rng = random.Random(f"{self.a.seed}-{c}-person")
        while not self.stop.is_set():
            time.sleep(rng.uniform(1.0, 6.0))
            self.round(c)

    def round(self, c):
        """Commit, pull, push once; returns whether anything changed here or upstream."""
        s = self.stats[c]
        changed = False
        self.git(c, "add", "-A", "memory")
        if self.git(c, "commit", "-qm", f"memory from {os.path.basename(c)}").returncode == 0:
            s["commits"] += 1
            changed = True
        before = self.git(c, "rev-parse", "HEAD").stdout
        p = self.git(c, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
        if p.returncode != 0:
            if self.unmerged(c):
                s["conflicts"] += 1
                sys.stderr.write(f"pull left a conflict in {c}: {p.stderr.decode(errors='replace')}\n")
                self.git(c, "merge", "--abort")
            else:
                s["refused"] += 1
            return changed
        s["pulls"] += 1
        if self.git(c, "rev-parse", "HEAD").stdout != before:
            changed = True
            t = time.perf_counter()
            self.tri(c, "status")
            with self.lock:
                self.absorbs.append(time.perf_counter() - t)
        if self.git(c, "push", "-q", "origin", "HEAD:main").returncode == 0:
            s["pushes"] += 1
        return changed

    def unmerged(self, c):
        return bool(self.git(c, "diff", "--name-only", "--diff-filter=U").stdout.strip())

    def settle(self):
        for _ in range(8):
            changed = False
            for c in self.clones:
                # what the store holds and the files lack yet (entries kept through a pull)
                # is written by the next write; here, as `status` advises, by `doctor --fix`
                self.tri(c, "doctor", "--fix")
                changed |= self.round(c)
            if not changed:
                break
        for c in self.clones:
            self.git(c, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
            self.tri(c, "status")

    def files(self, c):
        out = {}
        d = os.path.join(c, "memory")
        for name in sorted(os.listdir(d)):
            with open(os.path.join(d, name), "rb") as f:
                out[name] = f.read()
        return out

    def verify(self):
        first = self.files(self.clones[0])
        differ, missing, conflicts, lost_anywhere = [], {}, [], set()
        for c in self.clones:
            files = self.files(c)
            if files != first:
                differ.append(os.path.basename(c))
            # every acknowledged text is one line of its entry: found by a set, not a scan of
            # the files per text (at 100k entries, minutes)
            text = b"\n".join(files.values()).decode(errors="replace")
            found = set(ACKED.findall(text))
            lost = [t for t in self.acked if t not in found]
            lost_anywhere.update(lost)
            if lost:
                missing[os.path.basename(c)] = {"count": len(lost), "first": lost[:20]}
            markers = [n for n, b in files.items() if re.search(rb"^(<<<<<<<|>>>>>>>) ", b, re.M)]
            if self.unmerged(c) or markers:
                conflicts.append(os.path.basename(c))
        return differ, missing, conflicts, len(lost_anywhere)

    def writers_of(self):
        """Who wrote the entries the first clone holds, as its `read --json` says."""
        p = self.tri(self.clones[0], "read", "SESSIONS.md", "-n", "500", "--json")
        by = {}
        try:
            v = json.loads(p.stdout)
        except ValueError:
            return {"error": p.stderr.decode(errors="replace")[:300]}
        for e in v.get("entries", []):
            prov = e.get("provenance") or {}
            who = prov.get("arrived_from") or f"this clone ({prov.get('via', '?')})"
            by[who] = by.get(who, 0) + 1
        return by

    def disk(self, c):
        def du(p):
            total = 0
            for dirpath, _, names in os.walk(p):
                for n in names:
                    try:
                        total += os.lstat(os.path.join(dirpath, n)).st_size
                    except OSError:
                        pass
            return total
        return {"git_mib": round(du(os.path.join(c, ".git")) / 2**20, 1),
                "trilogy_mib": round(du(os.path.join(c, ".trilogy")) / 2**20, 1)}


def generate(root, n):
    """n entries in the generator's shape (5% decisions, 200 live sessions, the rest archived)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import volume_compare
    src = volume_compare.workspace(n)
    for name in os.listdir(src + "/memory"):
        shutil.copy(os.path.join(src, "memory", name), os.path.join(root, "memory", name))
    shutil.rmtree(src)


def main():
    a = parse_args()
    team = Team(a)
    started = time.time()
    team.setup()
    threads = [threading.Thread(target=team.writer, args=(c, w)) for c in team.clones for w in range(a.writers)]
    threads += [threading.Thread(target=team.person, args=(c,)) for c in team.clones]
    for t in threads:
        t.start()
    time.sleep(a.seconds)
    team.stop.set()
    for t in threads:
        t.join()
    team.settle()
    differ, missing, conflicts, lost = team.verify()
    min_acked = a.min_acked if a.min_acked is not None else max(1, int(a.seconds / 6))
    short = [os.path.basename(c) for c in team.clones if team.stats[c]["acked"] < min_acked]
    ab = sorted(team.absorbs)
    report = {
        "clones": a.clones, "seconds": a.seconds, "writers_per_clone": a.writers, "entries": a.entries,
        "acknowledged": len(team.acked),
        "missing": lost, "missing_by_clone": missing,
        "differing_clones": differ, "conflicts_left": conflicts,
        "clones_short_of_writes": short, "min_acked": min_acked,
        "absorb_after_pull_ms": {"n": len(ab),
                                 "p50": round(statistics.median(ab) * 1000, 1) if ab else None,
                                 "p95": round(ab[int(0.95 * (len(ab) - 1))] * 1000, 1) if ab else None},
        "per_clone": {os.path.basename(c): dict(team.stats[c], **team.disk(c)) for c in team.clones},
        "writers_of_entries_in_first_clone": team.writers_of(),
        "wall_s": round(time.time() - started, 1),
    }
    out = json.dumps(report, indent=2, ensure_ascii=False)
    print(out)
    if a.json:
        with open(a.json, "w") as f:
            f.write(out)
    if not a.keep:
        shutil.rmtree(team.root, ignore_errors=True)
    else:
        print(f"clones kept in {team.root}", file=sys.stderr)
    ok = not report["missing"] and not differ and not conflicts and not short
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
