#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""figures.py RUNDIR [REPORT.md] - every figure of a run, derived again.

An independent check of what `numaplan run` and `numaplan report` print: it
shares no code with bench/.  From the raw outputs alone (each kernel's JSON
line in raw/NAME.rR.NODE.out, raw/NAME.rR.rc, the /proc/stat samples in
raw/NAME.rR.stat) it derives each run's figures, then each experiment's
median, min and max, %sys, HPL's efficiency against Rpeak, Himeno's scaling
efficiency and the STREAM matrix, and compares them with results.json
and, when given, the Markdown report.  A section that is missing or empty
while its data exists is a failure too.

The definitions are those of numaplan-run(1) and numaplan-report(1):
  - STREAM: the kernel's copy/scale/add/triad_mbps; HPL: gflops, and
    efficiency = gflops / (Rpeak per node x nodes); Himeno: mflops;
    OSU: lat_8B_us is the value at 8 bytes, bw_max_mbps the largest value.
  - A run passes when its rc file says rc=0 and the kernel validated.
  - median of an even count: the mean of the middle two.
  - %sys of a node: (system + irq + softirq) over all of user, nice,
    system, idle, iowait, irq, softirq and steal between the before and
    after samples of the run's .stat file, summed over the step's CPUs
    (its "allowed" list, the per-CPU "cpuN" lines); without those, the
    machine's "cpu" line.  A run on all nodes: their mean.
  - A run is contended when the node's other CPUs (the cpuN lines not in
    the list) were busy (not idle or iowait) more than results.json's
    contended_above_pct of their time; a run on all nodes: the busiest.
  - Himeno efficiency: MFLOPS(N) / (N x MFLOPS(1)), the 1-node run of the
    same node type, for N > 1 only.
Output: TAP, one line per check; exit 1 when any failed.
"""
import json
import math
import os
import re
import sys

n_ok = 0
n_fail = 0


def check(ok, what, detail=""):
    global n_ok, n_fail
    if ok:
        n_ok += 1
        print(f"ok {n_ok + n_fail} - {what}")
    else:
        n_fail += 1
        print(f"not ok {n_ok + n_fail} - {what}")
        if detail:
            for line in str(detail).splitlines():
                print(f"#   {line}")


def close(a, b, rel=1e-6):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)


def median(v):
    s = sorted(v)
    n = len(s)
    if n == 0:
        return None
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def printed_matches(text, value):
    """A number as the report printed it stands for value: equal to it
    rounded to the digits printed (half a unit of the last digit)."""
    m = re.fullmatch(r"\s*(-?[0-9]+)(?:\.([0-9]+))?\s*", text)
    if not m or value is None:
        return False
    decimals = len(m.group(2) or "")
    printed = float(text)
    half = 0.5 * 10 ** -decimals
    return abs(printed - value) <= half * (1 + 1e-9) + 1e-12 * abs(value)


# ---- the raw outputs ----------------------------------------------------
def kernel_json(path):
    try:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line.startswith("{"):
                    return json.loads(line)
    except (OSError, ValueError):
        pass
    return None


def rc_ok(raw, name, rep):
    try:
        with open(os.path.join(raw, f"{name}.r{rep}.rc")) as f:
            return re.match(r"rc=0\b", f.read()) is not None
    except OSError:
        return False


def cpulist(text):
    """the CPUs of a Linux cpulist, or None when it is not one"""
    out = set()
    for part in text.split(","):
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", part.strip())
        if not m:
            return None
        a, b = int(m.group(1)), int(m.group(2) or m.group(1))
        if b < a:
            return None
        out.update(range(a, b + 1))
    return out or None


def share(before, after):
    """(sys %, idle %) of the ticks between two counter lists"""
    d = [x - y for x, y in zip(after, before)]
    user, nice, system, idle, iowait, irq, softirq, steal = (d + [0] * 8)[:8]
    total = user + nice + system + idle + iowait + irq + softirq + steal
    if total <= 0:
        return None
    return 100.0 * (system + irq + softirq) / total, 100.0 * (idle + iowait) / total


def stat_shares(raw, name, rep):
    """node -> (%sys, other CPUs' busy % or None) over the run"""
    agg, per, allowed = {}, {}, {}
    try:
        with open(os.path.join(raw, f"{name}.r{rep}.stat")) as f:
            for line in f:
                w = line.split()
                if len(w) < 4 or w[0] not in ("before", "after"):
                    continue
                key = (w[0], w[1])
                if w[2] == "allowed":
                    cpus = cpulist(w[3])
                    if cpus is not None:
                        allowed[key] = cpus
                elif w[2] == "cpu" and len(w) >= 7:
                    agg[key] = [int(x) for x in w[3:11]] + [0] * (11 - len(w))
                elif re.fullmatch(r"cpu\d+", w[2]) and len(w) >= 7:
                    per.setdefault(key, {})[int(w[2][3:])] = [int(x) for x in w[3:11]] + [0] * (11 - len(w))
    except OSError:
        return {}
    out = {}
    for node in {n for _, n in list(agg) + list(per)}:
        b, a = ("before", node), ("after", node)
        mine = allowed.get(a) or allowed.get(b)
        both = sorted(set(per.get(b, {})) & set(per.get(a, {})))
        step = [c for c in both if mine and c in mine]
        other = [c for c in both if mine and c not in mine]
        total = lambda key, cpus: [sum(per[key][c][i] for c in cpus) for i in range(8)]
        got = share(total(b, step), total(a, step)) if step else None
        if got is None and b in agg and a in agg:
            got = share(agg[b], agg[a])
            other = []
        if got is None:
            continue
        busy = None
        if other:
            o = share(total(b, other), total(a, other))
            busy = 100.0 - o[1] if o else None
        out[node] = (got[0], busy)
    return out


def figures(kernel, k):
    """the figures of one kernel output, and whether it validated"""
    if k is None:
        return None, False
    if kernel == "stream":
        f = {m: k.get(m) for m in ("copy_mbps", "scale_mbps", "add_mbps", "triad_mbps")}
        return f, k.get("validated") is True
    if kernel in ("hpl", "xhpl"):
        return {"gflops": k.get("gflops")}, k.get("passed") is True
    if kernel == "himeno":
        return {"mflops": k.get("mflops")}, k.get("validated", True) is not False
    if kernel == "osu":
        res = k.get("results") or []
        f = {}
        if k.get("unit") == "us":
            at8 = [r["value"] for r in res if r.get("size") == 8]
            f["lat_8B_us"] = at8[0] if at8 else None
        else:
            f["bw_max_mbps"] = max((r["value"] for r in res), default=None)
        return f, bool(res)
    return None, False


def derive_runs(raw, exp, repeat, per_node):
    """[(rep, node, figures, sys, others_busy, kernel JSON)] of the runs
    that passed;
    per_node: a run on each node apart, else one MPI run across them"""
    name, kernel = exp["name"], exp["kernel"]
    files = os.listdir(raw)
    runs = []
    for rep in range(1, repeat + 1):
        if not rc_ok(raw, name, rep):
            continue
        shares = stat_shares(raw, name, rep)
        pre = f"{name}.r{rep}."
        outs = sorted(f for f in files if f.startswith(pre) and f.endswith(".out")
                      and "." not in f[len(pre):-4])
        per, where = {}, {}
        for f in outs:
            node = f[len(pre):-4]
            k = kernel_json(os.path.join(raw, f))
            fig, valid = figures(kernel, k)
            if fig is not None and valid:
                per[node] = fig
                where[node] = k or {}
            elif fig is not None:
                per[node] = None          # ran, did not validate
        if not per:
            continue
        if per_node:
            for node, fig in per.items():
                if fig is not None:
                    sh = shares.get(node)
                    runs.append((rep, node, fig, sh[0] if sh else None, sh[1] if sh else None, where[node]))
        else:
            # an MPI run: its first rank prints, on one node; its nodes'
            # mean %sys, and the busiest other CPUs of any of them
            figs = [f for f in per.values() if f is not None]
            if len(figs) == 1 and len(per) == 1:
                vals = [v[0] for v in shares.values()]
                busy = [v[1] for v in shares.values() if v[1] is not None]
                runs.append((rep, "all", figs[0], sum(vals) / len(vals) if vals else None,
                             max(busy) if busy else None, list(where.values())[0]))
    return runs


# ---- the comparison -----------------------------------------------------
def main():
    if len(sys.argv) < 2:
        sys.stderr.write("usage: figures.py RUNDIR [REPORT.md]\n")
        return 2
    rundir = sys.argv[1]
    raw = os.path.join(rundir, "raw")
    with open(os.path.join(rundir, "results.json")) as f:
        res = json.load(f)
    repeat = res["repeat"]
    rpeak_node = (res.get("rpeak") or {}).get("gflops_per_node")
    derived = {}
    contended = {}
    far = {}

    for e in res["experiments"]:
        name, kernel = e["name"], e["kernel"]
        # each node's runs apart when results.json has one run per node
        per_node = any(r.get("node") not in (None, "all") for r in e.get("runs", []))
        runs = derive_runs(raw, e, repeat, per_node)
        metric = e.get("primary_metric")
        stats = e.get("stats", {})
        vals = [fig.get(metric) for _, _, fig, _, _, _ in runs if fig.get(metric) is not None]
        d = {"n": len(vals), "median": median(vals), "min": min(vals, default=None),
             "max": max(vals, default=None)}
        got = stats.get(metric, {})
        check(d["n"] == got.get("n", 0) and close(d["median"], got.get("median"))
              and close(d["min"], got.get("min")) and close(d["max"], got.get("max")),
              f"{name}: {metric} median, min, max of {d['n']} passed run(s) from raw/",
              f"derived {d}\nresults.json {got}")
        if kernel == "stream":
            for m in ("copy_mbps", "scale_mbps", "add_mbps"):
                v = [fig[m] for _, _, fig, _, _, _ in runs if fig.get(m) is not None]
                check(close(median(v), stats.get(m, {}).get("median")),
                      f"{name}: {m} median from raw/", f"derived {median(v)}, results.json {stats.get(m)}")
        sys_v = [s for _, _, _, s, _, _ in runs if s is not None]
        # contention: each passed run's other CPUs against the rule
        limit = res.get("contended_above_pct")
        if limit is not None:
            want = {(rep, node): busy is not None and busy > limit for rep, node, _, _, busy, _ in runs}
            got = {(r.get("rep"), r.get("node")): r.get("contended") is True
                   for r in e.get("runs", []) if r.get("status") in ("ok", "misplaced")}
            bad = [k for k in want if k in got and want[k] != got[k]]
            check(not bad and sum(want.values()) == e.get("runs_contended", 0),
                  f"{name}: {sum(want.values())} run(s) contended (other CPUs over {limit:g}% busy)",
                  f"disagree on {bad}; results.json runs_contended {e.get('runs_contended')}")
            contended[name] = sorted((rep, node, busy) for rep, node, _, _, busy, _ in runs
                                     if busy is not None and busy > limit)
        if sys_v:
            check(close(median(sys_v), stats.get("sys_pct", {}).get("median")),
                  f"{name}: %sys median from the .stat samples",
                  f"derived {median(sys_v)}, results.json {stats.get('sys_pct')}")
        # runs far from their siblings: 3+ runs on a node, more than the
        # outlier rule's percentage off the median of that node's runs
        pct = (e.get("outlier_rule") or {}).get("pct")
        bynode = {}
        for rep, node, fig, _, _, _ in runs:
            if fig.get(metric) is not None:
                bynode.setdefault(node, []).append((rep, fig[metric]))
        far[name] = []
        for node, v in bynode.items():
            m = median([x for _, x in v])
            if len(v) >= 3 and m and m > 0 and pct is not None:
                far[name] += [(rep, node, x, m, 100.0 * (x - m) / m) for rep, x in v
                              if abs(100.0 * (x - m) / m) > pct]
        got = sorted((r.get("rep"), r.get("node")) for r in e.get("runs", []) if r.get("far_from_siblings"))
        check(got == sorted((a, b) for a, b, _, _, _ in far[name]) and e.get("runs_far", 0) == len(far[name]),
              f"{name}: {len(far[name])} run(s) far from their siblings (over {pct}% off their node's median)",
              f"derived {far[name]}, results.json {got}")
        if kernel == "stream":
            # the stores each run used: the faster of its own trial (with
            # --stores best), and what results.json says it used
            rec = {(r.get("rep"), r.get("node")): r for r in e.get("runs", [])}
            bad = []
            for rep, node, _, _, _, kj in runs:
                tr = kj.get("stores_trial")
                if tr:
                    faster = "nt" if tr["nt_triad_mbps"] > tr["normal_triad_mbps"] else "normal"
                    if kj.get("stores") != faster:
                        bad.append((rep, node, "not the faster of its trial"))
                if (rep, node) in rec and rec[(rep, node)].get("stores") != kj.get("stores"):
                    bad.append((rep, node, f"results.json {rec[(rep, node)].get('stores')}"))
            check(not bad, f"{name}: stores of each run ({', '.join(sorted({str(r[5].get('stores')) for r in runs}))}) "
                           "as its kernel used and chose them", f"{bad}")
        if kernel in ("hpl", "xhpl") and rpeak_node and vals:
            eff = [v / (rpeak_node * e["nodes"]) for v in vals]
            check(close(median(eff), stats.get("efficiency", {}).get("median")),
                  f"{name}: efficiency = Gflops / (Rpeak {rpeak_node:.4g} x {e['nodes']} node(s))",
                  f"derived {median(eff)}, results.json {stats.get('efficiency')}")
        # where its kernels ran: every thread's HOST:CPUS, and the memory
        # nodes (the plan's, or under first touch those of the CPUs)
        cpus = {f"{p.get('host')}:{p.get('cpus')}" for run in runs for p in run[5].get("placement") or []}
        planned = (e.get("placement") or {}).get("mems")
        mems = set(cpulist(planned) or []) if planned else \
            {m for run in runs for p in run[5].get("placement") or [] for m in (cpulist(str(p.get("numa"))) or [])}
        kinds = {}
        for run in runs:
            if run[5].get("stores"):
                kinds[run[5]["stores"]] = kinds.get(run[5]["stores"], 0) + 1
        trials = [(r[5]["stores_trial"]["normal_triad_mbps"], r[5]["stores_trial"]["nt_triad_mbps"])
                  for r in runs if r[5].get("stores_trial")]
        derived[name] = dict(d, sys=median(sys_v) if sys_v else None, exp=e, n_runs_ok=d["n"],
                             stores=(kinds, trials) if kinds else None,
                             where=(" ".join(sorted(cpus)), tuple(sorted(mems))) if cpus else None)

    # one measurement under several names: an experiment whose kernels ran
    # where an earlier one of the same kernel, ranks and threads ran
    order = [e["name"] for e in res["experiments"]]
    same = {}
    for i, a in enumerate(order):
        x = derived[a]
        for b in order[:i]:
            y = derived[b]
            if x["where"] and x["where"] == y["where"] and b not in same and \
                    all(x["exp"].get(k) == y["exp"].get(k) for k in ("kernel", "ntasks", "threads")):
                same[a] = b
                break
        got = x["exp"].get("same_cpus_as")
        check(got == same.get(a), f"{a}: same CPUs as {same.get(a)}",
              f"derived {same.get(a)} ({x['where']}), results.json {got}")
    # Himeno: efficiency per node type, N > 1, against that type's 1 node
    def ntype(e):
        return (e.get("params") or {}).get("node_type", "")
    him = [x for x in derived.values() if x["exp"]["kernel"] == "himeno"]
    for x in him:
        e = x["exp"]
        ones = [y for y in him if y["exp"]["nodes"] == 1 and ntype(y["exp"]) == ntype(e)]
        want = None
        if e["nodes"] > 1 and ones and ones[-1]["median"] and x["median"] is not None:
            want = x["median"] / (e["nodes"] * ones[-1]["median"])
        check(close(want, (e.get("derived") or {}).get("efficiency")),
              f"{e['name']}: Himeno efficiency {'%.4g' % want if want is not None else 'none (N = 1)'}",
              f"results.json {(e.get('derived') or {}).get('efficiency')}")

    if len(sys.argv) > 2:
        report(sys.argv[2], res, derived, him, contended, same, far)
    print(f"1..{n_ok + n_fail}")
    return 1 if n_fail else 0


# ---- the Markdown report -------------------------------------------------
def tables(md):
    """heading -> [rows of cells] of each table under a ## heading"""
    out, head = {}, None
    for line in md.splitlines():
        if line.startswith("## "):
            head = line[3:].strip()
            out.setdefault(head, [])
        elif head and line.startswith("|") and not re.match(r"^\|\s*-", line):
            out[head].append([c.strip() for c in line.strip().strip("|").split("|")])
    return out


def section(t, prefix):
    for k, v in t.items():
        if k.startswith(prefix):
            return v
    return None


def report(path, res, derived, him, contended, same, far):
    with open(path) as f:
        text = f.read()
        t = tables(text)
    # the Results note names each group of one measurement
    groups = {}
    for a, b in same.items():
        groups.setdefault(b, []).append(a)
    for b, names in groups.items():
        want = f"{', '.join(names)} = {b} ({derived[b]['where'][0]})"
        check(want in text, f"report: one measurement under several names: {want}")
    if not groups:
        check("One measurement under several names" not in text, "report: no experiment repeats another's CPUs")
    rows = section(t, "Results")
    check(rows is not None and len(rows) > 1, "report: a Results table")
    if rows:
        cols = rows[0]
        for r in rows[1:]:
            x = derived.get(r[0])
            if not x or x["n"] == 0:
                continue
            cell = dict(zip(cols, r))
            ok = all(printed_matches(cell.get(k, ""), x[k]) for k in ("median", "min", "max"))
            if x["sys"] is not None and "%sys" in cell:
                ok = ok and printed_matches(cell["%sys"], x["sys"])
            nc, nf = len(contended.get(r[0], [])), len(far.get(r[0], []))
            suffix = (f", {nc}/{x['n_runs_ok']} contended" if nc else "") + \
                (f", {nf}/{x['n_runs_ok']} far from siblings" if nf else "")
            ok = ok and cell.get("status", "") == x["exp"].get("status", "") + suffix
            check(ok, f"report: {r[0]}: median {cell.get('median')}, min {cell.get('min')}, "
                      f"max {cell.get('max')}, %sys {cell.get('%sys')} as derived",
                  f"derived median {x['median']} min {x['min']} max {x['max']} %sys {x['sys']}")
    # runs far from their siblings: a row each, with the node's median
    want = sorted((name, rep, node, v, m, d) for name, rows_ in far.items() for rep, node, v, m, d in rows_)
    rows = section(t, "Runs far from their siblings")
    if want:
        got = sorted((r[0], int(r[1]), r[2], r[3], r[4], r[5]) for r in (rows or [])[1:])
        ok = len(got) == len(want) and all(g[:3] == w[:3] and printed_matches(g[3], w[3]) and
                                           printed_matches(g[4], w[4]) and printed_matches(g[5], w[5])
                                           for g, w in zip(got, want))
        check(ok, f"report: Runs far from their siblings, {len(want)} row(s) as derived", f"derived {want}\nprinted {got}")
    else:
        check(rows is None, "report: no Runs far from their siblings table (no run was)")
    # STREAM stores: per experiment, the kinds its runs used and the mean
    # of their trial figures
    st = [x for x in derived.values() if x["exp"]["kernel"] == "stream" and x["stores"]]
    if st:
        rows = section(t, "STREAM stores")
        check(rows is not None and len(rows) == len(st) + 1, "report: a STREAM stores row per experiment")
        for r in (rows or [])[1:]:
            x = derived.get(r[0])
            if not x:
                continue
            kinds, trials = x["stores"]
            used = ", ".join(f"{k} {kinds[k]}" for k in ("nt", "normal") if kinds.get(k))
            ok = r[1] == used
            if trials:
                ok = ok and printed_matches(r[2], sum(a for a, _ in trials) / len(trials)) and \
                    printed_matches(r[3], sum(b for _, b in trials) / len(trials))
            else:
                ok = ok and r[2] == "no trial"
            check(ok, f"report: STREAM stores {r[0]}: {r[1]}, trial {r[2]} / {r[3]}",
                  f"derived {used}, {trials}")
    # contention: a row per contended run, with its other CPUs' share
    want = sorted((name, rep, node, busy) for name, v in contended.items() for rep, node, busy in v)
    rows = section(t, "Runs under contention")
    if want:
        got = sorted((r[0], int(r[1]), r[2], r[4]) for r in (rows or [])[1:])
        ok = len(got) == len(want) and all(g[:3] == w[:3] and printed_matches(g[3], w[3])
                                           for g, w in zip(got, want))
        check(ok, f"report: Runs under contention, {len(want)} row(s) as derived", f"derived {want}\nprinted {got}")
    else:
        check(rows is None, "report: no Runs under contention table (no run was)")
    # Himeno: a row per experiment; an efficiency where N > 1
    if him:
        rows = section(t, "Himeno scaling")
        check(rows is not None and len(rows) == len(him) + 1, "report: a Himeno scaling row per experiment")
        for r in (rows or [])[1:]:
            x = derived.get(r[0])
            if not x:
                continue
            e = x["exp"]
            want = (e.get("derived") or {}).get("efficiency")
            ok = printed_matches(r[2], x["median"])
            if e["nodes"] > 1:
                ok = ok and want is not None and printed_matches(r[3], want)
            else:
                ok = ok and not re.fullmatch(r"[0-9.]+", r[3])
            check(ok, f"report: Himeno {r[0]}: MFLOPS {r[2]}, efficiency {r[3]}")
    # HPL: Gflops and efficiency
    hpl = [x for x in derived.values() if x["exp"]["kernel"] in ("hpl", "xhpl") and x["n"]]
    if hpl:
        rows = section(t, "HPL")
        check(rows is not None and len(rows) > 1, "report: an HPL table (HPL ran)")
        for r in (rows or [])[1:]:
            x = derived.get(r[0])
            if not x:
                continue
            eff = x["exp"]["stats"].get("efficiency", {}).get("median")
            check(printed_matches(r[4], x["median"]) and printed_matches(r[6], eff),
                  f"report: HPL {r[0]}: Gflops {r[4]}, efficiency {r[6]}")
    # the STREAM matrix: every measured cell, with its value
    cells = [x for x in derived.values() if x["exp"]["kernel"] == "stream" and x["exp"].get("group") == "matrix"]
    if any(x["n"] for x in cells):
        rows = section(t, "STREAM Triad (MB/s) by CPU node")
        check(rows is not None and len(rows) > 1, "report: a STREAM matrix (its cells ran)")
        for x in cells:
            p = x["exp"].get("params") or {}
            c, m = p.get("numa_cpu"), p.get("numa_mem")
            found = None
            for r in (rows or [])[1:]:
                if r[0] == f"NUMA {c}" and f"NUMA {m}" in rows[0]:
                    found = r[rows[0].index(f"NUMA {m}")]
            printed = (found or "").split(" (")[0]
            check(printed_matches(printed, x["median"]) if x["n"] else found == "not measured",
                  f"report: STREAM matrix CPU {c} x memory {m}: {found}")
    # OSU between nodes: its tables, when a point-to-point run passed
    if any(x["n"] for x in derived.values() if x["exp"]["kernel"] == "osu" and x["exp"]["nodes"] > 1):
        check(section(t, "OSU latency") is not None or section(t, "OSU bandwidth") is not None,
              "report: OSU tables (OSU ran between nodes)")


if __name__ == "__main__":
    sys.exit(main())
